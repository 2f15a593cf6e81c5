import { SandboxClient } from '../../harness/sandbox/client';
import {
	EVENT,
	OTHER_EVENT,
	orderHelpers,
	type Order,
	type Violation,
} from '../../harness/nodes/orderFixtures';
import { MINUTE } from '../../harness/time';

describe('sandbox orders: changing holds, tickets, payment data, lists and promo codes', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start()));
	afterAll(() => sb.stop());
	const { hold, getOrder, setStatus, place, available, ms } = orderHelpers(() => sb);

	describe('changing a hold: reserve, add-place, remove', () => {
		it('PUT /orders/{id}/reserve {reservedMinutes: 30} extends reservedToDate', async () => {
			const { order } = await hold(1);
			const before = ms(order.reservedToDate);
			const res = await sb.send<Order>('PUT', `/orders/${order.id}/reserve`, {
				reservedMinutes: 30,
			});
			expect(res.status).toBe(200);
			expect(res.body.status).toBe('reserved_to_time');
			expect(ms(res.body.reservedToDate)).toBeGreaterThanOrEqual(before + 15 * MINUTE - 1000);
			expect(ms((await getOrder(order.id)).body.reservedToDate)).toBe(ms(res.body.reservedToDate));

			// The extension is real: past the original deadline the hold is still live.
			await sb.advanceClock(20 * MINUTE);
			expect((await getOrder(order.id)).body.status).toBe('reserved_to_time');
			await setStatus(order.id, 'expired');
		});

		it('add-place adds a ticket and raises totalPrice', async () => {
			const { order } = await hold(1);
			const extra = await sb.freePlace(EVENT);
			const category = (await place(extra.id)).priceCategories.find(
				(c) => String(c.id) === extra.priceCategory,
			)!;
			const res = await sb.send<Order>('PUT', `/orders/${order.id}/add-place`, {
				places: [extra.id],
				priceCategory: extra.priceCategory,
			});
			expect(res.status).toBe(200);
			expect(res.body.tickets).toHaveLength(2);
			expect(res.body.tickets!.map((t) => String(t.placeId))).toContain(extra.id);
			expect(res.body.totalPrice.amount).toBeCloseTo(
				order.totalPrice.amount + category.price.amount,
				2,
			);
			expect((await place(extra.id)).availableCount).toBe(0);
			await setStatus(order.id, 'expired');
		});

		it(
			'PUT /orders/{id}/tickets/{ticketId}/remove ' + 'drops the ticket and frees its place',
			async () => {
				const { order } = await hold(2);
				const full = (await getOrder(order.id)).body;
				const [gone, kept] = full.tickets!;
				const res = await sb.send<Order>(
					'PUT',
					`/orders/${order.id}/tickets/${gone.ticketId}/remove`,
				);
				expect(res.status).toBe(200);
				expect(res.body.tickets!.map((t) => t.ticketId)).toEqual([kept.ticketId]);
				expect(res.body.totalPrice.amount).toBeCloseTo(
					full.totalPrice.amount - gone.price.amount,
					2,
				);
				expect((await place(gone.placeId)).availableCount).toBe(1);
				expect((await place(kept.placeId)).availableCount).toBe(0);
				expect(
					(await sb.send('PUT', `/orders/${order.id}/tickets/${gone.ticketId}/remove`)).status,
				).toBe(404);
				await setStatus(order.id, 'expired');
			},
		);

		it(
			'reserve, add-place and remove answer 409 ' + 'once the order is paid, and change nothing',
			async () => {
				const { order } = await hold(1);
				const paid = (await setStatus(order.id, 'paid')).body;
				const extra = await sb.freePlace(EVENT);
				const reserve = await sb.send('PUT', `/orders/${order.id}/reserve`, {
					reservedMinutes: 30,
				});
				expect(reserve.status).toBe(409);
				const add = await sb.send('PUT', `/orders/${order.id}/add-place`, {
					places: [extra.id],
					priceCategory: extra.priceCategory,
				});
				expect(add.status).toBe(409);
				const remove = await sb.send(
					'PUT',
					`/orders/${order.id}/tickets/${paid.tickets![0].ticketId}/remove`,
				);
				expect(remove.status).toBe(409);

				const after = (await getOrder(order.id)).body;
				expect(after.status).toBe('paid');
				expect(after.tickets).toHaveLength(1);
				expect(after.reservedToDate).toBe(paid.reservedToDate);
				expect((await place(extra.id)).availableCount).toBe(1);
			},
		);
	});

	describe('ticket status', () => {
		it(
			'refunding one ticket keeps the order paid; ' + 'refunding the last one turns it to refund',
			async () => {
				const { order } = await hold(2);
				const paid = (await setStatus(order.id, 'paid')).body;
				const [first, second] = paid.tickets!;

				const one = await sb.send<Order>(
					'PUT',
					`/orders/${order.id}/tickets/${first.ticketId}/status`,
					{ toStatus: 'refund' },
				);
				expect(one.status).toBe(200);
				expect(one.body.status).toBe('paid');
				expect(one.body.tickets!.find((t) => t.ticketId === first.ticketId)!.status).toBe('refund');
				expect(one.body.tickets!.find((t) => t.ticketId === second.ticketId)!.status).toBe('sold');
				expect(one.body.totalPrice.amount).toBeCloseTo(
					paid.totalPrice.amount - first.discountPrice.amount,
					2,
				);
				expect((await place(first.placeId)).availableCount).toBe(1);
				expect((await place(second.placeId)).availableCount).toBe(0);

				const again = await sb.send('PUT', `/orders/${order.id}/tickets/${first.ticketId}/status`, {
					toStatus: 'refund',
				});
				expect(again.status).toBe(409);

				const last = await sb.send<Order>(
					'PUT',
					`/orders/${order.id}/tickets/${second.ticketId}/status`,
					{ toStatus: 'refund' },
				);
				expect(last.status).toBe(200);
				expect(last.body.status).toBe('refund');
				expect((await place(second.placeId)).availableCount).toBe(1);
			},
		);

		it('a ticket of a hold cannot be refunded (409), an unknown ticket status is 400', async () => {
			const { order } = await hold(1);
			const ticket = (await getOrder(order.id)).body.tickets![0];
			expect(
				(
					await sb.send('PUT', `/orders/${order.id}/tickets/${ticket.ticketId}/status`, {
						toStatus: 'refund',
					})
				).status,
			).toBe(409);
			const bad = await sb.send('PUT', `/orders/${order.id}/tickets/${ticket.ticketId}/status`, {
				toStatus: 'lost',
			});
			expect(bad.status).toBe(400);
			expect((bad.body.violations as Violation[]).map((v) => v.propertyPath)).toContain('toStatus');
			await setStatus(order.id, 'expired');
		});

		it(
			'refunding the rest of a partly refunded order ' +
				'leaves a place resold to another order alone',
			async () => {
				const { order } = await hold(2);
				const [first] = (await setStatus(order.id, 'paid')).body.tickets!;
				await sb.send('PUT', `/orders/${order.id}/tickets/${first.ticketId}/status`, {
					toStatus: 'refund',
				});

				// The freed place is held by a new order, then the first order is refunded whole.
				const category = (await place(first.placeId)).priceCategories[0];
				const other = await sb.send<Order>('POST', '/orders', {
					eventPoint: String(EVENT),
					places: [String(first.placeId)],
					priceCategory: String(category.id),
				});
				expect(other.status).toBe(201);
				expect((await setStatus(order.id, 'refund')).body.status).toBe('refund');

				expect((await place(first.placeId)).availableCount).toBe(0);
				const paidOther = await setStatus(other.body.id, 'paid');
				expect(paidOther.status).toBe(200);
				const exported = await sb.getAll<{ placeId: number; barcode: string }>(
					`/event-points/${EVENT}/barcodes`,
					{ as: 'organiser' },
				);
				expect(exported.find((r) => r.placeId === first.placeId)!.barcode).toBe(
					paidOther.body.tickets![0].barcode,
				);
			},
		);
	});

	describe('payment data', () => {
		it(
			'GET /orders/{id}/payment-data gives ' + '{type, fields} for a hold and 409 once paid',
			async () => {
				const { order } = await hold(1);
				const data = await sb.get(`/orders/${order.id}/payment-data`);
				expect(data.status).toBe(200);
				expect(data.body.type).toEqual(expect.any(String));
				expect(data.body.fields).toEqual(expect.any(Object));
				expect(Object.keys(data.body.fields as object).length).toBeGreaterThan(0);

				await setStatus(order.id, 'paid');
				const after = await sb.get(`/orders/${order.id}/payment-data`);
				expect(after.status).toBe(409);
			},
		);
	});

	describe('orders of an event', () => {
		it(
			'lists the company orders of the event without ' +
				'tickets, filtered by status and payAt[after]',
			async () => {
				const held = (await hold(1, {}, 'partner', OTHER_EVENT)).order;
				const paid = (await hold(1, {}, 'partner', OTHER_EVENT)).order;
				await setStatus(paid.id, 'paid');
				const refunded = (await hold(1, {}, 'partner', OTHER_EVENT)).order;
				await setStatus(refunded.id, 'paid');
				await setStatus(refunded.id, 'refund');
				const elsewhere = (await hold(1)).order;

				const path = `/event-points/${OTHER_EVENT}/orders`;
				const all = await sb.get<Order[]>(path, { query: { itemsPerPage: 100 } });
				expect(all.status).toBe(200);
				const ids = all.body.map((o) => o.id);
				expect(ids).toEqual(expect.arrayContaining([held.id, paid.id, refunded.id]));
				expect(ids).not.toContain(elsewhere.id);
				for (const o of all.body) expect(o).not.toHaveProperty('tickets');

				const onlyPaid = await sb.get<Order[]>(path, { query: { status: 'paid' } });
				expect(onlyPaid.status).toBe(200);
				expect(onlyPaid.body.map((o) => o.id)).toEqual([paid.id]);

				const two = await sb.get<Order[]>(path, { query: { 'status[]': ['paid', 'refund'] } });
				expect(two.status).toBe(200);
				expect(two.body.map((o) => o.id).sort()).toEqual([paid.id, refunded.id].sort());

				// payAt[after]: only orders paid at or after the given time.
				await sb.advanceClock(60 * MINUTE);
				const cut = (await sb.admin<{ now: string }>('POST', '/clock', {})).body.now;
				const late = (await hold(1, {}, 'partner', OTHER_EVENT)).order;
				await setStatus(late.id, 'paid');
				const after = await sb.get<Order[]>(path, { query: { 'payAt[after]': cut } });
				expect(after.status).toBe(200);
				expect(after.body.map((o) => o.id)).toEqual([late.id]);

				await setStatus(held.id, 'expired');
				await setStatus(elsewhere.id, 'expired');
			},
		);

		it("another company's order is 404 for GET and writes, and absent from its lists", async () => {
			const { order } = await hold(1, {}, 'organiser', OTHER_EVENT);
			expect((await getOrder(order.id, 'organiser')).status).toBe(200);

			expect((await getOrder(order.id, 'partner')).status).toBe(404);
			expect((await setStatus(order.id, 'paid', 'partner')).status).toBe(404);
			expect((await sb.get(`/orders/${order.id}/payment-data`)).status).toBe(404);
			const list = await sb.get<Order[]>(`/event-points/${OTHER_EVENT}/orders`, {
				query: { itemsPerPage: 100 },
			});
			expect(list.body.map((o) => o.id)).not.toContain(order.id);

			const own = await sb.get<Order[]>(`/event-points/${OTHER_EVENT}/orders`, {
				as: 'organiser',
				query: { itemsPerPage: 100 },
			});
			expect(own.body.map((o) => o.id)).toContain(order.id);
			expect((await getOrder(order.id, 'organiser')).body.status).toBe('reserved_to_time');
			await setStatus(order.id, 'expired', 'organiser');
		});
	});

	describe('promo codes', () => {
		it('PARTNER10 gives totalDiscount > 0 and a lower totalPrice', async () => {
			const plain = (await hold(2)).order;
			const { order } = await hold(2, { promocode: 'PARTNER10' });
			expect(order.totalDiscount.amount).toBeGreaterThan(0);
			const full = (await getOrder(order.id)).body;
			const listPrice = full.tickets!.reduce((sum, t) => sum + t.price.amount, 0);
			expect(full.totalPrice.amount).toBeLessThan(listPrice);
			expect(full.totalPrice.amount).toBeCloseTo(listPrice * 0.9, 1);
			expect(full.totalPrice.amount + full.totalDiscount.amount).toBeCloseTo(listPrice, 2);
			expect(plain.totalDiscount.amount).toBe(0);
			await setStatus(plain.id, 'expired');
			await setStatus(order.id, 'expired');
		});

		it.each([['NOPE99'], ['SUMMER5'], ['ORGANISER15']])(
			'promocode %s answers 400 naming promocode and holds nothing',
			async (code) => {
				const start = await available();
				const places = await sb.freePlaces(EVENT, 1);
				const res = await sb.send('POST', '/orders', {
					eventPoint: String(EVENT),
					places: places.ids,
					priceCategory: places.priceCategory,
					promocode: code,
				});
				expect(res.status).toBe(400);
				expect((res.body.violations as Violation[]).map((v) => v.propertyPath)).toContain(
					'promocode',
				);
				expect((await place(places.ids[0])).availableCount).toBe(1);
				expect(await available()).toBe(start);
			},
		);
	});
});
