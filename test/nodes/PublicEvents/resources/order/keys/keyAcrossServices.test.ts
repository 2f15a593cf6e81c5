/**
 * Keys are per service (Base URL and environment): a reference tried on staging is no repeat on
 * production, where the same order number is another buyer's order (outside review: the node
 * handed that buyer's paid order, marked repeated).
 */
import type { IDataObject } from 'n8n-workflow';

import { credentialFor, runPublicEvents } from '../../../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../../../harness/sandbox/client';
import { onlyEvents } from '../../../../../../harness/sandbox/suite';

let staging: SandboxClient;
let production: SandboxClient;
beforeAll(async () => {
	staging = await SandboxClient.start(onlyEvents(2, 40, { limits: { reservedPerAccount: 100 } }));
	production = await SandboxClient.start(
		onlyEvents(2, 40, { limits: { reservedPerAccount: 100 } }),
	);
});
afterAll(async () => {
	await staging.stop();
	await production.stop();
});

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

async function create(sb: SandboxClient, key?: string) {
	const free = await sb.freePlaces(1001, 1);
	return await runPublicEvents(credentialFor(sb).store, {
		resource: 'order',
		operation: 'create',
		eventId: byId('1001'),
		places: byId(free.ids.join(',')),
		priceCategory: free.priceCategory,
		options: key ? { idempotencyKey: key } : {},
	} as never);
}

describe('an Idempotency Key carried from staging to production', () => {
	it("the first production sale under the tried reference: not another buyer's order", async () => {
		// On staging, the partner tries Sell a ticket with its default reference.
		const tried = await create(staging, 'first sale');
		expect(tried.error).toBeUndefined();
		const stagingId = String(tried.items[0].json.id);

		// On production, another buyer has bought meanwhile (a widget/shop sale, any channel).
		const other = await create(production);
		const otherId = String(other.items[0].json.id);
		expect(otherId).toBe(stagingId); // the services number their orders alike
		await production.send('PUT', `/orders/${otherId}/status`, { toStatus: 'paid' }, 'partner');

		// The partner's first production sale, the reference left as it was.
		const sale = await create(production, 'first sale');
		expect(sale.error).toBeUndefined();
		const json = sale.items[0].json as IDataObject;
		expect({ id: String(json.id), repeated: (json.idempotency as IDataObject)?.repeated }).toEqual({
			id: expect.not.stringMatching(`^${otherId}$`),
			repeated: undefined,
		});
	});
});
