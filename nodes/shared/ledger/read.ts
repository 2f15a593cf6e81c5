import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime } from '../changes';
import { EventNames } from '../eventNames';
import { path } from '../path';
import { afterParam } from '../widgetFeeds';
import {
	apiRequest,
	apiRequestAllItems,
	inOrder,
	MAX_PAGES_IN_FLIGHT,
	serviceNow,
	type ApiContext,
	type PageSettings,
} from '../transport';
import {
	apiOrderRows,
	sameSale,
	saleRow,
	widgetRefundRow,
	type Channel,
	type LedgerRow,
} from './rows';

const DAY = 24 * 3_600_000;

/** What a ledger read covers. */
export interface LedgerScope {
	channels: Channel[];
	/** Chosen events; undefined: every event of the company (listed, and archived lately). */
	eventIds?: string[];
	/** Rows whose time is at or after `from` and before `to` (epoch ms). */
	from: number;
	to?: number;
	/**
	 * How long before `from` an API order may have been paid and refunded within the period: the API
	 * lists an event's orders by payment time only, so their refunds are found by reading them.
	 */
	refundLookBackMs: number;
}

/** What one ledger read sent, for its cost. */
export interface LedgerRead {
	rows: LedgerRow[];
	/** API orders read whole (GET /orders/{id}). */
	ordersRead: number;
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

const inEvents = (scope: LedgerScope, json: IDataObject) =>
	scope.eventIds === undefined ||
	scope.eventIds.includes(changeId(json.eventPoint ?? json.eventPointId) ?? '');

/** The events whose orders are read: the chosen ones, or those listed and lately archived. */
async function eventIdsOf(
	context: ApiContext,
	scope: LedgerScope,
	settings: PageSettings,
): Promise<string[]> {
	if (scope.eventIds) return scope.eventIds;
	const live = await apiRequestAllItems.call(context, '/event-points', {}, settings);
	// An event whose sale ended is in the archive; sales of the period are in events that started
	// at most a year before it (the archive has no filter by end of sale).
	const since = new Date(scope.from - scope.refundLookBackMs - 365 * DAY).toISOString();
	const archived = await apiRequestAllItems
		.call(context, '/event-points-archived', { 'dateStarted[after]': since.slice(0, 10) }, settings)
		.catch(async (error: unknown) =>
			['403', '404'].includes(String((error as { httpCode?: unknown }).httpCode))
				? []
				: await Promise.reject(error),
		);
	const ids = [...live, ...archived].map((event) => changeId(event.id));
	return [...new Set(ids.filter((id): id is string => id !== null))];
}

/** Widget orders paid since `from` (the filter may be ignored: times are checked here too). */
async function widgetOrders(
	context: ApiContext,
	from: number,
	scope: LedgerScope,
	settings: PageSettings,
): Promise<IDataObject[]> {
	const qs = { 'payAt[after]': afterParam(from) };
	const orders = await apiRequestAllItems.call(context, '/widget-orders', qs, settings);
	return orders.filter((o) => (timeOf(o, 'payAt') ?? -Infinity) >= from && inEvents(scope, o));
}

async function widgetRefunds(
	context: ApiContext,
	scope: LedgerScope,
	settings: PageSettings,
): Promise<IDataObject[]> {
	const qs = { 'refundedAt[after]': afterParam(scope.from) };
	const refunds = await apiRequestAllItems.call(context, '/widget-orders-refunds', qs, settings);
	return refunds.filter((r) => within(scope, timeOf(r, 'refundedAt')) && inEvents(scope, r));
}

/** An event's orders paid since `from`, without the widget sales it lists too. */
async function eventOrders(
	context: ApiContext,
	eventId: string,
	from: number,
	settings: PageSettings,
	widget: Map<string, IDataObject>,
): Promise<{ sold: IDataObject[]; copies: number }> {
	const listed = await apiRequestAllItems.call(
		context,
		path`/event-points/${eventId}/orders`,
		{ 'payAt[after]': afterParam(from) },
		settings,
	);
	const paid = listed.filter((o) => (timeOf(o, 'payAt') ?? -Infinity) >= from);
	const sold = paid.filter((o) => {
		const twin = widget.get(changeId(o.id) ?? '');
		return !(twin && sameSale(twin, o));
	});
	return { sold, copies: paid.length - sold.length };
}

/** Each order read whole (GET /orders/{id}), Pages Read at Once at a time, in the listed order. */
export async function readWhole(
	context: ApiContext,
	orders: IDataObject[],
	settings: PageSettings,
): Promise<IDataObject[]> {
	const read: IDataObject[] = [];
	const window = settings.maxPagesInFlight ?? MAX_PAGES_IN_FLIGHT;
	const { retry, language, itemIndex } = settings;
	await inOrder(
		async (i) =>
			await apiRequest.call<ApiContext, Parameters<typeof apiRequest>, Promise<IDataObject>>(
				context,
				'GET',
				path`/orders/${changeId(orders[i].id) ?? ''}`,
				{},
				{ retry, language, itemIndex },
			),
		0,
		orders.length - 1,
		window,
		(i, order) => {
			read[i] = order;
			return true;
		},
		{ ahead: Infinity },
	);
	return read;
}

/** The API channel's rows of the period: each order paid since the look-back, read whole. */
async function apiRows(
	context: ApiContext,
	scope: LedgerScope,
	settings: PageSettings,
	widget: Map<string, IDataObject>,
): Promise<{ rows: LedgerRow[]; whole: IDataObject[]; events: number; copies: number }> {
	const from = scope.from - scope.refundLookBackMs;
	const ids = await eventIdsOf(context, scope, settings);
	const sold: IDataObject[] = [];
	let copies = 0;
	for (const id of ids) {
		const listed = await eventOrders(context, id, from, settings, widget);
		sold.push(...listed.sold);
		copies += listed.copies;
	}
	const whole = await readWhole(context, sold, settings);
	const rows = whole.flatMap((order) => {
		const [sale, ...refunds] = apiOrderRows(order);
		const paidInPeriod = within(scope, changeTime(sale.at));
		// A refund without a stated time goes with its sale's period.
		const kept = refunds.filter((r) =>
			r.at === null ? paidInPeriod : within(scope, changeTime(r.at)),
		);
		return [...(paidInPeriod ? [sale] : []), ...kept];
	});
	return { rows, whole, events: ids.length, copies };
}

const byTime = (a: LedgerRow, b: LedgerRow) =>
	(changeTime(a.at) ?? Infinity) - (changeTime(b.at) ?? Infinity) ||
	(a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * The ledger rows of a period, every channel asked for, with event names: widget sales and refunds
 * from their lists, API orders from each event's list, read whole for their tickets and refunds. A
 * widget sale an event's list shows too (same number, event, total and payment time) is counted
 * once, as a widget sale. Any read that fails fails the whole: a part of the ledger is never
 * given as the whole.
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
	const orders =
		wantsWidget || wantsApi ? await widgetOrders(context, widgetFrom, scope, list) : [];
	const widget = new Map(orders.map((o) => [changeId(o.id) ?? '', o]));
	const rows: LedgerRow[] = [];
	const sold = wantsWidget ? orders.filter((o) => within(scope, timeOf(o, 'payAt'))) : [];
	const refunds = wantsWidget ? await widgetRefunds(context, scope, list) : [];
	rows.push(...sold.map((o) => saleRow(o, 'widget')));
	rows.push(
		...refunds.map((r) => widgetRefundRow(r, widget.get(changeId(r.order ?? r.orderId) ?? ''))),
	);
	const api = wantsApi
		? await apiRows(context, scope, list, widget)
		: { rows: [], whole: [], events: 0, copies: 0 };
	rows.push(...api.rows);
	const named = await new EventNames(context, list).fill(rows);
	return {
		rows: named.sort(byTime),
		ordersRead: api.whole.length,
		events: api.events,
		copies: api.copies,
		records: { widgetOrders: sold, apiOrders: api.whole, widgetRefunds: refunds },
	};
}
