/**
 * An independent stand-in of Public Events API v2, written from the API description only (not
 * from sandbox/), for the ledger reads: the choices the description leaves open made otherwise
 * than the sandbox makes them (answers with only the fields the description names, event lists
 * whose records name no event, pages shorter than asked, ids past 2^53, times with offsets).
 * Field names the description does not give (widget order and refund records) follow what the
 * node reads. Every request is logged; anything not implemented answers 404.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = Record<string, unknown>;

export interface StandinOptions {
	/** Whole order (GET /orders/{id}) carries only the spec's known fields (no eventPoint/payAt). */
	minimalWholeOrder: boolean;
	/** Event order list records carry no eventPoint (the list is per event). */
	noEventInEventList: boolean;
	/** Envelope: 'hydra' (hydra:member + hydra:totalItems) or 'array'. */
	envelope: 'hydra' | 'array';
	/** Server-side cap on page size (<= itemsPerPage). */
	pageCap: number;
	/** Widget orders also listed in their event's order list. */
	widgetInEventLists: boolean;
	/** Adds a widget order (and a refund of it) whose id has 19 digits, written as a bare number. */
	bigIds?: boolean;
}

export interface Logged {
	method: string;
	path: string;
	query: string;
	status: number;
}

const DAY = 86_400_000;

/** ISO text with a fixed offset (same instant). */
export function withOffset(ms: number, minutes: number): string {
	const local = new Date(ms + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, '');
	const sign = minutes >= 0 ? '+' : '-';
	const a = Math.abs(minutes);
	const two = (n: number) => String(n).padStart(2, '0');
	return `${local}${sign}${two(Math.floor(a / 60))}:${two(a % 60)}`;
}
const z = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface TicketModel {
	ticketId: number;
	price: number;
	discountPrice?: number;
	/** Price shape: object with currency or plain number. */
	asObject: boolean;
	status: string;
	priceCategory: number;
}
export interface WidgetOrderModel {
	id: number | string;
	event: string;
	payAt: number;
	offsetMin: number;
	email: string;
	tickets: TicketModel[];
	totalAsObject: boolean;
}
export interface WidgetRefundModel {
	id: number | string;
	order: number | string;
	orderAsIri: boolean;
	tickets: number[];
	ticketsAsObjects: boolean;
	/** undefined: no amount given. */
	amount?: number;
	amountShape?: 'plainPositive' | 'objectNegative';
	refundedAt: number;
	offsetMin: number;
	withEvent: boolean;
}
export interface ApiOrderModel {
	id: string;
	event: string;
	payAt?: number;
	status: 'paid' | 'refund' | 'reserved_to_time';
	tickets: TicketModel[];
	totalAsObject: boolean;
}
export interface EventModel {
	id: number | string;
	name: string;
	dateStarted: number;
	dateEndOfSale: number;
	archived: boolean;
}

export interface Model {
	now: number;
	events: EventModel[];
	widgetOrders: WidgetOrderModel[];
	widgetRefunds: WidgetRefundModel[];
	apiOrders: ApiOrderModel[];
}

const CUR = 'EUR';
const money = (amount: number, asObject: boolean) =>
	asObject ? { amount, currency: CUR } : amount;
export const paid = (t: TicketModel) => t.discountPrice ?? t.price;
const cents = (n: number) => Math.round(n * 100) / 100;

