/**
 * Create with Split Tickets Into Items under an Idempotency Key: a repeat's ticket rows each carry
 * `idempotency.repeated`, so a workflow's "Repeated?" branch does not charge a second click
 * (outside review: the marker was on the order only, so split rows read as a new sale).
 */
import type { IDataObject } from 'n8n-workflow';

import { byId, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';
import { mark, since } from '../../../../../../harness/nodes/publicEvents';

const { sb, order, newEvent } = orderNodeSuite();

describe('Create + Split Tickets + Idempotency Key', () => {
	it('a repeat of a paid purchase, split into tickets, still says it is a repeat', async () => {
		const event = await newEvent(4);
		const [one, two] = event.plan;
		const create = {
			eventId: byId(String(event.id)),
			places: byId(`${one.id},${two.id}`),
			priceCategory: String(one.priceCategories[0].id),
			options: { idempotencyKey: 'split-sale-1', splitTickets: true },
		};
		const first = await order('create', create);
		expect(first.error).toBeUndefined();
		const orderId = String(first.items[0].json.id);
		const paid = await order('changeStatus', { orderId, toStatus: 'paid' });
		expect(paid.items[0].json.status).toBe('paid');

		// The buyer clicks again: the same key, the same purchase.
		const before = await mark(sb());
		const again = await order('create', create);
		const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
		expect(again.error).toBeUndefined();
		// Nothing held again (this part holds)...
		expect(log.filter((e) => e.method === 'POST')).toEqual([]);
		const rows = again.items.map((item) => item.json as IDataObject);
		expect(rows.length).toBeGreaterThan(0);
		// ...but the workflow cannot tell: no row says it is a repeat.
		expect(rows.map((row) => (row.idempotency as IDataObject | undefined)?.repeated)).toEqual(
			rows.map(() => true),
		);
	});
});
