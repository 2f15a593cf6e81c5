import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime, eventOf } from '../changes';
import { EventNames } from '../eventNames';
import { afterParam } from '../widgetFeeds';
import {
	apiRequest,
	apiRequestAllItems,
	serviceNow,
	type ApiContext,
	type PageSettings,
} from '../transport';
import { apiRows } from './apiOrders';
import type { LedgerScope } from './scope';

export type { LedgerScope } from './scope';
import { moneyOf, saleRow, widgetRefundRow, type LedgerRow } from './rows';

/** What one ledger read gave, and what it cost. */
export interface LedgerRead {
	rows: LedgerRow[];
	/** Keys of rows dated by this read (a refund the service states no time for). */
	estimated: Set<string>;
	/** API orders read whole (GET /orders/{id}). */
	ordersRead: number;
	/** Orders of an event's list this key could not read whole (not API orders of this key). */
	unread: number;
	/** Events whose order lists were read. */
	events: number;
	/** Event-list records taken for widget sales listed there too. */
	copies: number;
	/** The records the rows were made of: widget orders, API orders read whole, widget refunds. */
	records: { widgetOrders: IDataObject[]; apiOrders: IDataObject[]; widgetRefunds: IDataObject[] };
}

/**
 * The service's now, which decides what "yesterday" is: from the Date header of an answer this
 * run had, else of a read of one event (one request), else this machine's clock.
 */
export async function ledgerNow(context: ApiContext, settings: PageSettings): Promise<number> {
	let now = await serviceNow(context);
	if (now === undefined) {
		const { retry, language, itemIndex } = settings;
		const qs = { page: 1, itemsPerPage: 1 };
		await apiRequest.call(context, 'GET', '/event-points', { qs }, { retry, language, itemIndex });
		now = await serviceNow(context);
	}
	return now ?? Date.now();
}

const timeOf = (json: IDataObject, field: string) => changeTime(json[field]);

function within(scope: LedgerScope, at: number | undefined): boolean {
	return at !== undefined && at >= scope.from && (scope.to === undefined || at < scope.to);
}

/** Widget orders paid since `from` (the filter may be ignored: times are checked here too). */
async function widgetOrders(
	context: ApiContext,
	from: number,
	settings: PageSettings,
): Promise<IDataObject[]> {
	const qs = { 'payAt[after]': afterParam(from) };
	const orders = await apiRequestAllItems.call(context, '/widget-orders', qs, settings);
	return orders.filter((o) => (timeOf(o, 'payAt') ?? -Infinity) >= from);
}

/**
 * Widget refunds of the period, of the scope's events: a refund that names no event is of its
 * order's (one of an order not read is kept for All Events only).
 */
async function widgetRefunds(
	context: ApiContext,
	scope: LedgerScope,
	settings: PageSettings,
	orders: Map<string, IDataObject>,
): Promise<IDataObject[]> {
	const qs = { 'refundedAt[after]': afterParam(scope.from) };
	const refunds = await apiRequestAllItems.call(context, '/widget-orders-refunds', qs, settings);
	const orderOf = (r: IDataObject) => orders.get(changeId(r.order ?? r.orderId) ?? '');
	return refunds.filter((r) => {
		const order = orderOf(r);
		const event = eventOf(r) ?? (order ? eventOf(order) : null);
		const inScope = !scope.eventIds || (event !== null && scope.eventIds.includes(event));
		return within(scope, timeOf(r, 'refundedAt')) && inScope;
	});
}

const byTime = (a: LedgerRow, b: LedgerRow) =>
	(changeTime(a.at) ?? Infinity) - (changeTime(b.at) ?? Infinity) ||
	(a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * The ledger rows of a period, every channel asked for, with event names: widget sales and refunds
 * from their lists, API orders from each event's list, read whole for their tickets and refunds. A
 * widget sale an event's list shows too (same number, event, payment time, and its total then or
 * now) is counted once, as a widget sale. Any read that fails fails the whole: a part of the
 * ledger is never given as the whole.
 */
export async function readLedger(
	context: ApiContext,
	scope: LedgerScope,
	settings: PageSettings,
): Promise<LedgerRead> {
	const list = { ...settings, limit: undefined, keep: undefined };
	const wantsWidget = scope.channels.includes('widget');
	const wantsApi = scope.channels.includes('api');
	// Widget orders from the API orders' look-back too: the ones an event's list also shows.
	const widgetFrom = wantsApi ? scope.from - scope.refundLookBackMs : scope.from;
	const orders = await widgetOrders(context, widgetFrom, list);
	const widget = new Map(orders.map((o) => [changeId(o.id) ?? '', o]));
	const inEvents = (o: IDataObject) => !scope.eventIds || scope.eventIds.includes(eventOf(o) ?? '');
	const sold = wantsWidget
		? orders.filter((o) => within(scope, timeOf(o, 'payAt')) && inEvents(o))
		: [];
	const refunds = wantsWidget ? await widgetRefunds(context, scope, list, widget) : [];
	// A refund that states no amount is priced by its order's tickets: an order older than the
	// window is looked for in the whole widget list (once).
	const unpriced = refunds.filter(
		(r) => moneyOf(r.amount).amount === null && !widget.has(changeId(r.order ?? r.orderId) ?? ''),
	);
	if (unpriced.length > 0)
		for (const order of await widgetOrders(context, 0, list))
			if (!widget.has(changeId(order.id) ?? '')) widget.set(changeId(order.id) ?? '', order);
	const rows: LedgerRow[] = [
		...sold.map((o) => saleRow(o, 'widget')),
		...refunds.map((r) => widgetRefundRow(r, widget.get(changeId(r.order ?? r.orderId) ?? ''))),
	];
	const api = wantsApi
		? await apiRows(context, scope, list, widget)
		: { rows: [], whole: [], events: 0, copies: 0, unread: 0, estimated: new Set<string>() };
	rows.push(...api.rows);
	const named = await new EventNames(context, list).fill(rows);
	return {
		rows: named.sort(byTime),
		estimated: api.estimated,
		ordersRead: api.whole.length,
		unread: api.unread,
		events: api.events,
		copies: api.copies,
		records: { widgetOrders: sold, apiOrders: api.whole, widgetRefunds: refunds },
	};
}
