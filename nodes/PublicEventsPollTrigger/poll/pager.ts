import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { changeTime } from '../../shared/changes';
import {
	apiRequest,
	MAX_PAGE_SIZE,
	MAX_PAGES_IN_FLIGHT,
	serviceNow,
	type RequestSettings,
} from '../../shared/transport';
import { readListPage } from '../../shared/transport/listEnvelope';
import { inOrder } from '../../shared/transport/pages';
import { afterParam, recordId, type FeedRecord } from './feed';

/** Records one reading may take: past it the feed fails rather than read on forever. */
const MAX_RECORDS = 100_000;
/**
 * Places each page shares with the one before it. Two records may leave the list between two
 * pages' answers and the pages still share one, which proves nothing was skipped between them.
 */
export const OVERLAP = 3;

export interface WindowRequest {
	path: string;
	/** The record's time field: the `[after]` filter and the sort asked for. */
	time: string;
	lower: number;
	/** Records worth keeping (not emitted before). */
	keep: (record: FeedRecord) => boolean;
	/** Keep at most this many, the oldest; Infinity: all. */
	limit: number;
	settings: RequestSettings;
}

export interface WindowRead {
	/** The records kept, each id once, oldest first. */
	records: FeedRecord[];
	/**
	 * Records at or after this time may be unread or dropped (a chunk ended there, or the list moved
	 * under the reading so that one may have been skipped).
	 */
	horizon?: number;
	/** The service's time when the reading began, by its Date header (estimated low). */
	serviceTime: number;
}

/** The places of the list one request covers: `page` of `size` items, from `start` to `end`. */
export interface Span {
	page: number;
	size: number;
	start: number;
	end: number;
}

const FIRST_SPAN: Span = { page: 1, size: MAX_PAGE_SIZE, start: 0, end: MAX_PAGE_SIZE };

/**
 * The request that reaches furthest past `end` while starting OVERLAP places before it: a page
 * number and a page size (at most MAX_PAGE_SIZE) whose product lands there. Sizes fall from 97
 * towards 73 and jump back as the numbers line up: some 86 new places a request.
 */
export function spanAfter(end: number): Span {
	let best: Span | undefined;
	for (let size = MAX_PAGE_SIZE; size > 0; size--) {
		const page = Math.floor((end - OVERLAP) / size) + 1;
		if (!best || page * size > best.end)
			best = { page, size, start: (page - 1) * size, end: page * size };
	}
	return best!;
}

/** The spans of one reading, the n-th (from 1) made when first asked for. */
class Spans {
	private readonly list = [FIRST_SPAN];

	at(n: number): Span {
		while (this.list.length < n) this.list.push(spanAfter(this.list[this.list.length - 1].end));
		return this.list[n - 1];
	}

	/** The first span that reaches `total` places. */
	covering(total: number): number {
		let n = 1;
		while (this.at(n).end < total) n++;
		return n;
	}
}

interface Page {
	span: Span;
	/** Every item in the service's order (records without a time too), with its time if any. */
	entries: Array<{ id: string; time?: number }>;
	records: FeedRecord[];
	full: boolean;
	total?: number;
}

const byTime = (a: FeedRecord, b: FeedRecord) =>
	a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The kept records of one pass, at most `limit` (the oldest; trimmed as pages come in). */
class Kept {
	private byId = new Map<string, FeedRecord>();
	horizon?: number;

	constructor(private readonly request: WindowRequest) {}

	get size() {
		return this.byId.size;
	}

	add(records: FeedRecord[]) {
		for (const record of records)
			if (!this.byId.has(record.id) && this.request.keep(record)) this.byId.set(record.id, record);
		if (this.byId.size > 2 * this.request.limit) this.trim();
	}

	stopAt(time: number | undefined) {
		if (time !== undefined) this.horizon = Math.min(this.horizon ?? Infinity, time);
	}

	trim(): FeedRecord[] {
		const sorted = [...this.byId.values()].sort(byTime);
		if (sorted.length <= this.request.limit) return sorted;
		this.stopAt(sorted[this.request.limit].time);
		const kept = sorted.slice(0, this.request.limit);
		this.byId = new Map(kept.map((record) => [record.id, record]));
		return kept;
	}
}

/** The order record times came in so far. */
class Order {
	last?: number;
	ascending = true;
	descending = true;

	see(records: FeedRecord[]) {
		for (const { time } of records) {
			if (this.last !== undefined && time < this.last) this.ascending = false;
			if (this.last !== undefined && time > this.last) this.descending = false;
			this.last = time;
		}
	}
}

/** Whether two pages share an item (same id, same time): no record can lie unread between them. */
function linked(before: Page, after: Page): boolean {
	const times = new Map(before.entries.map(({ id, time }) => [id, time]));
	return after.entries.some(({ id, time }) => times.has(id) && times.get(id) === time);
}

