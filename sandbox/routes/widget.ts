import type { Ctx } from '../app';
import type { Router } from '../http';
import { isoDayOrTime, sortDirection } from '../validate';
import { listQuery, sortBy } from './common';

/**
 * Sales and refunds made in the widget on the partner's site, company-wide. The spec names no
 * filters here; the sandbox offers API Platform style ones (`payAt[after]`, `order[payAt]`)
 * for clients that can use them, and lists oldest first when none is given.
 */
export function registerWidget(router: Router<Ctx>): void {
	router.add('GET', '/widget-orders', (ctx) => {
		const q = listQuery(ctx, { 'payAt[after]': isoDayOrTime.optional(), 'order[payAt]': sortDirection.optional() });
		const orders = ctx.app.store.widgetOrders.filter((o) => o.companyId === ctx.company.id && (q['payAt[after]'] === undefined || o.payAt >= q['payAt[after]']));
		return ctx.app.page(ctx, sortBy(orders, (o) => (q['order[payAt]'] ? o.payAt : 0), q['order[payAt]']), (o) => ctx.app.serialize.widgetOrder(o), {
			path: '/widget-orders',
			type: 'WidgetOrder',
			iri: (id) => `/api/v2/widget-orders/${id}`,
			page: q.page,
			itemsPerPage: q.itemsPerPage,
		});
	});

	router.add('GET', '/widget-orders-refunds', (ctx) => {
		const q = listQuery(ctx, { 'refundedAt[after]': isoDayOrTime.optional(), 'order[refundedAt]': sortDirection.optional() });
		const refunds = ctx.app.store.widgetRefunds.filter((r) => r.companyId === ctx.company.id && (q['refundedAt[after]'] === undefined || r.refundedAt >= q['refundedAt[after]']));
		return ctx.app.page(ctx, sortBy(refunds, (r) => (q['order[refundedAt]'] ? r.refundedAt : 0), q['order[refundedAt]']), (r) => ctx.app.serialize.widgetRefund(r), {
			path: '/widget-orders-refunds',
			type: 'WidgetRefund',
			iri: (id) => `/api/v2/widget-orders-refunds/${id}`,
			page: q.page,
			itemsPerPage: q.itemsPerPage,
		});
	});
}
