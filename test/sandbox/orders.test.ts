import { SandboxClient } from '../../harness/sandbox/client';
import { MINUTE } from '../../harness/time';
import { EVENT, orderHelpers, type Order, type Violation } from '../../harness/nodes/orderFixtures';

describe('sandbox orders: the order state machine', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start()));
	afterAll(() => sb.stop());
	const { hold, getOrder, setStatus, place, available, ms } = orderHelpers(() => sb);

	describe('creating and reading a hold', () => {
		it(
			'POST /orders answers 201 reserved_to_time with id, ' +
				'status, reservedToDate (now + 15 min) and totalPrice',
			async () => {
				const before = (await sb.admin<{ nowMs: number }>('POST', '/clock', {})).body.nowMs;
				const places = await sb.freePlaces(EVENT, 2);
				const res = await sb.send<Order>('POST', '/orders', {
					eventPoint: String(EVENT),
					places: places.ids,
					priceCategory: places.priceCategory,
				});
				expect(res.status).toBe(201);
				expect(res.body).toMatchObject({
					id: expect.any(Number),
					status: 'reserved_to_time',
					reservedToDate: expect.any(String),
					totalPrice: { amount: expect.any(Number), currency: 'EUR' },
				});
				const until = ms(res.body.reservedToDate);
				// isoTime drops milliseconds, hence the one-second slack below.
				expect(until).toBeGreaterThanOrEqual(before + 15 * MINUTE - 1000);
				expect(until).toBeLessThanOrEqual(before + 15 * MINUTE + 5000);
				expect(ms(res.body.reservedToDate) - ms(res.body.createdAt)).toBe(15 * MINUTE);

				const category = (await place(places.ids[0])).priceCategories.find(
					(c) => String(c.id) === places.priceCategory,
				)!;
				expect(res.body.totalPrice.amount).toBeCloseTo(category.price.amount * 2, 2);
				await setStatus(res.body.id, 'expired');
			},
		);

		it('reservedMinutes sets the hold length', async () => {
			const { order } = await hold(1, { reservedMinutes: 45 });
			expect(ms(order.reservedToDate) - ms(order.createdAt)).toBe(45 * MINUTE);
			await setStatus(order.id, 'expired');
		});

		it(
			'GET /orders/{id} before payment shows the tickets ' +
				'without barcodes and the held places as unavailable',
			async () => {
				const { order, places } = await hold(2);
				const res = await getOrder(order.id);
				expect(res.status).toBe(200);
				expect(res.body.status).toBe('reserved_to_time');
				expect(res.body.payAt).toBeNull();
				expect(res.body.tickets).toHaveLength(2);
				for (const ticket of res.body.tickets!) expect(ticket.barcode).toBeNull();
				expect(res.body.tickets!.map((t) => String(t.placeId)).sort()).toEqual(
					[...places.ids].sort(),
				);
				expect((await place(places.ids[0])).availableCount).toBe(0);
				await setStatus(order.id, 'expired');
			},
		);
	});

	describe('paid and refund', () => {
		it('paid: tickets get 13-digit barcodes and payAt is set; GET shows the same', async () => {
			const { order, places } = await hold(2);
			const paid = await setStatus(order.id, 'paid');
			expect(paid.status).toBe(200);
			expect(paid.body.status).toBe('paid');
			expect(paid.body.payAt).toEqual(expect.any(String));
			expect(Number.isNaN(ms(paid.body.payAt!))).toBe(false);
			expect(paid.body.tickets).toHaveLength(2);
			for (const ticket of paid.body.tickets!) {
				expect(ticket.barcode).toMatch(/^\d{13}$/);
				expect(ticket).toMatchObject({
					placeName: expect.any(String),
					sectorName: expect.any(String),
					rowName: expect.any(String),
					price: { amount: expect.any(Number), currency: 'EUR' },
				});
			}
			expect(new Set(paid.body.tickets!.map((t) => t.barcode)).size).toBe(2);

			const read = await getOrder(order.id);
			expect(read.body.status).toBe('paid');
			expect(read.body.tickets!.map((t) => t.barcode)).toEqual(
				paid.body.tickets!.map((t) => t.barcode),
			);
			expect((await place(places.ids[1])).availableCount).toBe(0);
		});

		it('refund on a paid order frees its places again', async () => {
			const start = await available();
			const { order, places } = await hold(1);
			expect(await available()).toBe(start - 1);
			expect((await setStatus(order.id, 'paid')).body.status).toBe('paid');
			expect((await place(places.ids[0])).availableCount).toBe(0);

			const refund = await setStatus(order.id, 'refund');
			expect(refund.status).toBe(200);
			expect(refund.body.status).toBe('refund');
			expect((await place(places.ids[0])).availableCount).toBe(1);
			expect(await available()).toBe(start);
			expect((await getOrder(order.id)).body.status).toBe('refund');
		});
	});

	describe('expiry', () => {
		it(
			'a hold expires when the sandbox clock passes reservedToDate: ' +
				'places free, count recovered, paying answers 409',
			async () => {
				const start = await available();
				const { order, places } = await hold(2);
				expect(await available()).toBe(start - 2);

				await sb.advanceClock(15 * MINUTE + 1000);

				const read = await getOrder(order.id);
				expect(read.status).toBe(200);
				expect(read.body.status).toBe('expired');
				for (const id of places.ids) expect((await place(id)).availableCount).toBe(1);
				expect(await available()).toBe(start);

				const pay = await setStatus(order.id, 'paid');
				expect(pay.status).toBe(409);
				expect((await getOrder(order.id)).body.status).toBe('expired');
			},
		);

		it('a hold with reservedMinutes 30 is still live after 16 minutes', async () => {
			const { order } = await hold(1, { reservedMinutes: 30 });
			await sb.advanceClock(16 * MINUTE);
			expect((await getOrder(order.id)).body.status).toBe('reserved_to_time');
			await setStatus(order.id, 'expired');
		});

		it('{toStatus: expired} releases a live hold at once', async () => {
			const start = await available();
			const { order, places } = await hold(1);
			const res = await setStatus(order.id, 'expired');
			expect(res.status).toBe(200);
			expect(res.body.status).toBe('expired');
			expect((await place(places.ids[0])).availableCount).toBe(1);
			expect(await available()).toBe(start);
		});
	});

	describe('invalid transitions and values', () => {
		it(
			'paid -> paid, paid -> expired, refund on a hold, ' +
				'expired -> paid and refund -> refund answer 409',
			async () => {
				const a = (await hold(1)).order;
				const refundOnHold = await setStatus(a.id, 'refund');
				expect(refundOnHold.status).toBe(409);
				expect((await getOrder(a.id)).body.status).toBe('reserved_to_time');

				await setStatus(a.id, 'paid');
				expect((await setStatus(a.id, 'paid')).status).toBe(409);
				expect((await setStatus(a.id, 'expired')).status).toBe(409);
				const still = await getOrder(a.id);
				expect(still.body.status).toBe('paid');

				await setStatus(a.id, 'refund');
				expect((await setStatus(a.id, 'refund')).status).toBe(409);

				const b = (await hold(1)).order;
				await setStatus(b.id, 'expired');
				expect((await setStatus(b.id, 'paid')).status).toBe(409);
				expect((await setStatus(b.id, 'expired')).status).toBe(409);
			},
		);

		it('an unknown toStatus answers 400 naming toStatus and changes nothing', async () => {
			const { order } = await hold(1);
			for (const body of [{ toStatus: 'cancelled' }, {}, { toStatus: '' }]) {
				const res = await sb.send('PUT', `/orders/${order.id}/status`, body);
				expect(res.status).toBe(400);
				expect((res.body.violations as Violation[]).map((v) => v.propertyPath)).toContain(
					'toStatus',
				);
			}
			expect((await getOrder(order.id)).body.status).toBe('reserved_to_time');
			await setStatus(order.id, 'expired');
		});

		it('GET /orders/{id} of an unknown order answers 404', async () => {
			expect((await getOrder(999999)).status).toBe(404);
		});
	});
});