/**
 * Every record of a feed from `lower` on, or the oldest `limit` of them, asking the service to
 * filter and sort (both are checked here, not trusted).
 *
 * Pages shift under a reader when records come or go during the reading: one that leaves moves
 * every later record one place back, and the record that crossed the boundary into a page already
 * read is on no page. So each page after the first starts OVERLAP places before the previous one
 * ends (a page size that makes its page number land there), and a page that shares no item with
 * the one before it is not trusted: whatever lies between them may be unread. In a list that is
 * oldest first the reading ends at the last page it trusts, the horizon at the last record read,
 * and the next poll goes on from there; in any other order nothing of it moves the feed's place,
 * and the next poll reads it all again. Pages that share an item prove, whatever came or went and
 * in whatever order the pages were answered, that every record present throughout was read once
 * the last page is short: so pages go several at once in an oldest-first list, and one after
 * another in any other (new records come first there, and each one moves every page).
 */
export async function readWindow(
	this: IPollFunctions,
	request: WindowRequest,
): Promise<WindowRead> {
	const { path, time, settings } = request;
	const qs = { [`${time}[after]`]: afterParam(request.lower), [`order[${time}]`]: 'asc' };
	const spans = new Spans();
	const fetchPage = async (n: number, onThrottle?: (sentAt: number) => void): Promise<Page> => {
		const span = spans.at(n);
		const body = await apiRequest.call(
			this,
			'GET',
			path,
			{ qs: { ...qs, page: span.page, itemsPerPage: span.size } },
			{ ...settings, onThrottle },
		);
		const list = readListPage(body);
		if (!list)
			throw new Error(
				`The answer to GET ${path} is not a list this node can read (a ` +
					`JSON array, or an object with hydra:member, member, items or data)`,
			);
		const entries = list.items.map((json: IDataObject) => ({
			id: recordId(json),
			time: changeTime(json[time]),
		}));
		const records: FeedRecord[] = [];
		list.items.forEach((json, i) => {
			const at = entries[i].time;
			if (at !== undefined) records.push({ id: entries[i].id, time: at, json });
		});
		return { span, entries, records, full: list.items.length >= span.size, total: list.total };
	};

	const before = await serviceNow(this);
	const first = await fetchPage(1);
	const after = await serviceNow(this);
	// Whole seconds in the Date header, and an earlier answer of this run may be older: the lower
	// estimate, a second less.
	const known = Math.min(before ?? Infinity, after ?? Infinity);
	// A service that sends no Date header leaves this machine's clock; the overlap window then guards
	// alone.
	const serviceTime = Number.isFinite(known) ? known - 1000 : Date.now();

	const kept = await readPages(first, fetchPage, spans, request);
	return { records: kept.trim(), horizon: kept.horizon, serviceTime };
}

type Fetch = (n: number, onThrottle?: (sentAt: number) => void) => Promise<Page>;

/** The pages after the first, checked one by one in list order, until a short one. */
async function readPages(
	first: Page,
	fetchPage: Fetch,
	spans: Spans,
	request: WindowRequest,
): Promise<Kept> {
	const kept = new Kept(request);
	const order = new Order();
	const read = new Set<string>();
	let previous: Page | undefined;
	let reading = true;
	const take = (page: Page): boolean => {
		if (previous && !linked(previous, page)) {
			if (order.ascending) {
				// What follows the last record read is newer: the next poll starts there.
				kept.stopAt(order.last ?? request.lower);
				return (reading = false);
			}
			// Anywhere in the window: the feed keeps its place.
			kept.stopAt(request.lower);
		}
		const fresh = page.records.filter((record) => !read.has(record.id));
		if (page.full && page.entries.every(({ id }) => read.has(id)))
			throw new Error(
				`Page ${page.span.page} of GET ${request.path} (${page.span.size} a page) brings ` +
					'nothing new: the service seems to ignore the page parameter',
			);
		page.entries.forEach(({ id }) => read.add(id));
		order.see(fresh);
		kept.add(fresh);
		previous = page;
		if (!page.full) return (reading = false);
		// Oldest first so far: what follows is newer, so a chunk may end here.
		if (order.ascending && kept.size >= request.limit) {
			kept.stopAt(order.last);
			return (reading = false);
		}
		// Newest first so far: a page wholly before the window ends it (a service that ignores the
		// filter).
		if (order.descending && fresh.length > 0 && fresh.every((r) => r.time < request.lower))
			return (reading = false);
		if (page.span.end >= MAX_RECORDS) throw tooLong(request.path);
		return true;
	};
	take(first);
	const inFlight = order.ascending ? MAX_PAGES_IN_FLIGHT : 1;
	// A stated total bounds the pages sent ahead; a total too low is read past, one page at a time,
	// to a short page.
	const lastByTotal =
		first.total === undefined
			? spans.covering(MAX_RECORDS)
			: Math.max(2, spans.covering(first.total));
	let next = 2;
	if (reading && inFlight > 1) {
		await inOrder(fetchPage, 2, lastByTotal, inFlight, (_, page) => take(page));
		next = lastByTotal + 1;
	}
	for (; reading; next++) take(await fetchPage(next));
	return kept;
}

function tooLong(path: string): Error {
	return new Error(`GET ${path} listed more than ${MAX_RECORDS} records in one reading`);
}
