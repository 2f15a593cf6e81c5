import type { IPollFunctions } from 'n8n-workflow';

import { apiRequest, serviceNow, type RequestSettings } from '../../shared/transport';
import { feedFrom, type FeedState } from './feed';
import { watchedEvents, type EventWatch } from './events';
import type { PollSettings } from './pollSettings';
import { WIDGET_REFUNDS, WIDGET_SALES, type FeedSpec } from '../../shared/widgetFeeds';
import { eventOrders } from './specs';
import type { PollState } from './state';

/** Feeds of events that left the list are kept this long, so an event back on sale resumes. */
export const IDLE_KEEP_MS = 30 * 24 * 3_600_000;

export interface Planned {
	spec: FeedSpec;
	/** Where the feed stands: what is kept from one reading to the next. */
	feed: FeedState;
	/** False on a feed's first reading without Start From: what is there already is not new. */
	emit: boolean;
	/** All Visible Events: the event may have gone (404 means: stop reading it). */
	eventId?: string;
	/** The event left the list: read until its late records are in, then rested. */
	leaving?: boolean;
}

export interface Plan {
	feeds: Planned[];
	/** All Visible Events: the event list to save. */
	events?: PollState['events'];
	/** First activation, or a new Start From: the feeds start over. */
	restart: boolean;
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

/** What a feed keeps from one reading to the next (not the poll-to-poll flags). */
const kept = (feed: FeedState): FeedState => {
	const { cursor, from, seen, offset, readAt, pass, leavingSince } = feed;
	return {
		cursor,
		from,
		seen,
		...(offset === undefined ? {} : { offset }),
		...(readAt === undefined ? {} : { readAt }),
		...(pass ? { pass } : {}),
		...(leavingSince === undefined ? {} : { leavingSince }),
	};
};

/** Where a feed starts: its saved place, Start From, or the service's now. */
interface Starts {
	/** The feeds as the last poll saved them (none on a restart). */
	old: Record<string, FeedState>;
	/** Start From, when the feeds start over from it. */
	backfill?: number;
	overlapMs: number;
	/** The service's time, asked once a poll. */
	start: () => Promise<number>;
}

/** A feed from its saved place, else from Start From, else from the service's now. */
async function resumeOrStart(
	starts: Starts,
	spec: FeedSpec,
	extra: Partial<Planned> = {},
): Promise<Planned> {
	const existing = starts.old[spec.key];
	if (existing) return { spec, feed: kept(existing), emit: true, ...extra };
	if (starts.backfill !== undefined)
		return { spec, feed: feedFrom(starts.backfill), emit: true, ...extra };
	// A feed read for the first time marks what the service already holds as seen, emitting
	// nothing.
	const at = await starts.start();
	const feed = { cursor: at, from: at - starts.overlapMs, seen: {} };
	return { spec, feed, emit: false, ...extra };
}

/** Events no longer listed whose feeds still wait for late records (or just left). */
function leavingFeeds(old: Record<string, FeedState>, watch: EventWatch): Planned[] {
	const listed = new Set(watch.ids);
	const left = new Set(watch.left);
	const leaving: Planned[] = [];
	for (const [key, feed] of Object.entries(old)) {
		const id = key.startsWith('eventOrders:') ? key.slice('eventOrders:'.length) : undefined;
		if (id === undefined || listed.has(id) || feed.idleSince !== undefined) continue;
		if (left.has(id) || feed.leavingSince !== undefined)
			leaving.push({
				spec: eventOrders(id),
				feed: kept(feed),
				emit: true,
				eventId: id,
				leaving: true,
			});
	}
	return leaving;
}

/** All Visible Events: the feeds of the events listed and of those leaving; the list to save. */
async function watchedFeeds(
	starts: Starts,
	watch: EventWatch,
	previous: PollState['events'],
	now: number,
): Promise<{ feeds: Planned[]; events: PollState['events'] }> {
	// An event that appears after the first listing: its orders since the watch began are all new.
	const events = {
		...watch.events,
		from: watch.events.from ?? starts.backfill ?? (await starts.start()) - starts.overlapMs,
	};
	const feeds: Planned[] = [];
	for (const id of watch.ids) {
		const spec = eventOrders(id);
		// (Or since the idle feeds' horizon: an event back after that long has no feed left to
		// resume.)
		const discovered = previous && !starts.old[spec.key];
		const from = Math.max(events.from, now - IDLE_KEEP_MS);
		const planned = discovered
			? { spec, feed: feedFrom(from), emit: true, eventId: id }
			: await resumeOrStart(starts, spec, { eventId: id });
		// Listed again: no longer leaving.
		delete planned.feed.leavingSince;
		feeds.push(planned);
	}
	return { feeds: [...feeds, ...leavingFeeds(starts.old, watch)], events };
}

/**
 * The feeds this poll reads, each from where it stands; the ones the last poll had no time for
 * first.
 */
export async function planFeeds(
	this: IPollFunctions,
	settings: PollSettings,
	saved: PollState | undefined,
	now: number,
): Promise<Plan> {
	const { overlapMs, startFrom, include } = settings;
	// First activation, or a new Start From: start over. Without Start From, start from the service's
	// now.
	const restart =
		!saved || (settings.startFromKey !== '' && settings.startFromKey !== saved.startFromKey);
	const old = restart ? {} : saved.feeds;
	let clock: number | undefined;
	const start = async () => (clock ??= await serviceClock.call(this, settings.request));
	const starts: Starts = { old, backfill: restart ? startFrom : undefined, overlapMs, start };
	// The event list first: its answer tells the service's time, which a first reading needs.
	const previous = restart ? undefined : saved.events;
	const watch =
		include.includes('eventOrders') && !settings.eventIds
			? await watchedEvents.call(this, previous, now, settings.request)
			: undefined;
	const plan: Planned[] = [];
	if (include.includes('widgetSales')) plan.push(await resumeOrStart(starts, WIDGET_SALES));
	let events: PollState['events'];
	if (include.includes('eventOrders') && watch) {
		const watched = await watchedFeeds(starts, watch, previous, now);
		plan.push(...watched.feeds);
		events = watched.events;
	} else if (include.includes('eventOrders')) {
		for (const id of settings.eventIds ?? [])
			plan.push(await resumeOrStart(starts, eventOrders(id)));
	}
	if (include.includes('widgetRefunds')) plan.push(await resumeOrStart(starts, WIDGET_REFUNDS));
	// Feeds the last poll had no time for go first (a stable sort keeps the rest in order).
	const waiting = (planned: Planned) => (old[planned.spec.key]?.waiting ? 0 : 1);
	return { feeds: [...plan].sort((a, b) => waiting(a) - waiting(b)), events, restart };
}
