/**
 * Invariant: a write's answer is never taken on trust. Whatever a service, or what sits in front of
 * it, answers to Report Payment (Change Status to paid) or to Create, with order IDs that fit a
 * JavaScript number or not (64-bit), and however late its reads show the change:
 * 1. the write is sent once;
 * 2. the node hands on an order only when the service applied the write, and only the order it
 *    wrote: Report Payment's has the ID asked and its own tickets, never those of the order an
 *    answer named instead; Create's is the order this request made, by its exact ID, never the
 *    one another buyer on the same key holds;
 * 3. "Refused: … NOT applied" and "… NOT applied … safe to run it again" only when the service
 *    never applies it;
 * 4. anything else is "Uncertain:" and names the order or places to check.
 * Answers generated: the order as it stands, another order, the order unchanged, 202/204 with no
 * body, a JSON body naming no order (`{"success": false}` while another buyer holds the places), a
 * 409 to a repeat of an applied payment (a proxy resending an idempotent PUT) or to a hold that
 * ended, a connection reset before or after the service acted. Cases run through n8n-core against
 * a stand-in service (harness/net/stubApi.ts): the sandbox gives none of these answers.
 */
import type { ServerResponse } from 'node:http';

import fc from 'fast-check';

import { answer, answerEmpty, answerText, StubApi } from '../../harness/net/stubApi';
import { byId, runPublicEvents } from '../../harness/nodes/publicEvents';
import { checkProperty } from '../../harness/props/property';

type PayAnswer = 'order' | 'other' | 'unchanged' | 'empty' | 'noId' | 'conflict' | 'reset';
type CreateAnswer = 'created' | 'createdEmpty' | 'noId' | 'empty' | 'conflict' | 'reset';

interface PayCase {
	op: 'pay';
	/** The service applies the payment (a 409 to a repeat: it applied the first). */
	applies: boolean;
	answer: PayAnswer;
	/** 202 or 204, for an empty answer. */
	emptyStatus: 202 | 204;
	/** Reads show the change this long after the write arrived (a replica, a worker). */
	visibleAfterMs: number;
	bigIds: boolean;
}

interface CreateCase {
	op: 'create';
	/**
	 * Create with the places given, or Hold Best Available, which reads the hall plan first: the
	 * rival's hold then lands between that read and the POST.
	 */
	via: 'create' | 'holdBestAvailable';
	/** Another buyer on the same key holds these very places first. */
	rival: boolean;
	/** The service makes this request's order (never while the rival holds the places). */
	creates: boolean;
	answer: CreateAnswer;
	emptyStatus: 202 | 204;
	visibleAfterMs: number;
	bigIds: boolean;
}

type Case = PayCase | CreateCase;

const CONFIRM_S = 1;
const lag = fc.constantFrom(0, 0, 400, 4000);
const cases: fc.Arbitrary<Case> = fc.oneof(
	fc.record({
		op: fc.constant('pay' as const),
		applies: fc.boolean(),
		answer: fc.constantFrom<PayAnswer>(
			'order',
			'other',
			'unchanged',
			'empty',
			'noId',
			'conflict',
			'reset',
		),
		emptyStatus: fc.constantFrom(202 as const, 204 as const),
		visibleAfterMs: lag,
		bigIds: fc.boolean(),
	}),
	fc
		.record({
			op: fc.constant('create' as const),
			via: fc.constantFrom('create' as const, 'holdBestAvailable' as const),
			rival: fc.boolean(),
			creates: fc.boolean(),
			answer: fc.constantFrom<CreateAnswer>(
				'created',
				'createdEmpty',
				'noId',
				'empty',
				'conflict',
				'reset',
			),
			emptyStatus: fc.constantFrom(202 as const, 204 as const),
			visibleAfterMs: lag,
			bigIds: fc.boolean(),
		})
		// Places another order holds are not held again; a 409 made nothing; a 201 with the new
		// order's ID made it.
		.map((c) => {
			const made = c.answer === 'created' || c.answer === 'createdEmpty';
			const creates = !c.rival && (made || (c.creates && c.answer !== 'conflict'));
			return { ...c, creates, answer: c.rival && made ? 'noId' : c.answer };
		}),
);

