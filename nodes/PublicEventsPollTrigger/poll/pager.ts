import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { changeTime } from '../../shared/changes';
import {
	MAX_PAGES_IN_FLIGHT,
	Pager,
	serviceNow,
	type ListPage,
	type RequestSettings,
} from '../../shared/transport';
import type { PollBudget } from './budget';
import { afterParam } from '../../shared/widgetFeeds';
import { byTime, recordId, type FeedRecord } from './feed';
import { FIRST_SPAN, OVERLAP, spanAfter, Spans, type Span } from './spans';
import type { Pass } from './state';

/** Records one reading may take: past it the feed fails rather than read on forever. */
const MAX_RECORDS = 100_000;
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
	/** The poll's time: no page goes out once it would answer too late; none: read to the end. */
	budget?: PollBudget;
	/** Where an earlier poll's reading of a list in no usable order stopped (same `lower`). */
	pass?: Pass;
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
	/** The service's clock minus this machine's by the first answer; undefined without a Date. */
	offset?: number;
	/**
	 * A list in no usable order whose reading the budget or the record limit cut: where the next
	 * poll goes on. The records kept are emitted meanwhile; the feed keeps its place until a pass
	 * reaches the end.
	 */
	pass?: Pass;
	/** The service's time when the pass that reached the end began (this reading's, or earlier). */
	passBegan?: number;
}

interface Page {
	span: Span;
	/** Every item in the service's order (records without a time too), with its time if any. */
	entries: Array<{ id: string; time?: number }>;
	records: FeedRecord[];
	full: boolean;
	total?: number;
}

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
	descending = true;

	constructor(public ascending: boolean) {}

	/**
	 * A rise seen and no fall. Records all of one time (a burst sold in one second) tell no order:
	 * the list may be newest first, older records on the pages to come.
	 */
	get oldestFirst(): boolean {
		return this.ascending && !this.descending;
	}

	/** A fall seen and no rise (see oldestFirst). */
	get newestFirst(): boolean {
		return this.descending && !this.ascending;
	}

	see(records: FeedRecord[]) {
		for (const { time } of records) {
			if (this.last !== undefined && time < this.last) this.ascending = false;
			if (this.last !== undefined && time > this.last) this.descending = false;
			this.last = time;
		}
	}
}

type Entry = Page['entries'][number];