export function buildModel(now: number, bigIds = false): Model {
	const t = (days: number) => Math.floor((now - days * DAY) / 1000) * 1000;
	const tk = (ticketId: number, price: number, o: Partial<TicketModel> = {}): TicketModel => ({
		ticketId,
		price,
		asObject: true,
		status: 'paid',
		priceCategory: 1,
		...o,
	});
	const model: Model = {
		now,
		events: [
			{
				id: 101,
				name: 'Concert A',
				dateStarted: now + 10 * DAY,
				dateEndOfSale: now + 9 * DAY,
				archived: false,
			},
			{
				id: '102',
				name: 'Play B',
				dateStarted: now + 20 * DAY,
				dateEndOfSale: now + 19 * DAY,
				archived: false,
			},
			{
				id: 103,
				name: 'Past Gig',
				dateStarted: now - 1.5 * DAY,
				dateEndOfSale: now - 1.6 * DAY,
				archived: true,
			},
		],
		widgetOrders: [
			// three tickets, two partial refunds; offset +03:00
			{
				id: 500001,
				event: '101',
				payAt: t(3),
				offsetMin: 180,
				email: 'a@example.com',
				totalAsObject: true,
				tickets: [tk(5001, 25.5), tk(5002, 25.5, { priceCategory: 2 }), tk(5003, 25.5)],
			},
			// two tickets, plain prices, refunded whole by one refund without amount
			{
				id: 500002,
				event: '102',
				payAt: t(2),
				offsetMin: 0,
				email: 'b@example.com',
				totalAsObject: true,
				tickets: [tk(5011, 40, { asObject: false }), tk(5012, 40, { asObject: false })],
			},
			// discounted ticket; offset -05:00
			{
				id: 500003,
				event: '101',
				payAt: t(1),
				offsetMin: -300,
				email: 'c@example.com',
				totalAsObject: false,
				tickets: [tk(5021, 30, { discountPrice: 27 })],
			},
			// same number as API order 700001, same event, different sale
			{
				id: 700001,
				event: '102',
				payAt: t(1.5),
				offsetMin: 0,
				email: 'd@example.com',
				totalAsObject: true,
				tickets: [tk(5031, 15)],
			},
			// archived event
			{
				id: 500004,
				event: '103',
				payAt: t(2),
				offsetMin: 60,
				email: 'e@example.com',
				totalAsObject: true,
				tickets: [tk(5041, 10)],
			},
		],
		widgetRefunds: [
			{
				id: 9001,
				order: 500001,
				orderAsIri: false,
				tickets: [5001],
				ticketsAsObjects: false,
				amount: 25.5,
				amountShape: 'plainPositive',
				refundedAt: t(2.5),
				offsetMin: 0,
				withEvent: true,
			},
			{
				id: 9002,
				order: 500001,
				orderAsIri: true,
				tickets: [5002],
				ticketsAsObjects: true,
				amount: 25.5,
				amountShape: 'objectNegative',
				refundedAt: t(2),
				offsetMin: 120,
				withEvent: false,
			},
			{
				id: 9003,
				order: 500002,
				orderAsIri: false,
				tickets: [5011, 5012],
				ticketsAsObjects: false,
				refundedAt: t(1),
				offsetMin: 330,
				withEvent: true,
			},
		],
		apiOrders: [
			// refunded ticket by ticket (two of three), object prices
			{
				id: '700001',
				event: '102',
				payAt: t(2),
				status: 'paid',
				totalAsObject: true,
				tickets: [
					tk(7001, 20, { status: 'refund' }),
					tk(7002, 20, { status: 'refunded' }),
					tk(7003, 20),
				],
			},
			// refunded whole; plain prices, object total
			{
				id: '700002',
				event: '101',
				payAt: t(1),
				status: 'refund',
				totalAsObject: true,
				tickets: [
					tk(7011, 35, { asObject: false }),
					tk(7012, 35, { asObject: false, priceCategory: 2 }),
				],
			},
			// discounted, plain totals
			{
				id: '700003',
				event: '101',
				payAt: t(0.5),
				status: 'paid',
				totalAsObject: false,
				tickets: [tk(7021, 50, { discountPrice: 45 })],
			},
			// archived event
			{
				id: '700004',
				event: '103',
				payAt: t(2),
				status: 'paid',
				totalAsObject: true,
				tickets: [tk(7031, 12)],
			},
			// a live hold: no sale
			{
				id: '700005',
				event: '101',
				status: 'reserved_to_time',
				totalAsObject: true,
				tickets: [tk(7041, 9)],
			},
		],
	};
	if (bigIds) {
		model.widgetOrders.push({
			id: '__BIG__9007199254740993123',
			event: '101',
			payAt: t(1.2),
			offsetMin: 0,
			email: 'f@example.com',
			totalAsObject: true,
			tickets: [tk(5051, 11), tk(5052, 11)],
		});
		model.widgetRefunds.push({
			id: '__BIG__9007199254740995777',
			order: '__BIG__9007199254740993123',
			orderAsIri: false,
			tickets: [5052],
			ticketsAsObjects: false,
			amount: 11,
			amountShape: 'plainPositive',
			refundedAt: t(1.1),
			offsetMin: 0,
			withEvent: false,
		});
	}
	return model;
}

