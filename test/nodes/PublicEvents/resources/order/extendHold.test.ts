import { MINUTE } from '../../../../../harness/time';
import { orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { hostileWrites, sent } from '../../../../../harness/nodes/orderWrites';

const suite = orderNodeSuite();
const { sb, order, create, getOrder, setStatus, ms, now } = suite;
const { runWith, release } = hostileWrites(suite);

describe('Order: changing a hold', () => {
	it('Extend Hold moves the deadline: past the old one the hold is still live', async () => {
		const { order: created } = await create(1);
		const before = await now();
		const { items, error } = await order('extendHold', {
			orderId: String(created.id),
			reservedMinutes: 45,
		});
		const after = await now();
		expect(error).toBeUndefined();
		// The service counts from its own now; timestamps carry whole seconds.
		const deadline = ms(String(items[0].json.reservedToDate));
		expect(deadline).toBeGreaterThanOrEqual(before + 45 * MINUTE - 1000);
		expect(deadline).toBeLessThanOrEqual(after + 45 * MINUTE);
		expect(ms((await getOrder(created.id)).body.reservedToDate)).toBe(deadline);
		await sb().advanceClock(30 * MINUTE);
		expect((await getOrder(created.id)).body.status).toBe('reserved_to_time');
		await setStatus(created.id, 'expired');
	});
});

describe('a read-back that proves nothing is not taken as proof', () => {
	it(
		"found by fast-check: Extend Hold's first read answered with " +
			'something other than the order: not sent at all',
		async () => {
			const { order: held } = await create(1);
			const { error, log } = await runWith(
				'extendHold',
				{ orderId: String(held.id), reservedMinutes: 45 },
				{
					faults: [
						{
							kind: 'status',
							status: 200,
							method: 'GET',
							path: '/orders/{id}',
							body: { message: 'maintenance' },
						},
						{ kind: 'status', status: 502, method: 'PUT', path: '/orders/{id}/reserve' },
					],
				},
			);
			expect(error?.message).toMatch(
				new RegExp(
					`^Not sent: extending the hold of order ${held.id} was NOT ` +
						`applied, since reading the state first failed\\. GET /orders/` +
						`${held.id} answered something other than order ${held.id}`,
				),
			);
			expect(sent(log, 'PUT', '/orders/{id}/reserve')).toBe(0);
			expect((await getOrder(held.id)).body.reservedToDate).toBe(held.reservedToDate);
			await release(held.id);
		},
	);
});
