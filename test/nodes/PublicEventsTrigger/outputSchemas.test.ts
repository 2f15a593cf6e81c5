import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import {
	inferSchema,
	misfits,
	PUSH_TRIGGER_SCHEMA as PUSH_SCHEMA,
	type JsonSchema,
} from '../../../harness/engine/outputSchema';
import { payOrder } from '../../../harness/sandbox/push';
import { SIGNED, pushSandbox, triggerSuite } from '../../../harness/nodes/webhookTrigger';

/**
 * The push trigger's output schema (its items have one fixed shape), inferred from and checked
 * against real items: sandbox deliveries of a widget sale, an order sale and a refund, with the
 * default settings. n8n 2.40.7 reads a node without resource/operation from
 * `<node dir>/__schema__/v<version>.json` (served at /schemas/<type>/<version>.json, and used by
 * its AI builder's output lookup). `npm run schemas` rewrites it (UPDATE_SCHEMAS=1).
 */

const { sb, triggers } = triggerSuite(pushSandbox(6));

/** n8n looks the schema up by the node's version: v1.0.0.json for 1, v1.1.0.json for 1.1. */
const schemaOf = (typeVersion: number) =>
	PUSH_SCHEMA.replace(/v1\.0\.0\.json$/, `v${typeVersion.toFixed(1)}.0.json`);

test.each([1, 1.1])(
	'push trigger %s: the shipped schema fits every real item, and is what they infer',
	async (typeVersion) => {
		const { trigger } = await triggers.subscribed(SIGNED, { typeVersion });
		expect((await sb().admin('POST', '/widget-orders', { tickets: 2 })).status).toBe(201);
		const { orderId } = await payOrder(sb());
		expect(
			(await sb().send('PUT', `/orders/${orderId}/status`, { toStatus: 'refund' })).status,
		).toBe(200);
		await trigger.waitForCalls(3);
		const items = trigger.executions.flat().map((item) => item.json);
		expect(new Set(items.map((item) => item.type))).toEqual(new Set(['sale', 'refund']));
		// Each names its channel: the widget sale, the API order's sale and refund.
		expect(items.map((item) => item.channel).sort()).toEqual(['api', 'api', 'widget']);

		const file = schemaOf(typeVersion);
		const inferred = inferSchema(items);
		if (process.env.UPDATE_SCHEMAS) {
			mkdirSync(dirname(file), { recursive: true });
			writeFileSync(file, JSON.stringify(inferred, null, 2) + '\n');
		}
		expect(existsSync(file)).toBe(true);
		const shipped = JSON.parse(readFileSync(file, 'utf8')) as JsonSchema;
		expect(items.flatMap((item) => misfits(item, shipped))).toEqual([]);
		expect(shipped).toEqual(inferred);
		expect(shipped.required).toEqual(
			expect.arrayContaining(['type', 'orderId', 'deliveryId', 'occurredAt', 'payload']),
		);
		await sb().admin('DELETE', '/webhooks');
	},
);
