import { MAX_PAGES_IN_FLIGHT } from '../../../../../nodes/shared/transport';
import {
	ids,
	mark,
	query,
	routed,
	runPublicEvents,
	since,
} from '../../../../../harness/nodes/publicEvents';
import { widgetSuite } from '../../../../../harness/nodes/suites';

const { sb, credential } = widgetSuite();

describe('Widget', () => {
	const list = (operation: string, extra: object = {}) => ({
		resource: 'widget',
		operation,
		returnAll: true,
		...extra,
	});

	it(
		'Get Many Orders: every widget sale of the company over 2 ' + 'pages, tickets with barcodes',
		async () => {
			const expected = await sb().getAll('/widget-orders');
			expect(expected).toHaveLength(120);
			const { store } = credential();
			const before = await mark(sb());
			const { items, error } = await runPublicEvents(store, list('getManyOrders'));
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(expected);
			expect((items[0].json.tickets as any[])[0].barcode).toEqual(expect.any(String));
			// Without a total, pages read ahead past the short page 2 are fewer than a window.
			const pages = routed(await since(sb(), before), '/widget-orders')
				.map((e) => Number(query(e).get('page')))
				.sort((a, b) => a - b);
			expect(pages.length - 2).toBeLessThan(MAX_PAGES_IN_FLIGHT);
			expect(pages).toEqual(Array.from({ length: pages.length }, (_, i) => i + 1));
		},
	);

	it(
		'Get Many Orders, Split Tickets Into Items: one row per ' +
			'ticket with its order id, status and totals',
		async () => {
			const expected = await sb().getAll('/widget-orders');
			const { store } = credential();
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
		},
	);

	it('Paid After and Sort are sent as payAt[after] and order[payAt]', async () => {
		const all = await sb().getAll('/widget-orders');
		const middle = all[60].payAt as string;
		const expected = (
			await sb().getAll('/widget-orders', {
				query: { 'payAt[after]': middle, 'order[payAt]': 'desc' },
			})
		).map((o) => String(o.id));
		expect(expected.length).toBeGreaterThan(0);
		expect(expected.length).toBeLessThan(all.length);
		const { store } = credential();
		const before = await mark(sb());
		const { items, error } = await runPublicEvents(
			store,
			list('getManyOrders', { filters: { after: middle }, options: { sort: 'desc' } }),
		);
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(expected);
		const [request] = routed(await since(sb(), before), '/widget-orders');
		expect(query(request).get('payAt[after]')).toBe(middle);
		expect(query(request).get('order[payAt]')).toBe('desc');
	});

	it('Paid After takes a date-time value from an expression ($now minus 3 days)', async () => {
		const { store } = credential();
		const before = await mark(sb());
		const { items, error } = await runPublicEvents(
			store,
			list('getManyOrders', { filters: { after: '={{ $now.minus({ days: 3 }) }}' } }),
		);
		expect(error).toBeUndefined();
		const [request] = routed(await since(sb(), before), '/widget-orders');
		const sent = query(request).get('payAt[after]')!;
		expect(Math.abs(Date.parse(sent) - (Date.now() - 3 * 86_400_000))).toBeLessThan(60_000);
		const expected = (await sb().getAll('/widget-orders', { query: { 'payAt[after]': sent } })).map(
			(o) => String(o.id),
		);
		expect(ids(items)).toEqual(expected);
		expect(expected.length).toBeLessThan(120);
	});
});
