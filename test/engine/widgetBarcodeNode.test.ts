import { MAX_PAGES_IN_FLIGHT } from '../../nodes/PublicEvents/transport';
import {
	credentialFor,
	ids,
	mark,
	runPublicEvents,
	since,
	type LogEntry,
} from '../helpers/publicEvents';
import { SandboxClient } from '../helpers/sandboxClient';

let sb: SandboxClient;

beforeAll(async () => {
	// 120 widget orders: two pages of 100.
	sb = await SandboxClient.start({
		events: 10,
		placesPerEvent: 60,
		archivedEvents: 2,
		widgetOrders: 120,
	});
	await sb.token();
	await sb.token('organiser');
});
afterAll(() => sb.stop());

const query = (entry: LogEntry) => new URLSearchParams(entry.query);
const routed = (log: LogEntry[], route: string) => log.filter((e) => e.route === route);
const organiser = () => credentialFor(sb, { apiKey: sb.keys.organiser });
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

describe('Barcode: Export for Event', () => {
	const exportFor = (eventId: string, extra: object = {}) => ({
		resource: 'barcode',
		operation: 'exportForEvent',
		eventId: byId(eventId),
		returnAll: true,
		...extra,
	});

	it('the organiser gets one item per ticket, sold or unsold, as the service lists them', async () => {
		const expected = await sb.getAll('/event-points/1001/barcodes', { as: 'organiser' });
		expect(expected).toHaveLength(60);
		expect(new Set(expected.map((b) => b.sold))).toEqual(new Set([true, false]));
		const { store } = organiser();
		const { items, error } = await runPublicEvents(store, exportFor('1001'));
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(expected);
		expect(Object.keys(items[0].json)).toEqual(
			expect.arrayContaining(['barcode', 'placeId', 'placeName', 'sectorId', 'sectorName']),
		);
	});

	it('Limit 5 from one request for 5; an IRI is read as its ID', async () => {
		const expected = await sb.getAll('/event-points/1002/barcodes', { as: 'organiser' });
		const { store } = organiser();
		const before = await mark(sb);
		const { items } = await runPublicEvents(
			store,
			exportFor('/api/v2/event-points/1002', { returnAll: false, limit: 5 }),
		);
		expect(items.map((item) => item.json.barcode)).toEqual(
			expected.slice(0, 5).map((b) => b.barcode),
		);
		const requests = routed(await since(sb, before), '/event-points/{id}/barcodes');
		expect(requests.map((e) => `${e.path} ${query(e).get('itemsPerPage')}`)).toEqual([
			'/event-points/1002/barcodes 5',
		]);
	});

	it('an archived event can be exported by ID', async () => {
		const [archived] = await sb.getAll('/event-points-archived', { as: 'organiser' });
		const { store } = organiser();
		const { items, error } = await runPublicEvents(store, exportFor(String(archived.id)));
		expect(error).toBeUndefined();
		expect(items).toHaveLength(60);
	});

	it('a partner is told to take barcodes from the paid order', async () => {
		const { store } = credentialFor(sb);
		const { error, items } = await runPublicEvents(store, exportFor('1001'));
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			'The barcode export is only for events your company organises. For events you sell as a partner, take the barcodes from the paid order (Order > Get).',
		);
	});
});

