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

/**
 * Pages one reading may take (100,000 records): past it the feed fails rather than read on forever.
 */
const MAX_PAGES = 1_000;

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
	/** Records at or after this time may be unread or dropped (a chunk ended there). */
	horizon?: number;
	/** The service's time when the reading began, by its Date header (estimated low). */
	serviceTime: number;
}

interface Page {
	number: number;
	/** Ids of every item, in the service's order (records without a time too). */
	ids: string[];
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

const sameIds = (a: string[], b: string[]) =>
	a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * Every record of a feed from `lower` on, or the oldest `limit` of them, asking the service to
 * filter and sort (both are checked here, not trusted). Pages shift under a reader when records
 * come or go during the reading; read one after another in page order, a record that came only
 * repeats an item (dropped by id). Pages in flight are safe only in a list sorted oldest first, and
 * only if nothing came in the middle; so they are used when page 1 is oldest first, and the pass is
 * checked: ascending throughout, no id on two pages, and the last page read again unchanged (or
 * only grown by new ids). Any doubt reads the window again, page after page.
 */
export async function readWindow(
	this: IPollFunctions,
	request: WindowRequest,
): Promise<WindowRead> {
	const { path, time, settings } = request;
	const qs = { [`${time}[after]`]: afterParam(request.lower), [`order[${time}]`]: 'asc' };
	const fetchPage = async (
		number: number,
		onThrottle?: (sentAt: number) => void,
	): Promise<Page> => {
		const body = await apiRequest.call(
			this,
			'GET',
			path,
			{ qs: { ...qs, page: number, itemsPerPage: MAX_PAGE_SIZE } },
			{ ...settings, onThrottle },
		);
		const list = readListPage(body);
		if (!list)
			throw new Error(
				`The answer to GET ${path} is not a list this node can read (a ` +
					`JSON array, or an object with hydra:member, member, items or data)`,
			);
		const records: FeedRecord[] = [];
		for (const json of list.items) {
			const at = changeTime(json[time]);
			if (at !== undefined) records.push({ id: recordId(json), time: at, json });
		}
		return {
			number,
			ids: list.items.map((json: IDataObject) => recordId(json)),
			records,
			full: list.items.length >= MAX_PAGE_SIZE,
			total: list.total,
		};
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

	const order = new Order();
	order.see(first.records);
	const kept =
		(order.ascending && first.full ? await parallelPass(first, fetchPage, request) : undefined) ??
		(await sequentialPass(first, fetchPage, request));
	return { records: kept.trim(), horizon: kept.horizon, serviceTime };
}

type Fetch = (number: number, onThrottle?: (sentAt: number) => void) => Promise<Page>;

/** Pages 2 onwards in flight (oldest first lists); undefined when the pass cannot be trusted. */
async function parallelPass(
	first: Page,
	fetchPage: Fetch,
	request: WindowRequest,
): Promise<Kept | undefined> {
	const kept = new Kept(request);
	const order = new Order();
	const read = new Set<string>();
	let last = first;
	let state: 'reading' | 'ended' | 'chunk' | 'unstable' = 'reading';
	const take = (page: Page): boolean => {
		order.see(page.records);
		if (!order.ascending || page.ids.some((id) => read.has(id))) {
			state = 'unstable';
			return false;
		}
		page.ids.forEach((id) => read.add(id));
		kept.add(page.records);
		last = page;
		if (!page.full) state = 'ended';
		// Enough for one poll: what follows is newer (oldest first), and is read next time.
		else if (kept.size >= request.limit) state = 'chunk';
		return state === 'reading';
	};
	take(first);
	// A stated total bounds the pages sent ahead; a total too low is read past, one page at a time,
	// to a short page.
	const lastByTotal =
		first.total === undefined
			? MAX_PAGES
			: Math.min(MAX_PAGES, Math.max(2, Math.ceil(first.total / MAX_PAGE_SIZE)));
	if (state === 'reading')
		await inOrder(fetchPage, 2, lastByTotal, MAX_PAGES_IN_FLIGHT, (_, page) => take(page));
	for (let number = last.number + 1; state === 'reading' && number <= MAX_PAGES; number++)
		take(await fetchPage(number));
	if (state === 'reading') throw tooLong(request.path);
	if (state === 'unstable') return undefined;
	if (state === 'chunk') kept.stopAt(order.last);
	// Pages 1 and 2 went out one after the other. From page 3 on, pages were in flight together: a
	// page served before a record came in the middle, and the page before it after, lost one item
	// between them; the last page read again shows any such shift.
	if (last.number <= 2) return kept;
	const again = await fetchPage(last.number);
	const added = again.ids.slice(last.ids.length);
	if (!last.ids.every((id, i) => again.ids[i] === id) || added.some((id) => read.has(id)))
		return undefined;
	kept.add(again.records.filter((record) => added.includes(record.id)));
	return kept;
}

/** Page after page from page 1 (page 1 is reused when given) until a short page. */
async function sequentialPass(
	first: Page | undefined,
	fetchPage: Fetch,
	request: WindowRequest,
): Promise<Kept> {
	const kept = new Kept(request);
	const order = new Order();
	let previous: Page | undefined;
	for (let number = 1; number <= MAX_PAGES; number++) {
		const page = number === 1 && first ? first : await fetchPage(number);
		if (previous && page.ids.length > 0 && sameIds(page.ids, previous.ids)) {
			throw new Error(
				`Page ${number} of GET ${request.path} repeats page ` +
					`${number - 1}: the service seems to ignore the page parameter`,
			);
		}
		order.see(page.records);
		kept.add(page.records);
		if (!page.full) return kept;
		// Oldest first so far: what follows is newer, so a chunk may end here.
		if (order.ascending && kept.size >= request.limit) {
			kept.stopAt(order.last);
			return kept;
		}
		// Newest first so far: a page wholly before the window ends it (a service that ignores the
		// filter).
		if (
			order.descending &&
			page.records.length > 0 &&
			page.records.every((record) => record.time < request.lower)
		)
			return kept;
		previous = page;
	}
	throw tooLong(request.path);
}

function tooLong(path: string): Error {
	return new Error(
		`GET ${path} listed more than ${MAX_PAGES * MAX_PAGE_SIZE} records in one reading`,
	);
}
