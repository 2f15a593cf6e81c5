import { sleep, type IDataObject } from 'n8n-workflow';

import { changeId, changeTime } from '../../shared/changes';
import { afterParam, WIDGET_REFUNDS, WIDGET_SALES, type FeedSpec } from '../../shared/widgetFeeds';
import {
	apiRequest,
	MAX_PAGE_SIZE,
	readListPage,
	type ApiContext,
	type RequestSettings,
} from '../../shared/transport';

/**
 * There is no GET /widget-orders/{id}: a widget sale or refund named by a notification is found
 * in its list, by the time filter and sort the poll trigger reads that list with, from a little
 * before the notification's time. A push comes moments after the sale, so the record is near the
 * top of the newest page: one request in the common case. When that page is full without it (a
 * retry delivered after many more sales), the list is read oldest first from the same time, where
 * the record sits near the top however many came after it. The answer to the sender waits for
 * this, so the read is bounded: a record not listed yet (a service lists a payment a moment late)
 * is looked for again only after the listing waits, WIDGET_READS requests in all.
 */
export interface WidgetClaim {
	type: 'sale' | 'refund';
	orderId: string;
	/** The refund's own id, when the notification gives one. */
	refundId: string | null;
	/** The tickets a refund took back, when the notification names them (and no refund id). */
	ticketIds?: string[];
	/** The notification's time (ISO), where the search starts; null: the newest pages. */
	occurredAt: string | null;
}

/**
 * `missing`: not found; it may be listed later (or not be this key's). `beyond`: the pages the
 * bounds allow were read and the list went on: more records came after it than one lookup reads,
 * and later lookups, from the same time, find more of them, never fewer.
 */
export type WidgetLookup = { record: IDataObject } | { missing: string; beyond?: boolean };

export interface LookupBounds {
	/** Pages read per look after the newest one. */
	pages: number;
	/** Waits before looking again for a record that is not listed yet. */
	waitsMs: number[];
}

/** Pages read per look after the newest, oldest first from the notification's time. */
export const WIDGET_PAGES = 3;
/**
 * How far before the notification's time the record's own may lie: the sender's clock, a
 * notification sent a while after the payment.
 */
export const WIDGET_SLACK_MS = 5 * 60_000;
/** Waits before looking again for a record that is not listed yet. */
export const LISTING_WAITS_MS = [250, 750];
/** What one delivery's lookup may take (Fetch Full Order). */
export const DELIVERY_BOUNDS: LookupBounds = { pages: WIDGET_PAGES, waitsMs: LISTING_WAITS_MS };
/** Requests one lookup with DELIVERY_BOUNDS sends at most, all looks together. */
export const WIDGET_READS = 1 + WIDGET_PAGES + LISTING_WAITS_MS.length;

const orderOf = (item: IDataObject) => changeId(item.order ?? item.orderId);

/** One look: the record, the end of the list without it, or the pages read without it. */
type Look = WidgetLookup | { ended: true };

/** One lookup: what it looks for, where, and the requests it has sent so far (all looks). */
interface Search {
	context: ApiContext;
	claim: WidgetClaim;
	spec: FeedSpec;
	/** The `[after]` filter, a little before the claim's time; undefined: the newest pages. */
	from?: string;
	settings: RequestSettings;
	bounds: LookupBounds;
	reads: number;
	maxReads: number;
}

const matches = (claim: WidgetClaim, item: IDataObject) =>
	claim.type === 'sale'
		? changeId(item.id) === claim.orderId
		: orderOf(item) === claim.orderId &&
			(claim.refundId !== null
				? changeId(item.id) === claim.refundId
				: sameTickets(claim.ticketIds, item.tickets));

/** A refund naming no id is the one of the tickets it names, when it names any. */
function sameTickets(named: string[] | undefined, tickets: unknown): boolean {
	if (!named || named.length === 0) return true;
	const taken = (Array.isArray(tickets) ? tickets : []).map((ticket) =>
		String(changeId(ticket) ?? ''),
	);
	return [...named].sort().join() === [...taken].sort().join();
}