// ---- record shapes -------------------------------------------------------------------------

const ticketJson = (t: TicketModel) => ({
	ticketId: t.ticketId,
	barcode: `BC${t.ticketId}`,
	placeId: String(t.ticketId + 100000),
	placeName: `Seat ${t.ticketId}`,
	sectorName: 'Stalls',
	rowName: '1',
	price: money(t.price, t.asObject),
	discountPrice: t.discountPrice === undefined ? null : money(t.discountPrice, t.asObject),
	status: t.status,
	priceCategory: t.priceCategory,
});
const sumPaid = (tickets: TicketModel[]) => cents(tickets.reduce((s, t) => s + paid(t), 0));
const left = (tickets: TicketModel[], refunded: Set<number>) =>
	sumPaid(
		tickets.filter((t) => !refunded.has(t.ticketId) && !['refund', 'refunded'].includes(t.status)),
	);

export function widgetOrderJson(o: WidgetOrderModel): Json {
	return {
		id: o.id,
		eventPoint: `/api/v2/event-points/${o.event}`,
		payAt: withOffset(o.payAt, o.offsetMin),
		email: o.email,
		status: 'paid',
		totalPrice: money(sumPaid(o.tickets), o.totalAsObject),
		tickets: o.tickets.map(ticketJson),
	};
}
export function widgetRefundJson(m: Model, r: WidgetRefundModel): Json {
	const order = m.widgetOrders.find((o) => o.id === r.order)!;
	return {
		id: r.id,
		order: r.orderAsIri ? `/api/v2/widget-orders/${r.order}` : r.order,
		...(r.withEvent ? { eventPoint: { id: Number(order.event) } } : {}),
		tickets: r.ticketsAsObjects ? r.tickets.map((ticketId) => ({ ticketId })) : r.tickets,
		...(r.amount === undefined
			? {}
			: {
					amount:
						r.amountShape === 'objectNegative' ? { amount: -r.amount, currency: CUR } : r.amount,
				}),
		refundedAt: withOffset(r.refundedAt, r.offsetMin),
	};
}
export function wholeOrderJson(o: ApiOrderModel, opts: StandinOptions): Json {
	const full = sumPaid(o.tickets);
	const gross = cents(o.tickets.reduce((s, t) => s + t.price, 0));
	return {
		id: o.id,
		status: o.status,
		reservedToDate: null,
		totalPrice: money(gross, o.totalAsObject),
		totalDiscount: money(cents(gross - full), o.totalAsObject),
		tickets: o.tickets.map(ticketJson),
		...(opts.minimalWholeOrder
			? {}
			: { eventPoint: `/api/v2/event-points/${o.event}`, payAt: o.payAt ? z(o.payAt) : null }),
	};
}

// ---- server --------------------------------------------------------------------------------

export class Standin {
	readonly log: Logged[] = [];
	private server!: Server;
	url = '';

	constructor(
		public model: Model,
		public opts: StandinOptions,
	) {}

