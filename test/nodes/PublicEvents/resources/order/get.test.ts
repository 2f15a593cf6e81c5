import { json, orderNodeSuite } from '../../../../../harness/nodes/orderNode';

const { order, create, getOrder, setStatus } = orderNodeSuite();

describe('Order: create and read', () => {
	it(
		'Get returns the order; Split Tickets Into Items gives one ' +
			'item per ticket with order id, status and totals',
		async () => {
			const { order: created } = await create(2, { options: { splitTickets: true } });
			const whole = await order('get', { orderId: String(created.id) });
			expect(json(whole)).toEqual([(await getOrder(created.id)).body]);

			const split = await order('get', {
				orderId: `/api/v2/orders/${created.id}`,
				options: { splitTickets: true },
			});
			const stored = (await getOrder(created.id)).body;
			expect(json(split)).toEqual(
				stored.tickets!.map((ticket) => ({
					orderId: created.id,
					orderStatus: 'reserved_to_time',
					totalPrice: stored.totalPrice,
					totalDiscount: stored.totalDiscount,
					reservedToDate: stored.reservedToDate,
					...ticket,
				})),
			);
			expect(split.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
			expect(split.items[0].json.totalPrice).toEqual({
				amount: expect.any(Number),
				currency: 'EUR',
			});
			await setStatus(created.id, 'expired');
		},
	);
});
