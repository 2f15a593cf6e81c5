import type { IDataObject, IPollFunctions, NodeApiError } from 'n8n-workflow';

import { changeTime, type ChangeType } from '../../PublicEvents/shared/changes';
import { apiRequest, apiRequestAllItems, CREDENTIAL_TYPE, type RequestSettings } from '../../PublicEvents/transport';
import { readListPage } from '../../PublicEvents/transport/listEnvelope';
import { advance, afterParam, feedFrom, lowerBound, recordId, type FeedRecord, type FeedState } from './feed';
import { watchedEvents } from './events';
import type { Change, ItemSource } from './items';
import type { PollSettings } from './settings';
import type { PollState } from './state';

interface FeedSpec {
	key: string;
	source: ItemSource;
	type: ChangeType;
	path: string;
	/** The record's time field, also the name of the `[after]` filter and the sort. */
	time: string;
}

const WIDGET_SALES: FeedSpec = { key: 'widgetSales', source: 'widgetSales', type: 'sale', path: '/widget-orders', time: 'payAt' };
const WIDGET_REFUNDS: FeedSpec = { key: 'widgetRefunds', source: 'widgetRefunds', type: 'refund', path: '/widget-orders-refunds', time: 'refundedAt' };
// No `status` filter: every order with a payAt was sold, also one refunded before this poll,
// and an order turning from paid to refund mid-reading must not shift the pages under the
// reader. The spec shows `status` with one value; asking for two would guess at its syntax.
// Orders without payAt (holds) are dropped here, whatever the service does with payAt[after].
const eventOrders = (id: string): FeedSpec => ({
	key: `eventOrders:${id}`,
	source: 'eventOrders',
	type: 'sale',
	path: `/event-points/${id}/orders`,
	time: 'payAt',
});

/** Feeds of events that left the list are kept this long, so an event back on sale resumes. */
const IDLE_KEEP_MS = 30 * 24 * 3_600_000;
/** Feeds read at once. */
const CONCURRENCY = 4;

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

async function inParallel<T, R>(items: T[], run: (item: T) => Promise<R>): Promise<R[]> {
	const results: R[] = [];
	let next = 0;
	const worker = async () => {
		for (let i = next++; i < items.length; i = next++) results[i] = await run(items[i]);
	};
	await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
	return results;
}

function toRecords(spec: FeedSpec, items: IDataObject[]): FeedRecord[] {
	return items.flatMap((json) => {
		const time = changeTime(json[spec.time]);
		return time === undefined ? [] : [{ id: recordId(json), time, json }];
	});
}

/** Every record from `lower` on, asking the service to filter and sort (the node does both again). */
async function readFeed(this: IPollFunctions, spec: FeedSpec, lower: number, settings: RequestSettings): Promise<FeedRecord[]> {
	const qs = { [`${spec.time}[after]`]: afterParam(lower), [`order[${spec.time}]`]: 'asc' };
	return toRecords(spec, await apiRequestAllItems.call(this, spec.path, qs, settings));
}

