import type { Ctx } from '../context';
import type { Router } from '../http';
import type { WidgetOrder, WidgetRefund } from '../model';
import { isoDayOrTime, sortDirection } from '../validate';
import { visibleYet } from '../quirks';
import { listQuery, ordered } from './common';

/**
 * Sales and refunds made in the widget on the partner's site, company-wide. The spec names no
 * filters here; the sandbox offers API Platform style ones (`<time>[after]`, `order[<time>]`)
 * for clients that can use them, and lists oldest first (by id) when none is given.
 */
export function registerWidget(router: Router<Ctx>): void {
	const feed = <T extends { id: number; companyId: number }>(
		path: string,
		type: string,
		records: (ctx: Ctx) => T[],
		time: keyof T & string,
		serialize: (ctx: Ctx, record: T) => Record<string, unknown>,
	) =>
		router.add('GET', path, (ctx) => {
			const q = listQuery(ctx, {
				[`${time}[after]`]: isoDayOrTime.optional(),
				[`order[${time}]`]: sortDirection.optional(),
			}) as {
				page?: number;
				itemsPerPage?: number;
			} & Record<string, unknown>;
			const after = q[`${time}[after]`] as number | undefined;
			const direction = q[`order[${time}]`] as 'asc' | 'desc' | undefined;
			const at = (record: T) => record[time] as number;
			const now = ctx.app.clock.now();
			const list = ordered(
				ctx,
				records(ctx).filter(
					(r) =>
						r.companyId === ctx.company.id &&
						(after === undefined || at(r) >= after) &&
						visibleYet(ctx.app.quirks, at(r), now),
				),
				at,
				direction,
			);
			return ctx.app.page(ctx, list, (r) => serialize(ctx, r), {
				path,
				type,
				iri: (id) => `/api/v2${path}/${id}`,
				page: q.page,
				itemsPerPage: q.itemsPerPage,
			});
		});

	feed<WidgetOrder>(
		'/widget-orders',
		'WidgetOrder',
		(ctx) => ctx.app.store.widgetOrders,
		'payAt',
		(ctx, o) => ctx.app.serialize.widgetOrder(o),
	);
	feed<WidgetRefund>(
		'/widget-orders-refunds',
		'WidgetRefund',
		(ctx) => ctx.app.store.widgetRefunds,
		'refundedAt',
		(ctx, r) => ctx.app.serialize.widgetRefund(r),
	);
}
