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

	it('Leave Out Barcodes: a paid order without barcodes, whole or split', async () => {
		const { order: created } = await create(2);
		await setStatus(created.id, 'paid');
		const stored = (await getOrder(created.id)).body;
		expect(JSON.stringify(stored)).toMatch(/"barcode"/);
		const whole = await order('get', {
			orderId: String(created.id),
			options: { withoutBarcodes: true },
		});
		const text = JSON.stringify(json(whole));
		expect(text).not.toMatch(/barcode/i);
		for (const ticket of stored.tickets!)
			if (ticket.barcode) expect(text).not.toContain(String(ticket.barcode));
		expect(json(whole)[0]).toMatchObject({
			id: created.id,
			status: 'paid',
			totalPrice: stored.totalPrice,
		});
		const split = await order('get', {
			orderId: String(created.id),
			options: { withoutBarcodes: true, splitTickets: true },
		});
		expect(split.items).toHaveLength(stored.tickets!.length);
		expect(JSON.stringify(json(split))).not.toMatch(/barcode/i);
	});
});