const newest = (spec: FeedSpec, records: IDataObject[]) =>
	records.reduce((a, b) =>
		(changeTime(b[spec.time]) ?? 0) > (changeTime(a[spec.time]) ?? 0) ? b : a,
	);

/** The record looked for, as the messages name it. */
const described = (claim: WidgetClaim) =>
	claim.type === 'sale'
		? `widget order ${claim.orderId}`
		: `the refund${claim.refundId === null ? '' : ` ${claim.refundId}`} of widget order ` +
			claim.orderId;

/** One page: the record, the end of the list, or on to the next page (undefined). */
async function readPage(
	search: Search,
	direction: 'asc' | 'desc',
	page: number,
): Promise<Look | undefined> {
	const { spec, from, claim } = search;
	search.reads++;
	const qs: IDataObject = {
		...(from === undefined ? {} : { [`${spec.time}[after]`]: from }),
		[`order[${spec.time}]`]: direction,
		itemsPerPage: MAX_PAGE_SIZE,
		page,
	};
	const answer = await apiRequest.call(search.context, 'GET', spec.path, { qs }, search.settings);
	const list = readListPage(answer);
	if (!list) return { missing: `GET ${spec.path} answered something that is not a list` };
	const found = list.items.filter((item) => matches(claim, item));
	if (found.length > 0) return { record: newest(spec, found) };
	const last =
		list.items.length < MAX_PAGE_SIZE ||
		(list.total !== undefined && page * MAX_PAGE_SIZE >= list.total);
	return last ? { ended: true } : undefined;
}

/** One look: the newest page, then the pages the bounds allow. */
async function look(search: Search): Promise<Look> {
	const { spec, from, bounds } = search;
	const first = await readPage(search, 'desc', 1);
	if (first) return first;
	// Without a time the newest pages are all there is to read; with one, oldest first from it.
	const [direction, start] = from === undefined ? (['desc', 2] as const) : (['asc', 1] as const);
	for (let page = start; page < start + bounds.pages && search.reads < search.maxReads; page++) {
		const seen = await readPage(search, direction, page);
		if (seen) return seen;
	}
	const more = from === undefined ? 'more' : 'oldest first';
	return {
		beyond: true,
		missing:
			`${described(search.claim)} is not among the records of GET ${spec.path}` +
			`${from === undefined ? '' : ` from ${from} on`} that one delivery reads (the newest ` +
			`page, then ${bounds.pages} of ${MAX_PAGE_SIZE} ${more})`,
	};
}

/**
 * The widget order of a sale, or the widget refund of a refund (the newest of the order's when the
 * claim names no refund id); `missing` says why it was not found.
 */
export async function findWidgetRecord(
	this: ApiContext,
	claim: WidgetClaim,
	settings: RequestSettings,
	bounds: LookupBounds = DELIVERY_BOUNDS,
): Promise<WidgetLookup> {
	const spec = claim.type === 'sale' ? WIDGET_SALES : WIDGET_REFUNDS;
	const time = changeTime(claim.occurredAt ?? undefined);
	const from = time === undefined ? undefined : afterParam(time - WIDGET_SLACK_MS);
	const maxReads = 1 + bounds.pages + bounds.waitsMs.length;
	const search: Search = { context: this, claim, spec, from, settings, bounds, reads: 0, maxReads };
	let looks = 0;
	let waited = 0;
	for (const wait of [...bounds.waitsMs, undefined]) {
		looks++;
		const seen = await look(search);
		if (!('ended' in seen)) return seen;
		if (wait === undefined || search.reads >= maxReads) break;
		await sleep(wait);
		waited += wait;
	}
	return {
		missing:
			`${described(claim)} is not listed in GET ${spec.path}` +
			`${from === undefined ? '' : ` from ${from} on`}` +
			`${looks > 1 ? ` (looked ${looks} times in ${waited} ms)` : ''}: not listed yet, or not ` +
			"this key's",
	};
}
