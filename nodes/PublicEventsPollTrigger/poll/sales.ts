import { NodeApiError, NodeOperationError, type INode, type IPollFunctions } from 'n8n-workflow';

import {
	apiRequest,
	CREDENTIAL_TYPE,
	serviceNow,
	type RequestSettings,
} from '../../shared/transport';
import { advance, feedFrom, type FeedRecord, type FeedState } from './feed';
import { watchedEvents } from './events';
import type { Change } from './items';
import { readWindow, type WindowRead } from './pager';
import type { PollSettings } from './settings';
import { eventOrders, inParallel, WIDGET_REFUNDS, WIDGET_SALES, type FeedSpec } from './specs';
import type { PollState } from './state';

/**
 * Records one poll emits at most, the oldest across feeds. A catch-up after downtime goes in
 * chunks, each saved as n8n starts its execution, the next at the next scheduled poll: an
 * execution holds its items in memory and the editor shows them (5,000 orders with tickets are
 * some 10 MB), and a chunk is 50 pages, well under a minute even at a second a page.
 */
export const POLL_BUDGET = 5_000;
/**
 * A feed failing this many polls in a row fails the poll (naming it) even when other feeds have
 * items, and again every as many polls.
 */
export const REPORT_EVERY = 3;
/** Feeds of events that left the list are kept this long, so an event back on sale resumes. */
const IDLE_KEEP_MS = 30 * 24 * 3_600_000;

interface Planned {
	spec: FeedSpec;
	feed: FeedState;
	/** False on a feed's first reading without Start From: what is there already is not new. */
	emit: boolean;
	/** All Visible Events: the event may have gone (404 means: stop reading it). */
	eventId?: string;
	/** The event left the list: this is its last reading. */
	leaving?: boolean;
}

type Outcome = { read: WindowRead; feed: FeedState } | { gone: true } | { error: Error };

const byTime = (a: FeedRecord, b: FeedRecord) =>
	a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The oldest POLL_BUDGET records across feeds; a feed whose records were left out gets a horizon at
 * the first of them.
 */
class Budget {
	private held: Array<{ index: number; record: FeedRecord }> = [];
	readonly horizons = new Map<number, number>();

	add(index: number, records: FeedRecord[]) {
		for (const record of records) this.held.push({ index, record });
		if (this.held.length > 2 * POLL_BUDGET) this.trim();
	}

	trim() {
		this.held.sort((a, b) => byTime(a.record, b.record));
		for (const { index, record } of this.held.slice(POLL_BUDGET))
			this.horizons.set(index, Math.min(this.horizons.get(index) ?? Infinity, record.time));
		this.held = this.held.slice(0, POLL_BUDGET);
	}

	recordsOf(index: number): FeedRecord[] {
		return this.held.filter((entry) => entry.index === index).map((entry) => entry.record);
	}
}

/**
 * The service's time, for where "from now on" starts. A run that has had no answer yet (the
 * first poll after activation) asks for one event, which every key may list, only to read the
 * Date header of the answer: one request, at activation only.
 */
async function serviceClock(this: IPollFunctions, settings: RequestSettings): Promise<number> {
	let time = await serviceNow(this);
	if (time === undefined) {
		await apiRequest.call(
			this,
			'GET',
			'/event-points',
			{ qs: { page: 1, itemsPerPage: 1 } },
			settings,
		);
		time = await serviceNow(this);
	}
	// A service that sends no Date header leaves this machine's clock.
	return time ?? Date.now();
}

/**
 * The error of a feed that could not be read, naming it: the transport's own error (status, body,
 * what to do) with the feed's name in front, so n8n's error workflow sees the HTTP code too.
 */