interface StubOrder {
	id: string;
	status: string;
	places: string[];
	barcode: string;
	/** When (epoch ms) reads show it as it is now. */
	visibleAt: number;
	/** What reads show until then. */
	before?: string;
}

const PLACES = ['5001', '5002'];
const EVENT = '1001';

/** An order as the service writes it: IDs as numbers, 64-bit ones too, exactly. */
const orderText = (order: StubOrder, status = order.status) =>
	`{"id":${order.id},"status":"${status}","reservedToDate":"2026-12-01T10:15:00+00:00",` +
	`"totalPrice":{"amount":90,"currency":"EUR"},"tickets":[${
		status === 'paid'
			? order.places
					.map(
						(place, i) => `{"ticketId":${i + 1},"placeId":${place},"barcode":"${order.barcode}"}`,
					)
					.join(',')
			: order.places.map((place) => `{"placeId":${place}}`).join(',')
	}]}`;

const stub = { api: undefined as unknown as StubApi };
beforeAll(async () => {
	stub.api = await StubApi.start();
});
afterAll(async () => await stub.api.stop());

const reset = (res: ServerResponse) => res.socket?.destroy();

/** The status reads show now. */
const shown = (order: StubOrder) =>
	Date.now() >= order.visibleAt ? order.status : (order.before ?? order.status);

function serveOrders(orders: Map<string, StubOrder>) {
	const { api } = stub;
	api.on('GET /orders/{id}', (res, { path }) => {
		const order = orders.get(path.split('/')[2]);
		if (!order || shown(order) === 'none') return answer(res, 404, { message: 'Not found' });
		answerText(res, 200, orderText(order, shown(order)));
	});
	api.on(`GET /event-points/${EVENT}/orders`, (res) => {
		const live = [...orders.values()].filter((o) => shown(o) === 'reserved_to_time');
		answerText(
			res,
			200,
			`[${live.map((o) => `{"id":${o.id},"status":"reserved_to_time"}`).join(',')}]`,
		);
	});
	api.on(`GET /event-points/${EVENT}/places`, (res) => {
		const held = new Set(
			[...orders.values()]
				.filter((o) => ['reserved_to_time', 'paid'].includes(shown(o)))
				.flatMap((o) => o.places),
		);
		answer(
			res,
			200,
			PLACES.map((id) => ({
				id: Number(id),
				sectorName: 'Parterre',
				rowName: '1',
				placeName: id.slice(-1),
				availableCount: held.has(id) ? 0 : 1,
				priceCategories: [{ id: 3001, price: { amount: 45, currency: 'EUR' } }],
			})),
		);
	});
}

type Said = 'applied' | 'notApplied' | 'uncertain';

function said({ error }: { error?: Error }): Said {
	if (!error) return 'applied';
	if (
		/^Refused: .+ was NOT applied|^[A-Z].+ was NOT applied: .+ safe to run it again/.test(
			error.message,
		)
	)
		return 'notApplied';
	if (/^Uncertain: .+ Check (order|the orders of event) /.test(error.message)) return 'uncertain';
	throw new Error(`the message names no outcome: ${error.message}`);
}

