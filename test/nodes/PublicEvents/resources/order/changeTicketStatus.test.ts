import { orderNodeSuite } from '../../../../../harness/nodes/orderNode';

const { order, create, getOrder, setStatus, place } = orderNodeSuite();

describe('Order: statuses', () => {
	it('Change Ticket Status refunds one ticket; the order stays paid', async () => {
		const { order: created } = await create(2);
		const [first, second] = (await setStatus(created.id, 'paid')).body.tickets!;
		const { items, error } = await order('changeTicketStatus', {
			orderId: String(created.id),
			ticketId: String(first.ticketId),
			toStatus: 'refund',
		});
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('paid');
		const tickets = (await getOrder(created.id)).body.tickets!;
		expect(tickets.map((t) => [t.ticketId, t.status])).toEqual([
			[first.ticketId, 'refund'],
			[second.ticketId, 'sold'],
		]);
		expect((await place(first.placeId)).availableCount).toBe(1);
	});
});
