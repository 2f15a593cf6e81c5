import type { IDataObject } from 'n8n-workflow';

import { byId, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { mark, since } from '../../../../../harness/nodes/publicEvents';

/**
 * What an outside review of the one order-write path (orderWrite.ts) found, kept: Keep Holds read
 * as its check reads it, Hold Best Available's own 409 words, and its order of input checks.
 */
const suite = orderNodeSuite();
const { sb, order, getOrder, newEvent } = suite;

afterEach(async () => {
	await sb().admin('DELETE', '/faults');
});
const UNKNOWN = '999999';

describe('Keep Holds When a Later Item Fails', () => {
	it(
		'an expression giving "True" is on, as its check reads it: a later failed item leaves the ' +
			'earlier hold held and says so',
		async () => {
			const { id } = await newEvent(40);
			const { error } = await order(
				'holdBestAvailable',
				{
					eventId: byId('={{ $json.event }}'),
					quantity: 2,
					options: { keepHolds: '={{ "True" }}' },
				},
				{ inputItems: [{ event: id }, { event: UNKNOWN }] },
			);
			// The option passed its check (the run reached the service, item 2 failed on its event).
			expect(error?.message).toMatch(/^Event 999999 was not found\. /);
			const made = Number(/order (\d+) \(item 1, places/.exec(error!.message)![1]);
			// Asked to keep it: still held, said so.
			expect(error?.message).toContain(`order ${made} (item 1, places`);
			expect(error?.message).toMatch(/is still held\. Release holds you no longer need/);
			expect((await getOrder(made)).body.status).toBe('reserved_to_time');
		},
	);
});

describe("Hold Best Available: a 409 on this run's own hold", () => {
	it(
		'with a plan the service serves stale, item 2 is refused on item 1 places: the error ' +
			'keeps the 409 words Hold Best Available gave before (no "Places takes a list")',
		async () => {
			const { id, plan } = await newEvent(20);
			// The service serves the hall plan as it was before the run (a cache): item 2 sees item
			// 1's places free and picks them.
			await sb().admin('POST', '/faults', {
				kind: 'status',
				status: 200,
				method: 'GET',
				path: `/event-points/${id}/places`,
				count: 0,
				// Two places of one row: the only pick of two.
				body: plan.slice(0, 2),
			});
			const { error } = await order(
				'holdBestAvailable',
				{
					eventId: byId('={{ $json.event }}'),
					quantity: 2,
					options: { conflictRetries: 0, keepHolds: true },
				},
				{ inputItems: [{ event: id }, { event: id }] },
			);
			expect(error).toBeDefined();
			expect(error!.message).toMatch(/^Refused: creating an order on event \d+ was NOT applied\./);
			// Hold Best Available's Places is a number: there is no list to give.
			expect(error!.message).not.toContain('Places takes a list');
			expect(error!.message).not.toMatch(/nobody else[\s\S]*others were faster each time/);
		},
	);
});

describe('Hold Best Available: bad input, the first checked is named, before any request', () => {
	it('New Picks out of range and bad extra body fields: New Picks named', async () => {
		const { id } = await newEvent(20);
		const before = await mark(sb());
		const { error } = await order('holdBestAvailable', {
			eventId: byId(String(id)),
			quantity: 2,
			options: { conflictRetries: 99, additionalBodyFields: '[1]' } as IDataObject,
		});
		expect(await since(sb(), before)).toEqual([]);
		expect(error?.message).toContain('New Picks After a Conflict');
	});
});