async function pay(c: PayCase) {
	const { api } = stub;
	const mine: StubOrder = {
		id: c.bigIds ? '9007199254740993' : '700001',
		status: c.answer === 'conflict' && !c.applies ? 'expired' : 'reserved_to_time',
		places: PLACES,
		barcode: 'MINE',
		visibleAt: 0,
	};
	const other: StubOrder = {
		id: c.bigIds ? '9007199254740992' : '700002',
		status: 'paid',
		places: ['5009'],
		barcode: 'ANOTHER-BUYERS',
		visibleAt: 0,
	};
	serveOrders(new Map([mine, other].map((o) => [o.id, o])));
	api.on(`PUT /orders/${mine.id}/status`, (res) => {
		if (c.applies) {
			mine.before = mine.status;
			mine.status = 'paid';
			// A 409 to a repeat: the first delivery applied it, and reads show it.
			mine.visibleAt = Date.now() + (c.answer === 'conflict' ? 0 : c.visibleAfterMs);
		}
		const from = mine.before ?? mine.status;
		if (c.answer === 'order') return answerText(res, 200, orderText(mine, shown(mine)));
		if (c.answer === 'other') return answerText(res, 200, orderText(other));
		if (c.answer === 'unchanged')
			return answerText(res, 200, orderText(mine, from === 'paid' ? 'reserved_to_time' : from));
		if (c.answer === 'empty') return answerEmpty(res, c.emptyStatus);
		if (c.answer === 'noId') return answer(res, 200, { success: c.applies });
		if (c.answer === 'conflict')
			return answer(res, 409, {
				message: `Order ${mine.id} cannot go from ${mine.status} to paid`,
			});
		reset(res);
	});
	const result = await runPublicEvents(api.store(), {
		resource: 'order',
		operation: 'changeStatus',
		orderId: mine.id,
		toStatus: 'paid',
		options: { confirmWaitSeconds: CONFIRM_S },
	});
	const outcome = said(result);
	const context = {
		case: c,
		outcome,
		message: result.error?.message,
		output: result.items[0]?.json,
	};
	expect({ ...context, puts: api.sent('PUT', `/orders/${mine.id}/status`) }).toEqual({
		...context,
		puts: 1,
	});
	if (outcome === 'applied') {
		const order = result.items[0].json;
		const barcodes = (order.tickets as Array<{ barcode?: string }>).map((t) => t.barcode);
		expect({ ...context, applies: c.applies, id: String(order.id), barcodes }).toEqual({
			...context,
			applies: true,
			id: mine.id,
			barcodes: ['MINE', 'MINE'],
		});
	}
	if (outcome === 'notApplied')
		expect({ ...context, applies: c.applies }).toEqual({ ...context, applies: false });
	if (outcome === 'uncertain') expect(result.error!.message).toContain(`order ${mine.id}`);
}

async function create(c: CreateCase) {
	const { api } = stub;
	const orders = new Map<string, StubOrder>();
	const mineId = c.bigIds ? '9007199254740993' : '700002';
	const rivalId = c.bigIds ? '9007199254740992' : '700001';
	// Another buyer's live order, the ID before this one: on these very places (the rival), or on
	// others.
	const rival: StubOrder = {
		id: rivalId,
		status: 'reserved_to_time',
		places: c.rival ? PLACES : ['5009'],
		barcode: 'B',
		before: 'none',
		visibleAt: c.rival && c.via === 'holdBestAvailable' ? Infinity : 0,
	};
	orders.set(rivalId, rival);
	serveOrders(orders);
	api.on('POST /orders', (res) => {
		rival.visibleAt = Math.min(rival.visibleAt, Date.now());
		if (c.creates)
			orders.set(mineId, {
				id: mineId,
				status: 'reserved_to_time',
				places: PLACES,
				barcode: 'A',
				before: 'none',
				visibleAt: Date.now() + c.visibleAfterMs,
			});
		if (c.answer === 'created')
			return answerText(
				res,
				201,
				`{"id":${mineId},"status":"reserved_to_time","totalPrice":{"amount":90,"currency":"EUR"}}`,
			);
		if (c.answer === 'noId')
			return answer(res, 200, { success: false, message: 'Place 5001 is already reserved' });
		if (c.answer === 'createdEmpty') return answerEmpty(res, 201);
		if (c.answer === 'empty') return answerEmpty(res, c.emptyStatus);
		if (c.answer === 'conflict') return answer(res, 409, { message: 'Place 5001 is held or sold' });
		reset(res);
	});
	const options = { confirmWaitSeconds: CONFIRM_S };
	const result = await runPublicEvents(
		api.store(),
		c.via === 'create'
			? {
					resource: 'order',
					operation: 'create',
					eventId: byId(EVENT),
					places: byId(PLACES.join(',')),
					priceCategory: '3001',
					options,
				}
			: {
					resource: 'order',
					operation: 'holdBestAvailable',
					eventId: byId(EVENT),
					quantity: PLACES.length,
					// A 409 fails at once: picking again reads a plan with nothing left.
					options: { ...options, conflictRetries: 0 },
				},
	);
	const outcome = said(result);
	const context = {
		case: c,
		outcome,
		message: result.error?.message,
		output: result.items[0]?.json,
	};
	expect({ ...context, posts: api.sent('POST', '/orders') }).toEqual({ ...context, posts: 1 });
	if (outcome === 'applied')
		expect({ ...context, creates: c.creates, id: String(result.items[0].json.id) }).toEqual({
			...context,
			creates: true,
			id: mineId,
		});
	if (outcome === 'notApplied')
		expect({ ...context, creates: c.creates }).toEqual({ ...context, creates: false });
	if (outcome === 'uncertain')
		expect(result.error!.message).toMatch(/Check the orders of event 1001/);
}

