import type { IDataObject } from 'n8n-workflow';

import { orderNodeSuite } from '../../../../../harness/nodes/orderNode';

const { order, create, getOrder, setStatus, place } = orderNodeSuite();

describe('Order: changing a hold', () => {
	it('Remove Ticket drops the ticket and frees its place', async () => {
		const { order: created } = await create(2);
		const [gone, kept] = (await getOrder(created.id)).body.tickets!;
		const { items, error } = await order('removeTicket', {
			orderId: String(created.id),
			ticketId: String(gone.ticketId),
		});
		expect(error).toBeUndefined();
		expect((items[0].json.tickets as IDataObject[]).map((t) => t.ticketId)).toEqual([
			kept.ticketId,
		]);
		expect((await place(gone.placeId)).availableCount).toBe(1);
		await setStatus(created.id, 'expired');
	});
});