	async start() {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
		});
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
		return this;
	}

	async stop() {
		this.server.closeAllConnections();
		await new Promise((r) => this.server.close(r));
	}

	private send(res: ServerResponse, entry: Logged, status: number, body: unknown) {
		entry.status = status;
		res.writeHead(status, { 'content-type': 'application/json' });
		// ids written as "__BIG__<digits>" go out as bare JSON numbers (more than 15 digits)
		res.end(JSON.stringify(body).replace(/"__BIG__(\d+)"/g, '$1'));
	}

	private page(res: ServerResponse, entry: Logged, q: URLSearchParams, all: Json[]) {
		const page = Math.max(1, Number(q.get('page') ?? 1));
		const asked = Math.min(100, Math.max(1, Number(q.get('itemsPerPage') ?? 30)));
		const per = Math.min(asked, this.opts.pageCap);
		const items = all.slice((page - 1) * per, page * per);
		if (this.opts.envelope === 'array') return this.send(res, entry, 200, items);
		return this.send(res, entry, 200, {
			'@context': '/api/v2/contexts/X',
			'hydra:member': items,
			'hydra:totalItems': all.length,
		});
	}

	private handle(req: IncomingMessage, res: ServerResponse, body: string) {
		const url = new URL(req.url ?? '/', 'http://x');
		const path = url.pathname.replace(/^\/api\/v2/, '');
		const q = url.searchParams;
		const entry: Logged = { method: req.method ?? '', path, query: url.search, status: 0 };
		this.log.push(entry);
		const m = this.model;
		const o = this.opts;
		if (req.method === 'POST' && path === '/token') {
			const key = (JSON.parse(body || '{}') as Json).apiKey;
			if (!key) return this.send(res, entry, 401, { message: 'no key' });
			return this.send(res, entry, 200, {
				token: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzdGFuZGluIn0.${Date.now()}`,
			});
		}
		if (!/^Bearer eyJ/.test(String(req.headers.authorization ?? '')))
			return this.send(res, entry, 401, { message: 'token' });
		if (req.method !== 'GET') return this.send(res, entry, 404, { message: 'not implemented' });

		const eventJson = (e: EventModel) => ({
			id: e.id,
			eventId: Number(e.id) * 10,
			eventName: e.name,
			dateStarted: z(e.dateStarted),
			dateEnd: z(e.dateStarted + 3 * 3_600_000),
			dateEndOfSale: z(e.dateEndOfSale),
			minPrice: { amount: 10, currency: CUR },
			maxPrice: { amount: 50, currency: CUR },
			countAvailableTickets: 100,
		});
		const startFilter = (e: EventModel) => {
			const after = q.get('dateStarted[after]');
			const before = q.get('dateStarted[before]');
			if (after && e.dateStarted < Date.parse(after)) return false;
			if (before && e.dateStarted >= Date.parse(before) + DAY) return false;
			return true;
		};
		if (path === '/event-points')
			return this.page(
				res,
				entry,
				q,
				m.events.filter((e) => !e.archived && startFilter(e)).map(eventJson),
			);
		if (path === '/event-points-archived')
			return this.page(
				res,
				entry,
				q,
				m.events.filter((e) => e.archived && startFilter(e)).map(eventJson),
			);
		let match = /^\/event-points\/([^/]+)$/.exec(path);
		if (match) {
			const e = m.events.find((x) => String(x.id) === match![1] && !x.archived);
			return e
				? this.send(res, entry, 200, eventJson(e))
				: this.send(res, entry, 404, { message: 'no event' });
		}
		match = /^\/event-points\/([^/]+)\/orders$/.exec(path);
		if (match) {
			const id = match[1];
			const after = q.get('payAt[after]');
			const status = q.get('status');
			const api = m.apiOrders
				.filter((a) => a.event === id)
				.map((a) => ({ at: a.payAt, status: a.status as string, json: this.listedApi(a) }));
			const widget = o.widgetInEventLists
				? m.widgetOrders
						.filter((w) => w.event === id)
						.map((w) => ({
							at: w.payAt as number | undefined,
							status: 'paid',
							json: this.listedWidget(w),
						}))
				: [];
			const rows = [...api, ...widget]
				.filter((r) => !status || r.status === status)
				.filter((r) => !after || (r.at !== undefined && r.at >= Date.parse(after)))
				.sort((a, b) => (a.at ?? 0) - (b.at ?? 0))
				.map((r) => r.json);
			return this.page(res, entry, q, rows);
		}
		match = /^\/orders\/([^/]+)$/.exec(path);
		if (match) {
			const a = m.apiOrders.find((x) => x.id === match![1]);
			return a
				? this.send(res, entry, 200, wholeOrderJson(a, o))
				: this.send(res, entry, 404, { message: 'not found' });
		}
		if (path === '/widget-orders')
			// the spec shows no filters for widget lists: this stand-in ignores them
			return this.page(
				res,
				entry,
				q,
				[...m.widgetOrders].sort((a, b) => a.payAt - b.payAt).map(widgetOrderJson),
			);
		if (path === '/widget-orders-refunds')
			// newest first
			return this.page(
				res,
				entry,
				q,
				[...m.widgetRefunds]
					.sort((a, b) => b.refundedAt - a.refundedAt)
					.map((r) => widgetRefundJson(m, r)),
			);
		return this.send(res, entry, 404, { message: `not implemented ${path}` });
	}

	private listedApi(a: ApiOrderModel): Json {
		// an event's list: no tickets; the total is what is left after refunds
		const refunded = new Set<number>();
		const leftNow = a.status === 'refund' ? 0 : left(a.tickets, refunded);
		return {
			id: a.id,
			status: a.status,
			payAt: a.payAt ? z(a.payAt) : null,
			reservedToDate: a.status === 'reserved_to_time' ? z(this.model.now + 600_000) : null,
			totalPrice: money(leftNow, a.totalAsObject),
			...(this.opts.noEventInEventList ? {} : { eventPoint: `/api/v2/event-points/${a.event}` }),
		};
	}

	private listedWidget(w: WidgetOrderModel): Json {
		const refunded = new Set(
			this.model.widgetRefunds.filter((r) => r.order === w.id).flatMap((r) => r.tickets),
		);
		return {
			id: String(w.id),
			status: 'paid',
			payAt: z(w.payAt),
			totalPrice: money(left(w.tickets, refunded), w.totalAsObject),
			...(this.opts.noEventInEventList ? {} : { eventPoint: `/api/v2/event-points/${w.event}` }),
		};
	}
}

// ---- the expected ledger, per docs/ledger.md, computed from the model -----------------------

export interface Row {
	key: string;
	type: 'sale' | 'refund';
	channel: 'widget' | 'api';
	orderId: string;
	eventPointId: string;
	eventName: string;
	/** null: the API states no time (a refund of an API order): dated by the read. */
	at: string | null;
	tickets: number;
	amount: number;
	currency: string;
	email: string | null;
	refundId: string | null;
	ticketIds: string | null;
}

const bare = (id: unknown) => String(id).replace('__BIG__', '');
export function expectedLedger(m: Model): Row[] {
	const name = (ev: string) => m.events.find((e) => String(e.id) === ev)!.name;
	const iso = (ms: number) => new Date(ms).toISOString();
	const rows: Row[] = [];
	for (const o of m.widgetOrders)
		rows.push({
			key: `sale:widget:${bare(o.id)}`,
			type: 'sale',
			channel: 'widget',
			orderId: bare(o.id),
			eventPointId: o.event,
			eventName: name(o.event),
			at: iso(o.payAt),
			tickets: o.tickets.length,
			amount: sumPaid(o.tickets),
			currency: CUR,
			email: o.email,
			refundId: null,
			ticketIds: null,
		});
	for (const r of m.widgetRefunds) {
		const o = m.widgetOrders.find((w) => w.id === r.order)!;
		const taken = o.tickets.filter((t) => r.tickets.includes(t.ticketId));
		rows.push({
			key: `refund:widget:${bare(r.id)}`,
			type: 'refund',
			channel: 'widget',
			orderId: bare(o.id),
			eventPointId: o.event,
			eventName: name(o.event),
			at: iso(r.refundedAt),
			tickets: r.tickets.length,
			amount: -(r.amount ?? sumPaid(taken)),
			currency: CUR,
			email: null,
			refundId: bare(r.id),
			ticketIds: r.tickets.join(','),
		});
	}
	for (const a of m.apiOrders) {
		if (a.payAt === undefined) continue;
		rows.push({
			key: `sale:api:${a.id}`,
			type: 'sale',
			channel: 'api',
			orderId: a.id,
			eventPointId: a.event,
			eventName: name(a.event),
			at: iso(a.payAt),
			tickets: a.tickets.length,
			amount: sumPaid(a.tickets),
			currency: CUR,
			email: null,
			refundId: null,
			ticketIds: null,
		});
		for (const t of a.tickets)
			if (a.status === 'refund' || ['refund', 'refunded'].includes(t.status))
				rows.push({
					key: `refund:api:${a.id}:${t.ticketId}`,
					type: 'refund',
					channel: 'api',
					orderId: a.id,
					eventPointId: a.event,
					eventName: name(a.event),
					at: null,
					tickets: 1,
					amount: -paid(t),
					currency: CUR,
					email: null,
					refundId: null,
					ticketIds: String(t.ticketId),
				});
	}
	return rows;
}
