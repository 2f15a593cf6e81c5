import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime, eventOf } from '../changes';
import { path } from '../path';
import { afterParam } from '../widgetFeeds';
import {
	apiRequest,
	apiRequestAllItems,
	inOrder,
	MAX_PAGES_IN_FLIGHT,
	type ApiContext,
	type PageSettings,
	type RequestSettings,
} from '../transport';
import { apiOrderRows, moneyOf, sameSale, type LedgerRow } from './rows';
import type { LedgerScope } from './scope';

// The API channel of a ledger read: each event's orders, each read whole for its tickets.

const DAY = 24 * 3_600_000;

/** An answer that says the record is not there, or not this key's: no later read changes it. */
const gone = (error: unknown) =>
	['403', '404'].includes(String((error as { httpCode?: unknown }).httpCode));

const timeOf = (json: IDataObject, field: string) => changeTime(json[field]);

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
		.catch(async (error: unknown) => (gone(error) ? [] : await Promise.reject(error)));
	const ids = [...live, ...archived].map((event) => changeId(event.id));
	return [...new Set(ids.filter((id): id is string => id !== null))];
}

/**
 * An event's orders paid since `from`, without the widget sales it lists too. An event no longer
 * this key's (404: it ended, or was unlinked) has none to read, unless it was chosen.
 */
async function eventOrders(
	context: ApiContext,
	eventId: string,
	from: number,
	settings: PageSettings,
	{ widget, chosen }: { widget: Map<string, IDataObject>; chosen: boolean },
): Promise<{ sold: IDataObject[]; copies: number }> {
	const listed = await apiRequestAllItems
		.call(
			context,
			path`/event-points/${eventId}/orders`,
			{ 'payAt[after]': afterParam(from) },
			settings,
		)
		.catch(async (error: unknown) => (!chosen && gone(error) ? [] : await Promise.reject(error)));
	// A record of an event's list may leave out its event: it is the listed one.
	const paid = listed
		.filter((o) => (timeOf(o, 'payAt') ?? -Infinity) >= from)
		.map((o) => withEvent(o, eventId));
	const sold = paid.filter((o) => {
		const twin = widget.get(changeId(o.id) ?? '');
		return !(twin && sameSale(twin, o));
	});
	return { sold, copies: paid.length - sold.length };
}

/** The record with `eventPoint` set to the event it was listed under, when it names none. */
export const withEvent = (order: IDataObject, eventId: string): IDataObject =>
	eventOf(order) === null ? { ...order, eventPoint: eventId } : order;

/**
 * An order read whole, with what its listed record says and the read does not (the spec shows an
 * order's read with id, status, reservedToDate, totals and tickets only: its event and payment
 * time may be the list's alone). The read wins where it has a value.
 */
export function mergedRead(listed: IDataObject, read: IDataObject): IDataObject {
	const stated = Object.entries(read).filter(([, value]) => value !== null && value !== undefined);
	return { ...listed, ...Object.fromEntries(stated) };
}

/** Of an order's listings, the one the read shows it is: by its event, else by its total. */
function listingOf(read: IDataObject, listings: IDataObject[]): IDataObject {
	const event = eventOf(read);
	const total = moneyOf(read.totalPrice).amount;
	return (
		listings.find((listing) => event !== null && eventOf(listing) === event) ??
		listings.find((listing) => total !== null && moneyOf(listing.totalPrice).amount === total) ??
		listings[0]
	);
}

/**
 * A listed order read whole (GET /orders/{id}) and completed by its listed record (mergedRead);
 * undefined when this key cannot read it (404, 403: no API order of this key, such as a widget
 * order an event's list shows too).
 */
export async function readWholeOrder(
	context: ApiContext,
	listed: IDataObject | IDataObject[],
	settings: RequestSettings,
): Promise<IDataObject | undefined> {
	const listings = Array.isArray(listed) ? listed : [listed];
	const orderPath = path`/orders/${changeId(listings[0].id) ?? ''}`;
	return await apiRequest
		.call<ApiContext, Parameters<typeof apiRequest>, Promise<IDataObject>>(
			context,
			'GET',
			orderPath,
			{},
			settings,
		)
		.then((read) => mergedRead(listingOf(read, listings), read))
		.catch(async (error: unknown) => (gone(error) ? undefined : await Promise.reject(error)));
}

/**
 * Each order read whole (readWholeOrder), Pages Read at Once at a time, in the listed order. One
 * this key cannot read is left out: `unread` counts them. Any other failure fails all.
 */
export async function readWhole(
	context: ApiContext,
	orders: Array<IDataObject | IDataObject[]>,
	settings: PageSettings,
): Promise<{ orders: IDataObject[]; unread: number }> {
	const read: Array<IDataObject | undefined> = [];
	const { retry, language, itemIndex } = settings;
	await inOrder(
		async (i) => await readWholeOrder(context, orders[i], { retry, language, itemIndex }),
		0,
		orders.length - 1,
		settings.maxPagesInFlight ?? MAX_PAGES_IN_FLIGHT,
		(i, order) => {
			read[i] = order;
			return true;
		},
		{ ahead: Infinity },
	);
	const found = read.filter((order): order is IDataObject => order !== undefined);
	return { orders: found, unread: read.length - found.length };
}

const within = (scope: LedgerScope, at: number | undefined) =>
	at !== undefined && at >= scope.from && (scope.to === undefined || at < scope.to);

/**
 * The API channel's rows of the period: each order paid since the look-back, read whole. A refund
 * the service states no time for is dated `scope.now`, when this read first saw it, and counts
 * when that moment is in the period; `estimated` names those rows.
 */
export async function apiRows(
	context: ApiContext,
	scope: LedgerScope,
	settings: PageSettings,
	widget: Map<string, IDataObject>,
): Promise<{
	rows: LedgerRow[];
	whole: IDataObject[];
	events: number;
	copies: number;
	unread: number;
	estimated: Set<string>;
}> {
	const from = scope.from - scope.refundLookBackMs;
	const ids = await eventIdsOf(context, scope, settings);
	// An order listed twice (a list that repeats a record across pages, or under two events: a
	// widget order of the same number) is read once, and completed by the listing it matches.
	const sold = new Map<string, IDataObject[]>();
	let copies = 0;
	for (const id of ids) {
		const chosen = scope.eventIds !== undefined;
		const listed = await eventOrders(context, id, from, settings, { widget, chosen });
		for (const order of listed.sold) {
			const orderId = changeId(order.id) ?? '';
			if (sold.has(orderId)) copies++;
			sold.set(orderId, [...(sold.get(orderId) ?? []), order]);
		}
		copies += listed.copies;
	}
	const { orders: whole, unread } = await readWhole(context, [...sold.values()], settings);
	const estimated = new Set<string>();
	const rows = whole.flatMap((order) => {
		const [sale, ...refunds] = apiOrderRows(order);
		const kept = refunds.filter((refund) => {
			if (refund.at !== null) return within(scope, changeTime(refund.at));
			refund.at = new Date(scope.now).toISOString();
			estimated.add(refund.key);
			return within(scope, scope.now);
		});
		return [...(within(scope, changeTime(sale.at)) ? [sale] : []), ...kept];
	});
	return { rows, whole, events: ids.length, copies, unread, estimated };
}
