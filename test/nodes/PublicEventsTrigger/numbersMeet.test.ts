import type { IDataObject } from 'n8n-workflow';

import { paidApiOrder } from '../../../harness/sandbox/push';
import {
	NONE,
	post,
	postSigned,
	SIGNED,
	triggerSuite,
} from '../../../harness/nodes/webhookTrigger';

/**
 * A widget order and an API order of one number are two sales (the spec promises nothing about
 * their numbers): two runs, two keys, two ledger rows. Before the ledger both were `sale:700001`,
 * and under Security None the second sale was answered 200 as a repeat and never ran.
 */
const { sb, triggers } = triggerSuite({ events: 3, placesPerEvent: 40, widgetOrders: 0 });

async function twoSalesOfOneNumber() {
	await sb().setQuirks('shared-order-numbers');
	const api = await paidApiOrder(sb(), 1);
	const widget = (await sb().admin('POST', '/widget-orders', { company: 'partner' })).body;
	expect(String(widget.id)).toBe(String(api.id));
	return { api, widget };
}
const claim = (order: IDataObject, data: IDataObject) =>
	JSON.stringify({
		id: `claim-${String(data.source ?? 'api')}`,
		type: 'order.sale',
		occurredAt: order.payAt,
		data: { orderId: order.id, eventPointId: order.eventPoint, ...data },
	});

describe('a widget order and an API order of one number', () => {
	afterEach(() => sb().setQuirks(''));

	it('Security None: both sales run, each with its own key', async () => {
		const { api, widget } = await twoSalesOfOneNumber();
		const trigger = await triggers.start(NONE);
		expect((await post(trigger.url, claim(widget, { source: 'widget' }))).status).toBe(200);
		expect((await post(trigger.url, claim(api, {}))).status).toBe(200);
		const items = trigger.executions.map((run) => run[0].json);
		expect(items.map((item) => [item.channel, item.dedupeKey])).toEqual([
			['widget', `sale:widget:${String(widget.id)}`],
			['api', `sale:api:${String(api.id)}`],
		]);
	});

	it('Ledger Rows: two rows, two keys, each with its own amount', async () => {
		const { api, widget } = await twoSalesOfOneNumber();
		const trigger = await triggers.start({
			...SIGNED,
			fetchFullOrder: true,
			options: { output: 'rows' },
		});
		await postSigned(trigger.url, claim(widget, { source: 'widget' }));
		await postSigned(trigger.url, claim(api, { source: 'api' }));
		const rows = trigger.executions.flatMap((run) => run.map((item) => item.json));
		expect(rows.map((row) => [row.key, row.channel, row.email === null])).toEqual([
			[`sale:widget:${String(widget.id)}`, 'widget', false],
			[`sale:api:${String(api.id)}`, 'api', true],
		]);
	});
});
