import type { IDataObject } from 'n8n-workflow';

import type { Order } from '../../../../../harness/nodes/orderFixtures';
import { MINUTE } from '../../../../../harness/time';
import { byId, EVENT, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { arrived, faultedWrites, readBacks, sent } from '../../../../../harness/nodes/orderWrites';
import { mark, since } from '../../../../../harness/nodes/publicEvents';
import { LATE } from '../../../../../nodes/PublicEvents/resources/order/writeCheck';

const suite = orderNodeSuite();
const { sb, order, create, getOrder, setStatus, place, ms } = suite;
const { eventId, fault, runWith, held, release } = faultedWrites(suite);

describe('Order: create and read', () => {
	it(
		'Create holds the places for the given minutes; places by ID ' + 'list, one as an IRI',
		async () => {
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
			// The answer has no tickets: the order it names is read once to see it holds these places.
			expect(
				(await since(sb(), before))
					.filter((e) => e.method !== 'POST' || e.route !== '/token')
					.map((e) => `${e.method} ${e.route} ${e.status}`),
			).toEqual(['POST /orders 201', 'GET /orders/{id} 200']);
			const stored = (await getOrder(created.id)).body;
			expect(stored.tickets!.map((t) => String(t.placeId)).sort()).toEqual([...free.ids].sort());
			expect(ms(stored.reservedToDate) - ms(stored.createdAt)).toBe(20 * MINUTE);
			for (const id of free.ids) expect((await place(id)).availableCount).toBe(0);
			await setStatus(created.id, 'expired');
		},
	);

	it(
		'Create takes an array of places and the price category by ' + 'expression, and a promo code',
		async () => {
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
			const stored = (await getOrder(Number(items[0].json.id))).body as Order & {
				promocode: string;
			};
			expect(stored.tickets).toHaveLength(2);
			expect(stored.promocode).toBe('PARTNER10');
			const full = stored.tickets!.reduce((sum, t) => sum + t.price.amount, 0);
			expect(stored.totalDiscount.amount).toBeCloseTo(full * 0.1, 2);
			await setStatus(stored.id, 'expired');
		},
	);
});

describe('Order: changing a hold', () => {
	it(
		'a hold ends by itself: moving the sandbox clock past it ' +
			'expires the order and frees the places',
		async () => {
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
		},
	);
});

describe('Create, answer lost: one order at most, never taken on trust', () => {
	const orderCount = () => sb().app.store.orders.size;
	const liveOrders = async () =>
		(
			await sb().getAll<Order>(`/event-points/${eventId()}/orders`, {
				query: { status: 'reserved_to_time' },
			})
		).map((o) => o.id);

	async function createWith(rule: IDataObject, options: IDataObject = {}) {
		// Another live order of the account on the event: the search must not take it for the new one.
		const other = await held(1);
		const free = await sb().freePlaces(eventId(), 2);
		const count = orderCount();
		const result = await runWith(rule, 'create', {
			eventId: byId(String(eventId())),
			places: byId(free.ids.join(',')),
			priceCategory: free.priceCategory,
			options,
		});
		return { ...result, other, free, created: orderCount() - count };
	}

	it(
		'created, then the connection dropped: one order, named as maybe this one, not taken ' +
			'(nothing ties it to this request)',
		async () => {
			const { items, error, log, other, free, created } = await createWith({
				kind: 'drop',
				phase: 'after',
				method: 'POST',
				path: '/orders',
			});
			expect(items).toEqual([]);
			expect(created).toBe(1);
			expect(sent(log, 'POST', '/orders')).toBe(1);
			const id = Math.max(...(await liveOrders()));
			expect(id).not.toBe(other.id);
			expect(error?.message).toBe(
				`Uncertain: creating an order on event ${eventId()} may or may not have been ` +
					`applied: the connection dropped before the answer arrived, and live orders of ` +
					`your account hold places ${free.ids.join(', ')}: order ${id} (places ` +
					`${free.ids.join(', ')}). Nothing the service answered ties it to this request: ` +
					`it may be another buyer's on the same key, so the node did not take it as this ` +
					`one. It was not sent again. ${checkFirst()}`,
			);
			// The other live order was looked at and left alone.
			expect((await getOrder(other.id)).body.status).toBe('reserved_to_time');
			await release(id);
			await release(other.id);
		},
	);

	const searched = (places: string[]) =>
		`the node searched the live orders of event ${eventId()}: none holds places ` +
		`${places.join(', ')}, and the hall plan shows them free`;
	const checkFirst = () =>
		`Check the orders of event ${eventId()} (Order > Get Many for Event, status Held) before ` +
		`running this again: a hold left behind counts against your reserved-tickets limit until ` +
		`it ends.`;

	it(
		'a 5xx from the API before it was applied: no order, a clear ' +
			'error saying running again is safe; sent once',
		async () => {
			const { items, error, log, other, created, free } = await createWith({
				kind: 'status',
				status: 503,
				method: 'POST',
				path: '/orders',
			});
			expect(items).toEqual([]);
			expect(created).toBe(0);
			expect(sent(log, 'POST', '/orders')).toBe(1);
			expect(error?.message).toBe(
				`Creating an order on event ${eventId()} was NOT applied: the service answered 503 (a ` +
					`server error) instead of the result, so ${searched(free.ids)}. ` +
					'It is safe to run it again.',
			);
			expect((error as { context?: IDataObject }).context?.writeCheck).toMatchObject({
				outcome: 'notApplied',
			});
			// The other live order was looked at and left alone.
			expect(readBacks(log)).toBeGreaterThanOrEqual(1);
			expect((await getOrder(other.id)).body.status).toBe('reserved_to_time');
			await release(other.id);
		},
	);

	it.each([
		[
			'dropped before it was applied',
			{ kind: 'drop', phase: 'before' },
			'the connection dropped before the answer arrived',
			{},
			0,
		],
		[
			"a gateway's 502",
			{ kind: 'status', status: 502 },
			'the service answered 502 (a server error) instead of the result',
			{},
			0,
		],
		[
			'no answer within the Timeout, created late',
			{ kind: 'latency', delayMs: 2000 },
			'no answer came within the Timeout (1 s)',
			{ timeout: 1 },
			1,
		],
	])(
		'%s, no wait to confirm: no order when checked, the orders to check named; sent once, ' +
			'one order at most',
		async (_, rule, cause, options, late) => {
			const { items, error, log, other, created, free } = await createWith(
				{ ...rule, method: 'POST', path: '/orders' },
				{ ...options, confirmWaitSeconds: 0 },
			);
			expect(items).toEqual([]);
			expect(created).toBe(0);
			expect(error?.message).toBe(
				`Uncertain: creating an order on event ${eventId()} was not applied when the node ` +
					`checked: ${cause}, and ${searched(free.ids)}. ${LATE} ${checkFirst()}`,
			);
			await sb().app.idle();
			expect(sent(log, 'POST', '/orders')).toBe(1);
			const held = (await liveOrders()).filter((id) => id !== other.id);
			expect(held).toHaveLength(late);
			// Created late: its places are held, so running Create again is refused, not sold twice.
			if (late)
				expect(
					(
						await sb().send('POST', '/orders', {
							eventPoint: String(eventId()),
							places: free.ids,
							priceCategory: free.priceCategory,
						})
					).status,
				).toBe(409);
			for (const id of [...held, other.id]) await release(id);
		},
	);

	it(
		'no answer within the Timeout, created late: read back until the order shows, which is ' +
			'named, not taken; sent once',
		async () => {
			const { items, error, log, other, created } = await createWith(
				{ kind: 'latency', delayMs: 2000, method: 'POST', path: '/orders' },
				{ timeout: 1 },
			);
			expect(items).toEqual([]);
			expect(created).toBe(1);
			const id = Math.max(...(await liveOrders()));
			expect(error?.message).toMatch(
				new RegExp(
					`^Uncertain: creating an order on event ${eventId()} may or may not have been ` +
						`applied: no answer came within the Timeout \\(1 s\\), and live orders of your ` +
						`account hold places .*: order ${id} \\(places .*\\)\\. Nothing the service ` +
						`answered ties it to this request`,
				),
			);
			expect(sent(log, 'POST', '/orders')).toBe(1);
			await release(id);
			await release(other.id);
		},
	);

	it(
		"another buyer on the same key holds the places and this request's 409 is lost: that " +
			'order is named, never handed to this buyer; sent once',
		async () => {
			const free = await sb().freePlaces(eventId(), 2);
			// This request is held up at the service while buyer B, same key, takes the places.
			await fault({ kind: 'latency', delayMs: 1500, method: 'POST', path: '/orders' });
			const before = await mark(sb());
			const running = order('create', {
				eventId: byId(String(eventId())),
				places: byId(free.ids.join(',')),
				priceCategory: free.priceCategory,
				options: { timeout: 1, confirmWaitSeconds: 1 },
			});
			await arrived(sb(), before, 'POST', '/orders');
			const b = await sb().send<Order>('POST', '/orders', {
				eventPoint: String(eventId()),
				places: free.ids,
				priceCategory: free.priceCategory,
			});
			expect(b.status).toBe(201);
			const { items, error } = await running;
			await sb().app.idle();
			expect(items).toEqual([]);
			expect(error?.message).toMatch(/^Uncertain: creating an order on event \d+ may or may not/);
			expect(error?.message).toContain(`order ${b.body.id} (places ${free.ids.join(', ')})`);
			expect(error?.message).toContain("it may be another buyer's on the same key");
			// The service refused this request (a 409 nobody heard): B's order stays B's alone.
			const posts = (await since(sb(), before)).filter(
				(e) => e.method === 'POST' && e.route === '/orders',
			);
			expect(posts).toHaveLength(2);
			const holding = [...sb().app.store.orders.values()].filter(
				(o) =>
					o.status === 'reserved_to_time' &&
					o.tickets.some((t) => free.ids.includes(String(t.placeId))),
			);
			expect(holding.map((o) => o.id)).toEqual([b.body.id]);
			expect(JSON.stringify(items)).not.toContain(String(b.body.id));
			await release(b.body.id);
		},
	);

	it(
		"the search fails too: outcome unknown, the event's orders " +
			'named to check; one order, not two',
		async () => {
			await fault({
				kind: 'status',
				status: 503,
				method: 'GET',
				path: '/event-points/{id}/orders',
				count: 0,
			});
			const { error, log, created } = await createWith(
				{ kind: 'drop', phase: 'after', method: 'POST', path: '/orders' },
				{ maxRetries: 0, confirmWaitSeconds: 1 },
			);
			expect(created).toBe(1);
			expect(sent(log, 'POST', '/orders')).toBe(1);
			expect(error?.message).toMatch(
				new RegExp(
					'^Uncertain: creating an order on event \\d+ may or may not ha' +
						've been applied: the connection dropped before the answer ar' +
						'rived, and reading it back failed too',
				),
			);
			expect(error?.message).toContain(
				`Check the orders of event ${eventId()} (Order > Get ` +
					`Many for Event, status Held) before running this again`,
			);
			await sb().admin('DELETE', '/faults');
			for (const id of await liveOrders()) await release(id);
		},
	);
});