/** Whether two pages share an item (same id, same time): no record can lie unread between them. */
function linked(before: Entry[], after: Page): boolean {
	const times = new Map(before.map(({ id, time }) => [id, time]));
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
 *
 * A reading ends when the poll's budget or the record limit says so. In an oldest-first list the
 * next poll goes on from the last record read, as after an untrusted page. In any other order the
 * records read are kept all the same and the reading's place is saved (a pass): the next poll
 * starts where it stopped, OVERLAP places back, and must share an item with the last page read;
 * a pass that reaches the end moves the feed's place as one reading would, unless a page of it
 * was not trusted or records it read were left out.
 */
export async function readWindow(
	this: IPollFunctions,
	request: WindowRequest,
): Promise<WindowRead> {
	const { path, time, settings, budget, pass } = request;
	const spans = new Spans(pass ? spanAfter(pass.end) : FIRST_SPAN);
	const pager = new Pager(this, {
		path,
		qs: { [`${time}[after]`]: afterParam(request.lower), [`order[${time}]`]: 'asc' },
		settings,
		pageOf: (n) => ({ page: spans.at(n).page, itemsPerPage: spans.at(n).size }),
		unreadable: (reason) => new Error(reason),
		budget,
	});
	const before = await serviceNow(this);
	const first = pageOf(spans.at(1), await pager.first(), time);
	const after = await serviceNow(this);
	const offset = after === undefined ? undefined : after - Date.now();
	// Whole seconds in the Date header, and an earlier answer of this run may be older: the lower
	// estimate, a second less.
	const known = Math.min(before ?? Infinity, after ?? Infinity);
	// A service that sends no Date header leaves this machine's clock; the overlap window then guards
	// alone.
	const serviceTime = Number.isFinite(known) ? known - 1000 : Date.now();
	const reading = new Reading(request, pager);
	await reading.rest(first, spans);
	return resultOf(reading, request, { serviceTime, offset });
}

/** One page as the reading checks it. */
function pageOf(span: Span, list: ListPage, time: string): Page {
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
}

function resultOf(
	reading: Reading,
	request: WindowRequest,
	{ serviceTime, offset }: { serviceTime: number; offset?: number },
): WindowRead {
	const { kept, cutAt } = reading;
	const { pass } = request;
	const records = kept.trim();
	// Records of a pass were read past and left out (the limit): that pass proves nothing.
	const unproven = pass?.unproven || kept.horizon !== undefined || undefined;
	if (cutAt) {
		const next: Pass = {
			lower: request.lower,
			end: cutAt.span.end,
			tail: cutAt.entries.slice(-OVERLAP),
			began: pass?.began ?? serviceTime,
			...(unproven ? { unproven } : {}),
		};
		return { records, horizon: request.lower, serviceTime, offset, pass: next };
	}
	const horizon = pass?.unproven ? request.lower : kept.horizon;
	return { records, horizon, serviceTime, offset, passBegan: pass?.began };
}

/**
 * The pages of one reading, checked one by one in list order, until a short one, or a cut: the
 * page a reading in no usable order stopped after (budget or limit), for its pass.
 */
class Reading {
	readonly kept: Kept;
	cutAt?: Page;
	private going = true;
	private readonly order: Order;
	private readonly read: Set<string>;
	private previous?: Entry[];
	private lastRead?: Page;

	constructor(
		private readonly request: WindowRequest,
		private readonly pager: Pager,
	) {
		this.kept = new Kept(request);
		// A pass goes on in a list that was in no usable order.
		this.order = new Order(!request.pass);
		this.read = new Set<string>(request.pass?.tail.map(({ id }) => id));
		this.previous = request.pass?.tail;
	}

	/**
	 * The pages after the first: several at once in a list oldest first, up to the last a stated
	 * total allows; then, or in any other order, one at a time to a short page (a total too low is
	 * read past).
	 */
	async rest(first: Page, spans: Spans): Promise<void> {
		const { pager } = this;
		const take = (n: number, list: ListPage | undefined) =>
			this.take(list && pageOf(spans.at(n), list, this.request.time));
		this.take(first);
		const inFlight = this.order.oldestFirst ? MAX_PAGES_IN_FLIGHT : 1;
		const lastByTotal =
			first.total === undefined
				? spans.covering(MAX_RECORDS)
				: Math.max(2, spans.covering(first.total));
		let next = 2;
		if (this.going && inFlight > 1) {
			await pager.window(2, lastByTotal, inFlight, take);
			next = lastByTotal + 1;
		}
		if (this.going) await pager.window(next, Infinity, 1, take);
	}

	/** Whether to read on after `page`; none: the budget left none to send. */
	private take(page: Page | undefined): boolean {
		if (!page) return this.cut(this.lastRead!);
		const { kept, order, read, request } = this;
		const fresh = page.records.filter((record) => !read.has(record.id));
		const lastTime = order.last;
		// This page's records tell the order too, which pages all of one time do not.
		order.see(fresh);
		if (this.previous && !linked(this.previous, page)) {
			// What follows the last record read is newer: the next poll starts there.
			if (order.oldestFirst) return this.stop(lastTime ?? request.lower);
			// Anywhere in the window: the feed keeps its place.
			kept.stopAt(request.lower);
		}
		if (page.full && page.entries.every(({ id }) => read.has(id)))
			throw this.pager.ignoredPage(
				page.span.page,
				` (${page.span.size} a page) brings nothing new`,
			);
		page.entries.forEach(({ id }) => read.add(id));
		kept.add(fresh);
		this.previous = page.entries;
		this.lastRead = page;
		if (!page.full) return this.stop();
		// Newest first so far: a page wholly before what the filter asked (whole seconds) ends it (a
		// service that ignores the filter). Records of the window's first second are no sign of that.
		const asked = Date.parse(afterParam(request.lower));
		if (order.newestFirst && fresh.length > 0 && fresh.every((r) => r.time < asked))
			return this.stop();
		const { budget } = request;
		if (kept.size >= request.limit || (budget && !budget.allowsPage())) return this.cut(page);
		if (page.span.end >= MAX_RECORDS) throw tooLong(request.path);
		return true;
	}

	/** Ends the reading after `page`, in time for the budget or within the limit. */
	private cut(page: Page): boolean {
		// Oldest first: what follows is newer, so a chunk may end here.
		if (this.order.oldestFirst) this.kept.stopAt(this.order.last);
		else this.cutAt = page;
		return this.stop();
	}

	/** Ends the reading; records at or after `horizon`, if given, wait for the next poll. */
	private stop(horizon?: number): boolean {
		if (horizon !== undefined) this.kept.stopAt(horizon);
		return (this.going = false);
	}
}

function tooLong(path: string): Error {
	return new Error(`GET ${path} listed more than ${MAX_RECORDS} records in one reading`);
}
