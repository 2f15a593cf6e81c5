import type { IDataObject } from 'n8n-workflow';

import { MINUTE, type Order } from '../helpers/orderFixtures';
import { byId, EVENT, json, orderNodeSuite } from '../helpers/orderNode';
import { mark, since } from '../helpers/publicEvents';

const { sb, order, create, getOrder, setStatus, place, ms, now } = orderNodeSuite();

describe('Order: create and read', () => {
	it('Create holds the places for the given minutes; places by ID list, one as an IRI', async () => {
		const free = await sb().freePlaces(EVENT, 2);
		const before = await mark(sb());
		const { items, error } = await order('create', {
			eventId: byId(`/api/v2/event-points/${EVENT}`),
			places: byId(`${free.ids[0]}, /api/v2/places/${free.ids[1]}`),
			priceCategory: free.priceCategory,
			reservedMinutes: 20,
		});
		expect(error).toBeUndefined();
		const created = items[0].json as unknown as Order;
		expect(created.status).toBe('reserved_to_time');
		expect(
			(await since(sb(), before))
				.filter((e) => e.method !== 'POST' || e.route !== '/token')
				.map((e) => `${e.method} ${e.route} ${e.status}`),
		).toEqual(['POST /orders 201']);
		const stored = (await getOrder(created.id)).body;
		expect(stored.tickets!.map((t) => String(t.placeId)).sort()).toEqual([...free.ids].sort());
		expect(ms(stored.reservedToDate) - ms(stored.createdAt)).toBe(20 * MINUTE);
		for (const id of free.ids) expect((await place(id)).availableCount).toBe(0);
		await setStatus(created.id, 'expired');
	});

	it('Create takes an array of places and the price category by expression, and a promo code', async () => {
		const free = await sb().freePlaces(EVENT, 2);
		const { items, error } = await order(
			'create',
			{
				eventId: byId(String(EVENT)),
				places: byId('={{ $json.placeIds }}'),
				priceCategory: '={{ $json.category }}',
				additionalFields: { promoCode: 'PARTNER10' },
			},
			{ inputItems: [{ placeIds: free.ids.map(Number), category: Number(free.priceCategory) }] },
		);
		expect(error).toBeUndefined();
		const stored = (await getOrder(Number(items[0].json.id))).body as Order & { promocode: string };
		expect(stored.tickets).toHaveLength(2);
		expect(stored.promocode).toBe('PARTNER10');
		const full = stored.tickets!.reduce((sum, t) => sum + t.price.amount, 0);
		expect(stored.totalDiscount.amount).toBeCloseTo(full * 0.1, 2);
		await setStatus(stored.id, 'expired');
	});

	it('Get returns the order; Split Tickets Into Items gives one item per ticket with order id, status and totals', async () => {
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
		expect(split.items[0].json.totalPrice).toEqual({ amount: expect.any(Number), currency: 'EUR' });
		await setStatus(created.id, 'expired');
	});

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

describe('Order: changing a hold', () => {
	it('Add Place adds a held ticket', async () => {
		const { order: created, free } = await create(1);
		const extra = (await sb().freePlaces(EVENT, 2)).ids.find((id) => !free.ids.includes(id))!;
		const { items, error } = await order('addPlace', {
			orderId: String(created.id),
			places: byId(extra),
			priceCategory: free.priceCategory,
		});
		expect(error).toBeUndefined();
		expect((items[0].json.tickets as IDataObject[]).map((t) => String(t.placeId))).toEqual([
			...free.ids,
			extra,
		]);
		expect((await place(extra)).availableCount).toBe(0);
		await setStatus(created.id, 'expired');
	});

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

	it('a hold ends by itself: moving the sandbox clock past it expires the order and frees the places', async () => {
		const { order: created, free } = await create(1, { reservedMinutes: 5 });
		await sb().advanceClock(4 * MINUTE);
		expect((await order('get', { orderId: String(created.id) })).items[0].json.status).toBe(
			'reserved_to_time',
		);
		await sb().advanceClock(2 * MINUTE);
		expect((await order('get', { orderId: String(created.id) })).items[0].json.status).toBe(
			'expired',
		);
		expect((await place(free.ids[0])).availableCount).toBe(1);
	});
});

describe('Order: statuses', () => {
	it('Change Status Paid answers the tickets with barcodes; split, one item per ticket', async () => {
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
	});

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

	it("Change Status Release Hold ends the hold at once and frees the account's reserved count", async () => {
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
	});

	it("Change Status takes any value by expression, and the service's refusal comes back as its message", async () => {
		const { order: created } = await create(1);
		const { error } = await order('changeStatus', {
			orderId: String(created.id),
			toStatus: '={{ "cancelled" }}',
		});
		expect(error?.message).toMatch(/toStatus: must be one of/);
		await setStatus(created.id, 'expired');
	});

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

describe('Order: Get Many for Event', () => {
	it('filters by status (several) and payAt[after], as the spec names them; Return All / Limit', async () => {
		const eventId = 1002;
		const paid = (await create(1, {}, eventId)).order;
		await setStatus(paid.id, 'paid');
		const held = (await create(1, {}, eventId)).order;
		const released = (await create(1, {}, eventId)).order;
		await setStatus(released.id, 'expired');
		const event = byId(String(eventId));

		const before = await mark(sb());
		const some = await order('getManyForEvent', {
			eventId: event,
			returnAll: true,
			filters: { status: ['paid', 'expired'] },
		});
		expect(some.error).toBeUndefined();
		expect(json(some).map((o) => o.id)).toEqual([paid.id, released.id]);
		const [request] = (await since(sb(), before)).filter(
			(e) => e.route === '/event-points/{id}/orders',
		);
		expect(new URLSearchParams(request.query).getAll('status[]')).toEqual(['paid', 'expired']);

		const paidOnly = await order('getManyForEvent', {
			eventId: event,
			returnAll: true,
			filters: { status: ['paid'] },
		});
		expect(json(paidOnly).map((o) => o.id)).toEqual([paid.id]);
		const [single] = (await since(sb(), before))
			.filter((e) => e.route === '/event-points/{id}/orders')
			.slice(1);
		expect(new URLSearchParams(single.query).getAll('status')).toEqual(['paid']);

		const all = await order('getManyForEvent', { eventId: event, returnAll: true });
		expect(json(all).map((o) => o.id)).toEqual([paid.id, held.id, released.id]);
		expect(json(all).every((o) => o.tickets === undefined)).toBe(true);
		const one = await order('getManyForEvent', { eventId: event, returnAll: false, limit: 1 });
		expect(json(one).map((o) => o.id)).toEqual([paid.id]);

		const paidAt = ms((await getOrder(paid.id)).body.payAt!);
		const after = await order('getManyForEvent', {
			eventId: event,
			returnAll: true,
			filters: { payAtAfter: new Date(paidAt - MINUTE).toISOString() },
		});
		expect(json(after).map((o) => o.id)).toEqual([paid.id]);
		const later = await order('getManyForEvent', {
			eventId: event,
			returnAll: true,
			filters: { payAtAfter: new Date(paidAt + MINUTE).toISOString() },
		});
		expect(json(later)).toEqual([]);
		const byDay = await order('getManyForEvent', {
			eventId: event,
			returnAll: true,
			filters: { payAtAfter: '2000-01-01', status: '={{ "paid,refund" }}' },
		});
		expect(json(byDay).map((o) => o.id)).toEqual([paid.id]);
		await setStatus(held.id, 'expired');
	});
});