/** One poll of Sales and Refunds: the changes to emit and the state to save. */
export async function pollSales(
	this: IPollFunctions,
	settings: PollSettings,
	saved: PollState | undefined,
	now: number,
): Promise<{ changes: Change[]; state: PollState }> {
	const { overlapMs, startFrom } = settings;
	// First activation, or a new Start From: start over. Without Start From, start from now.
	const restart = !saved || (settings.startFromKey !== '' && settings.startFromKey !== saved.startFromKey);
	const backfill = restart && startFrom !== undefined;
	const old = restart ? {} : saved.feeds;
	const resumeOrStart = (spec: FeedSpec, extra: Partial<Planned> = {}): Planned => {
		const existing = old[spec.key];
		if (existing) return { spec, feed: { cursor: existing.cursor, from: existing.from, seen: existing.seen }, emit: true, ...extra };
		if (backfill) return { spec, feed: feedFrom(startFrom), emit: true, ...extra };
		// A feed read for the first time marks what the service already holds as seen, emitting nothing.
		return { spec, feed: { cursor: now, from: now - overlapMs, seen: {} }, emit: false, ...extra };
	};

	const plan: Planned[] = [];
	if (settings.include.includes('widgetSales')) plan.push(resumeOrStart(WIDGET_SALES));
	let events: PollState['events'];
	if (settings.include.includes('eventOrders')) {
		if (settings.eventIds) {
			plan.push(...settings.eventIds.map((id) => resumeOrStart(eventOrders(id))));
		} else {
			const previous = restart ? undefined : saved.events;
			const watch = await watchedEvents.call(this, previous, now, backfill ? startFrom : now - overlapMs, settings.request);
			events = watch.events;
			for (const id of watch.ids) {
				const spec = eventOrders(id);
				// An event that appears after the first listing: its orders since the watch began are all new
				// (or since the idle feeds' horizon: an event back after that long has no feed left to resume).
				const discovered = previous && !old[spec.key];
				const from = Math.max(watch.events.from, now - IDLE_KEEP_MS);
				plan.push(discovered ? { spec, feed: feedFrom(from), emit: true, eventId: id } : resumeOrStart(spec, { eventId: id }));
			}
			for (const id of watch.left) if (old[eventOrders(id).key]) plan.push(resumeOrStart(eventOrders(id), { eventId: id, leaving: true }));
		}
	}
	if (settings.include.includes('widgetRefunds')) plan.push(resumeOrStart(WIDGET_REFUNDS));

	const read = async (planned: Planned) =>
		await readFeed.call(this, planned.spec, lowerBound(planned.feed, overlapMs), settings.request).catch((error: NodeApiError) => {
			// All Visible Events: an event no longer linked to the company answers 404; stop reading it.
			if (planned.eventId !== undefined && error.httpCode === '404') return undefined;
			throw error;
		});
	// Without a token yet, feeds read at once would each request one: the first goes alone.
	const alone = (await this.getCredentials(CREDENTIAL_TYPE)).token ? 0 : 1;
	const results = [...(await inParallel(plan.slice(0, alone), read)), ...(await inParallel(plan.slice(alone), read))];

	const changes: Change[] = [];
	const feeds: Record<string, FeedState> = {};
	plan.forEach((planned, i) => {
		const records = results[i];
		if (records === undefined) {
			if (old[planned.spec.key]) feeds[planned.spec.key] = { ...planned.feed, idleSince: now };
			if (events) events = { ...events, ids: events.ids.filter((id) => id !== planned.eventId) };
			return;
		}
		const { fresh, next } = advance(planned.feed, records, overlapMs);
		if (planned.emit) changes.push(...fresh.map((r) => ({ type: planned.spec.type, source: planned.spec.source, time: r.time, json: r.json })));
		feeds[planned.spec.key] = planned.leaving ? { ...next, idleSince: now } : next;
	});
	if (events) {
		// Feeds of events no longer listed rest 30 days, so an event whose sale is extended resumes where it stopped.
		for (const [key, feed] of Object.entries(old)) {
			if (!feeds[key] && feed.idleSince !== undefined && now - feed.idleSince < IDLE_KEEP_MS) feeds[key] = feed;
		}
	}
	const startFromKey = settings.startFromKey || saved?.startFromKey || '';
	return { changes, state: { version: 1, startFromKey, feeds, ...(events ? { events } : {}) } };
}

/** Manual runs: the most recent record of the included feeds, as a sample; the state is not touched. */
export async function sampleSales(this: IPollFunctions, settings: PollSettings, saved: PollState | undefined): Promise<Change[]> {
	const specs: FeedSpec[] = [];
	if (settings.include.includes('widgetSales')) specs.push(WIDGET_SALES);
	if (settings.include.includes('widgetRefunds')) specs.push(WIDGET_REFUNDS);
	if (settings.include.includes('eventOrders')) {
		const ids = settings.eventIds ?? saved?.events?.ids ?? (await apiRequestAllItems.call(this, '/event-points', {}, settings.request)).map(recordId);
		specs.push(...ids.map(eventOrders));
	}
	const newest = await inParallel(specs, async (spec) => {
		// Newest first when the service sorts; the node picks the newest of the page either way.
		const qs = { [`order[${spec.time}]`]: 'desc', page: 1, itemsPerPage: 10 };
		const body = await apiRequest.call(this, 'GET', spec.path, { qs }, settings.request);
		const records = toRecords(spec, readListPage(body)?.items ?? []).sort((a, b) => b.time - a.time);
		return records.length ? { type: spec.type, source: spec.source, time: records[0].time, json: records[0].json } : undefined;
	});
	const found = newest.filter((change): change is Change => change !== undefined).sort((a, b) => b.time - a.time);
	return found.slice(0, 1);
}
