import { orderNodeSuite, json } from '../../../../../harness/nodes/orderNode';
import { faultedWrites, sent } from '../../../../../harness/nodes/orderWrites';

const suite = orderNodeSuite();
const { sb, order, create, getOrder, setStatus, place } = suite;
const { runWith, held } = faultedWrites(suite);

describe('Order: statuses', () => {
	it(
		'Change Status Paid answers the tickets with barcodes; split, ' + 'one item per ticket',
		async () => {
			const { order: created } = await create(2);
			const { items, error } = await order('changeStatus', {
				orderId: String(created.id),
				toStatus: 'paid',
				options: { splitTickets: true },
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(2);
			for (const item of items) {
				expect(item.json).toEqual(
					expect.objectContaining({
						orderId: created.id,
						orderStatus: 'paid',
						barcode: expect.stringMatching(/^\d{13}$/),
					}),
				);
			}
			expect((await getOrder(created.id)).body.status).toBe('paid');
		},
	);

	it('Change Status Refund refunds a paid order and frees its places', async () => {
		const { order: created, free } = await create(1);
		await setStatus(created.id, 'paid');
		const { items, error } = await order('changeStatus', {
			orderId: String(created.id),
			toStatus: 'refund',
		});
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('refund');
		expect((await place(free.ids[0])).availableCount).toBe(1);
	});

	it(
		'Change Status Release Hold ends the hold at once and frees ' + "the account's reserved count",
		async () => {
			const held = () => sb().app.store.heldTickets(2);
			const start = held();
			const { order: created, free } = await create(2);
			expect(held()).toBe(start + 2);
			const { items, error } = await order('changeStatus', {
				orderId: String(created.id),
				toStatus: 'expired',
			});
			expect(error).toBeUndefined();
			expect(items[0].json.status).toBe('expired');
			expect(held()).toBe(start);
			for (const id of free.ids) expect((await place(id)).availableCount).toBe(1);
		},
	);

	it(
		'Change Status takes any value by expression, and the ' +
			"service's refusal comes back as its message",
		async () => {
			const { order: created } = await create(1);
			const { error } = await order('changeStatus', {
				orderId: String(created.id),
				toStatus: '={{ "cancelled" }}',
			});
			expect(error?.message).toMatch(/toStatus: must be one of/);
			await setStatus(created.id, 'expired');
		},
	);
});

describe(
	'Change Status Paid, answer lost after paying: one payment, ' + 'Split Tickets still works',
	() => {
		it('one item per ticket, each with its barcode and the write check', async () => {
			const { id } = await held(2);
			const { items, error, log } = await runWith(
				{ kind: 'drop', phase: 'after', method: 'PUT', path: '/orders/{id}/status' },
				'changeStatus',
				{
					orderId: String(id),
					toStatus: 'paid',
					options: { splitTickets: true },
				},
			);
			expect(error).toBeUndefined();
			expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(1);
			const stored = (await getOrder(id)).body;
			expect(json({ items })).toEqual(
				stored.tickets!.map((ticket) =>
					expect.objectContaining({
						orderId: id,
						orderStatus: 'paid',
						barcode: ticket.barcode,
						writeCheck: expect.objectContaining({ outcome: 'applied' }),
					}),
				),
			);
		});
	},
);