async function run(c: Case): Promise<void> {
	stub.api.reset();
	await (c.op === 'pay' ? pay(c) : create(c));
}

/**
 * The outside review's cases (each failed before the node checked answers), kept as they were
 * found: Report Payment answered with another buyer's order, or 200 with the order still held; a
 * 409 "paid to paid" to a resent payment that had landed; 202/204 with the change shown a moment
 * later (Report Payment and Create); `200 {"success": false}` while another buyer holds exactly
 * the places; a 201 naming a 64-bit order.
 */
const REVIEWED: Case[] = [
	{ op: 'pay', applies: true, answer: 'other', emptyStatus: 204, visibleAfterMs: 0, bigIds: false },
	{
		op: 'pay',
		applies: false,
		answer: 'unchanged',
		emptyStatus: 204,
		visibleAfterMs: 0,
		bigIds: false,
	},
	{
		op: 'pay',
		applies: true,
		answer: 'conflict',
		emptyStatus: 204,
		visibleAfterMs: 0,
		bigIds: false,
	},
	{
		op: 'pay',
		applies: true,
		answer: 'empty',
		emptyStatus: 202,
		visibleAfterMs: 400,
		bigIds: false,
	},
	{
		op: 'create',
		via: 'create',
		rival: false,
		creates: true,
		answer: 'empty',
		emptyStatus: 204,
		visibleAfterMs: 400,
		bigIds: false,
	},
	{
		op: 'create',
		via: 'holdBestAvailable',
		rival: true,
		creates: false,
		answer: 'noId',
		emptyStatus: 204,
		visibleAfterMs: 0,
		bigIds: false,
	},
	{
		op: 'create',
		via: 'holdBestAvailable',
		rival: false,
		creates: true,
		answer: 'created',
		emptyStatus: 204,
		visibleAfterMs: 0,
		bigIds: true,
	},
];

/**
 * Found by this property (seed 7177566, path 21:0:1:2:2) against a node that took an empty 2xx to
 * Create as vouching for the one order holding exactly its places: the service answered 202 with
 * no body and made nothing, since another buyer on the same key held those places, and the node
 * handed over that buyer's order. Only a 201 vouches now.
 */
const FOUND: Case[] = [
	{
		op: 'create',
		via: 'create',
		rival: true,
		creates: false,
		answer: 'empty',
		emptyStatus: 202,
		visibleAfterMs: 0,
		bigIds: false,
	},
];

describe('a write answered any way: never an order the service did not apply, nor another', () => {
	it.each(REVIEWED.map((c) => [JSON.stringify(c), c] as const))('reviewed %s', async (_, c) => {
		await run(c);
	});

	it.each(FOUND.map((c) => [JSON.stringify(c), c] as const))('found %s', async (_, c) => {
		await run(c);
	});

	it('property', async () => {
		await checkProperty('answers: never taken on trust', cases, run, 40);
	}, 600_000);
});
