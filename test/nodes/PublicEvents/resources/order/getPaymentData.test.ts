import { orderNodeSuite } from '../../../../../harness/nodes/orderNode';

const { order, create, setStatus } = orderNodeSuite();

describe('Order: create and read', () => {
	it('Get Payment Data answers the provider form of a held order', async () => {
		const { order: created } = await create(1);
		const { items, error } = await order('getPaymentData', { orderId: String(created.id) });
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual(
			expect.objectContaining({
				type: expect.any(String),
				fields: expect.objectContaining({ orderId: String(created.id) }),
			}),
		);
		await setStatus(created.id, 'expired');
	});
});