describe('Widget', () => {
	const list = (operation: string, extra: object = {}) => ({
		resource: 'widget',
		operation,
		returnAll: true,
		...extra,
	});

	it('Get Many Orders: every widget sale of the company over 2 pages, tickets with barcodes', async () => {
		const expected = await sb.getAll('/widget-orders');
		expect(expected).toHaveLength(120);
		const { store } = credentialFor(sb);
		const before = await mark(sb);
		const { items, error } = await runPublicEvents(store, list('getManyOrders'));
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(expected);
		expect((items[0].json.tickets as any[])[0].barcode).toEqual(expect.any(String));
		// Without a total, pages read ahead past the short page 2 are fewer than a window.
		const pages = routed(await since(sb, before), '/widget-orders')
			.map((e) => Number(query(e).get('page')))
			.sort((a, b) => a - b);
		expect(pages.length - 2).toBeLessThan(MAX_PAGES_IN_FLIGHT);
		expect(pages).toEqual(Array.from({ length: pages.length }, (_, i) => i + 1));
	});

	it('Get Many Orders, Split Tickets Into Items: one row per ticket with its order id, status and totals', async () => {
		const expected = await sb.getAll('/widget-orders');
		const { store } = credentialFor(sb);
		const { items, error } = await runPublicEvents(
			store,
			list('getManyOrders', { options: { splitTickets: true } }),
		);
		expect(error).toBeUndefined();
		const rows = expected.flatMap((order) =>
			order.tickets.map((ticket: object) => ({
				orderId: order.id,
				orderStatus: order.status,
				totalPrice: order.totalPrice,
				totalDiscount: order.totalDiscount,
				...ticket,
			})),
		);
		expect(rows.length).toBeGreaterThan(expected.length);
		expect(items.map((item) => item.json)).toEqual(rows);
		expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('Paid After and Sort are sent as payAt[after] and order[payAt]', async () => {
		const all = await sb.getAll('/widget-orders');
		const middle = all[60].payAt as string;
		const expected = (
			await sb.getAll('/widget-orders', {
				query: { 'payAt[after]': middle, 'order[payAt]': 'desc' },
			})
		).map((o) => String(o.id));
		expect(expected.length).toBeGreaterThan(0);
		expect(expected.length).toBeLessThan(all.length);
		const { store } = credentialFor(sb);
		const before = await mark(sb);
		const { items, error } = await runPublicEvents(
			store,
			list('getManyOrders', { filters: { after: middle }, options: { sort: 'desc' } }),
		);
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(expected);
		const [request] = routed(await since(sb, before), '/widget-orders');
		expect(query(request).get('payAt[after]')).toBe(middle);
		expect(query(request).get('order[payAt]')).toBe('desc');
	});

	it('Paid After takes a date-time value from an expression ($now minus 3 days)', async () => {
		const { store } = credentialFor(sb);
		const before = await mark(sb);
		const { items, error } = await runPublicEvents(
			store,
			list('getManyOrders', { filters: { after: '={{ $now.minus({ days: 3 }) }}' } }),
		);
		expect(error).toBeUndefined();
		const [request] = routed(await since(sb, before), '/widget-orders');
		const sent = query(request).get('payAt[after]')!;
		expect(Math.abs(Date.parse(sent) - (Date.now() - 3 * 86_400_000))).toBeLessThan(60_000);
		const expected = (await sb.getAll('/widget-orders', { query: { 'payAt[after]': sent } })).map(
			(o) => String(o.id),
		);
		expect(ids(items)).toEqual(expected);
		expect(expected.length).toBeLessThan(120);
	});

	it('Get Many Refunds: every refund, Limit and Refunded After', async () => {
		const paid = (await sb.getAll('/widget-orders')).filter((o) => o.status === 'paid');
		for (const order of paid.slice(0, 3))
			expect((await sb.admin('POST', `/widget-orders/${order.id}/refund`)).status).toBe(201);
		const refunds = await sb.getAll('/widget-orders-refunds');
		expect(refunds.length).toBeGreaterThanOrEqual(3);
		const { store } = credentialFor(sb);

		const all = await runPublicEvents(store, list('getManyRefunds'));
		expect(all.items.map((item) => item.json)).toEqual(refunds);

		const two = await runPublicEvents(
			store,
			list('getManyRefunds', { returnAll: false, limit: 2 }),
		);
		expect(ids(two.items)).toEqual(refunds.slice(0, 2).map((r) => String(r.id)));

		const latest = [...refunds].sort(
			(a, b) => Date.parse(b.refundedAt) - Date.parse(a.refundedAt),
		)[0].refundedAt;
		const before = await mark(sb);
		const recent = await runPublicEvents(
			store,
			list('getManyRefunds', { filters: { after: latest }, options: { sort: 'asc' } }),
		);
		const expected = (
			await sb.getAll('/widget-orders-refunds', { query: { 'refundedAt[after]': latest } })
		).map((r) => String(r.id));
		expect(ids(recent.items)).toEqual(expected);
		expect(expected.length).toBeLessThan(refunds.length);
		const [request] = routed(await since(sb, before), '/widget-orders-refunds');
		expect(query(request).get('refundedAt[after]')).toBe(latest);
		expect(query(request).get('order[refundedAt]')).toBe('asc');
	});
});