function feedError(
	node: INode,
	failed: Array<{ planned: Planned; error: Error; failures: number }>,
	othersWentOn: boolean,
): Error {
	const [first] = failed;
	const names = failed.map(({ planned }) => planned.spec.label).join(', ');
	const inARow = first.failures > 1 ? ` in ${first.failures} polls in a row` : '';
	const message = `${names} could not be read${inARow}: ${first.error.message}`;
	const note = othersWentOn
		? 'The other feeds went on: their records are emitted and their place saved. This ' +
			'one resumes where it stopped once it can be read; its records wait in the service.'
		: '';
	if (first.error instanceof NodeApiError || first.error instanceof NodeOperationError) {
		first.error.message = message;
		first.error.description = [first.error.description, note].filter(Boolean).join(' ');
		return first.error;
	}
	return new NodeOperationError(node, message, { description: note || undefined });
}

/**
 * One poll of Sales and Refunds: the changes to emit and the state to save, or the error to report.
 */
export async function pollSales(
	this: IPollFunctions,
	settings: PollSettings,
	saved: PollState | undefined,
	now: number,
): Promise<{ changes: Change[]; state?: PollState; error?: Error }> {
	const { overlapMs, lagMs, startFrom } = settings;
	// First activation, or a new Start From: start over. Without Start From, start from the service's
	// now.
	const restart =
		!saved || (settings.startFromKey !== '' && settings.startFromKey !== saved.startFromKey);
	const backfill = restart && startFrom !== undefined;
	const old = restart ? {} : saved.feeds;
	let clock: number | undefined;
	const start = async () => (clock ??= await serviceClock.call(this, settings.request));

	const plan: Planned[] = [];
	const resumeOrStart = async (spec: FeedSpec, extra: Partial<Planned> = {}): Promise<Planned> => {
		const existing = old[spec.key];
		if (existing)
			return {
				spec,
				feed: { cursor: existing.cursor, from: existing.from, seen: existing.seen },
				emit: true,
				...extra,
			};
		if (backfill) return { spec, feed: feedFrom(startFrom), emit: true, ...extra };
		// A feed read for the first time marks what the service already holds as seen, emitting
		// nothing.
		const at = await start();
		return { spec, feed: { cursor: at, from: at - overlapMs, seen: {} }, emit: false, ...extra };
	};
	// The event list first: its answer tells the service's time, which a first reading needs.
	const previous = restart ? undefined : saved.events;
	const watch =
		settings.include.includes('eventOrders') && !settings.eventIds
			? await watchedEvents.call(this, previous, now, settings.request)
			: undefined;
	if (settings.include.includes('widgetSales')) plan.push(await resumeOrStart(WIDGET_SALES));
	let events: PollState['events'];
	if (settings.include.includes('eventOrders')) {
		if (!watch) {
			for (const id of settings.eventIds ?? []) plan.push(await resumeOrStart(eventOrders(id)));
		} else {
			// An event that appears after the first listing: its orders since the watch began are all
			// new.
			events = {
				...watch.events,
				from: watch.events.from ?? (backfill ? startFrom : (await start()) - overlapMs),
			};
			for (const id of watch.ids) {
				const spec = eventOrders(id);
				// (Or since the idle feeds' horizon: an event back after that long has no feed left to
				// resume.)
				const discovered = previous && !old[spec.key];
				const from = Math.max(events.from, now - IDLE_KEEP_MS);
				plan.push(
					discovered
						? { spec, feed: feedFrom(from), emit: true, eventId: id }
						: await resumeOrStart(spec, { eventId: id }),
				);
			}
			for (const id of watch.left)
				if (old[eventOrders(id).key])
					plan.push(await resumeOrStart(eventOrders(id), { eventId: id, leaving: true }));
		}
	}
	if (settings.include.includes('widgetRefunds')) plan.push(await resumeOrStart(WIDGET_REFUNDS));

	const budget = new Budget();
	const read = async (planned: Planned, index: number): Promise<Outcome> => {
		const { spec } = planned;
		const window = (feed: FeedState) =>
			readWindow.call(this, {
				path: spec.path,
				time: spec.time,
				lower: feed.from,
				keep: (record) => record.time >= feed.from && feed.seen[record.id] === undefined,
				limit: planned.emit ? POLL_BUDGET : Infinity,
				settings: settings.request,
			});
		try {
			let feed = planned.feed;
			let got = await window(feed);
			if (feed.from > got.serviceTime + overlapMs) {
				// A window ahead of the service's time: saved while a future-dated record could still move
				// the cursor, or the service's clock was set back. Read again from the service's time;
				// records there that were emitted before their ids left `seen` may come once more.
				feed = { ...feed, cursor: got.serviceTime, from: got.serviceTime - overlapMs };
				got = await window(feed);
			}
			if (planned.emit) budget.add(index, got.records);
			return { read: got, feed };
		} catch (error) {
			// All Visible Events: an event no longer linked to the company answers 404; stop reading it.
			if (planned.eventId !== undefined && (error as NodeApiError).httpCode === '404')
				return { gone: true };
			return { error: error as Error };
		}
	};
	// Without a token yet, feeds read at once would each request one: the first goes alone.
	const alone = (await this.getCredentials(CREDENTIAL_TYPE)).token ? 0 : 1;
	const outcomes = [
		...(await inParallel(plan.slice(0, alone), read)),
		...(await inParallel(plan.slice(alone), (p, i) => read(p, i + alone))),
	];
	budget.trim();

	const changes: Change[] = [];
	const feeds: Record<string, FeedState> = {};
	const failed: Array<{ planned: Planned; error: Error; failures: number }> = [];
	plan.forEach((planned, i) => {
		const { key } = planned.spec;
		const outcome = outcomes[i];
		if ('gone' in outcome) {
			if (old[key]) feeds[key] = { ...planned.feed, idleSince: now };
			if (events) events = { ...events, ids: events.ids.filter((id) => id !== planned.eventId) };
			return;
		}
		if ('error' in outcome) {
			// Its place stays; a feed read for the first time (nothing to emit) is simply read again next
			// time.
			const failures = (old[key]?.failures ?? 0) + 1;
			failed.push({ planned, error: outcome.error, failures });
			if (planned.emit)
				feeds[key] = { ...planned.feed, failures, ...(planned.leaving ? { idleSince: now } : {}) };
			return;
		}
		const horizon = Math.min(outcome.read.horizon ?? Infinity, budget.horizons.get(i) ?? Infinity);
		const records = planned.emit ? budget.recordsOf(i) : outcome.read.records;
		const bounds = {
			serviceTime: outcome.read.serviceTime,
			overlapMs,
			lagMs,
			...(horizon < Infinity ? { horizon } : {}),
		};
		const { fresh, next } = advance(outcome.feed, records, bounds);
		if (planned.emit)
			changes.push(
				...fresh.map((r) => ({
					type: planned.spec.type,
					source: planned.spec.source,
					time: r.time,
					json: r.json,
				})),
			);
		// A page that failed after the oldest ones were read: they go out, the feed still counts as
		// failing.
		feeds[key] = planned.leaving ? { ...next, idleSince: now } : next;
	});
	// Nothing else to emit: the poll fails, naming the feed, and nothing moves (as any failed poll).
	if (failed.length > 0 && changes.length === 0)
		return { changes: [], error: feedError(this.getNode(), failed, false) };
	if (!restart && failed.some(({ failures }) => failures % REPORT_EVERY === 0)) {
		// Others had items: every third failure in a row fails the poll all the same, lest it go
		// unseen. Only the failure counts move (in n8n's memory), so what the other feeds found comes
		// with the next poll.
		const counted = failed
			.filter(({ planned }) => old[planned.spec.key])
			.map(({ planned, failures }) => [planned.spec.key, { ...old[planned.spec.key], failures }]);
		return {
			changes: [],
			state: { ...saved, feeds: { ...saved.feeds, ...Object.fromEntries(counted) } },
			error: feedError(this.getNode(), failed, true),
		};
	}
	if (events) {
		// Feeds of events no longer listed rest 30 days, so an event whose sale is extended resumes
		// where it stopped.
		for (const [key, feed] of Object.entries(old)) {
			if (!feeds[key] && feed.idleSince !== undefined && now - feed.idleSince < IDLE_KEEP_MS)
				feeds[key] = feed;
		}
	}
	const startFromKey = settings.startFromKey || saved?.startFromKey || '';
	return { changes, state: { version: 1, startFromKey, feeds, ...(events ? { events } : {}) } };
}
