import type { IPollFunctions } from 'n8n-workflow';

import { apiRequest, serviceNow, type RequestSettings } from '../../shared/transport';
import { feedFrom, type FeedState } from './feed';
import { watchedEvents } from './events';
import type { PollSettings } from './pollSettings';
import { eventOrders, WIDGET_REFUNDS, WIDGET_SALES, type FeedSpec } from './specs';
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
	const { overlapMs, startFrom } = settings;
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
		if (existing) return { spec, feed: kept(existing), emit: true, ...extra };
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
			const listed = new Set(watch.ids);
			for (const id of watch.ids) {
				const spec = eventOrders(id);
				// (Or since the idle feeds' horizon: an event back after that long has no feed left to
				// resume.)
				const discovered = previous && !old[spec.key];
				const from = Math.max(events.from, now - IDLE_KEEP_MS);
				const planned = discovered
					? { spec, feed: feedFrom(from), emit: true, eventId: id }
					: await resumeOrStart(spec, { eventId: id });
				// Listed again: no longer leaving.
				delete planned.feed.leavingSince;
				plan.push(planned);
			}
			// Events no longer listed whose feeds still wait for late records (or just left).
			const left = new Set(watch.left);
			for (const [key, feed] of Object.entries(old)) {
				const id = key.startsWith('eventOrders:') ? key.slice('eventOrders:'.length) : undefined;
				if (id === undefined || listed.has(id) || feed.idleSince !== undefined) continue;
				if (left.has(id) || feed.leavingSince !== undefined)
					plan.push({
						spec: eventOrders(id),
						feed: kept(feed),
						emit: true,
						eventId: id,
						leaving: true,
					});
			}
		}
	}
	if (settings.include.includes('widgetRefunds')) plan.push(await resumeOrStart(WIDGET_REFUNDS));
	// Feeds the last poll had no time for go first (a stable sort keeps the rest in order).
	const waiting = (planned: Planned) => (old[planned.spec.key]?.waiting ? 0 : 1);
	return { feeds: [...plan].sort((a, b) => waiting(a) - waiting(b)), events, restart };
}
