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

	it('Get Many Refunds: every refund, Limit and Refunded After', async () => {
		const paid = (await sb().getAll('/widget-orders')).filter((o) => o.status === 'paid');
		for (const order of paid.slice(0, 3))
			expect((await sb().admin('POST', `/widget-orders/${order.id}/refund`)).status).toBe(201);
		const refunds = await sb().getAll('/widget-orders-refunds');
		expect(refunds.length).toBeGreaterThanOrEqual(3);
		const { store } = credential();

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
		const before = await mark(sb());
		const recent = await runPublicEvents(
			store,
			list('getManyRefunds', { filters: { after: latest }, options: { sort: 'asc' } }),
		);
		const expected = (
			await sb().getAll('/widget-orders-refunds', { query: { 'refundedAt[after]': latest } })
		).map((r) => String(r.id));
		expect(ids(recent.items)).toEqual(expected);
		expect(expected.length).toBeLessThan(refunds.length);
		const [request] = routed(await since(sb(), before), '/widget-orders-refunds');
		expect(query(request).get('refundedAt[after]')).toBe(latest);
		expect(query(request).get('order[refundedAt]')).toBe('asc');
	});
});
