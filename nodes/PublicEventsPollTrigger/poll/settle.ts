import { withEvent } from '../../shared/ledger/apiOrders';
import type { Chunk } from './chunk';
import { advance, offsetToSave, readAtToSave, type FeedRecord, type FeedState } from './feed';
import type { Change } from './items';
import type { WindowRead } from './pager';
import type { Planned } from './plan';
import type { PollSettings } from './pollSettings';
import type { PollState } from './state';

/** What reading a feed came to. */
export type Outcome =
	| { read: WindowRead; feed: FeedState }
	| { gone: true }
	| { error: Error }
	| { deferred: true };

/** A feed that could not be read, and how many polls in a row it has failed. */
export interface Failure {
	planned: Planned;
	error: Error;
	failures: number;
}

/** What settling a feed's outcome needs from the whole poll. */
export interface Settling {
	settings: PollSettings;
	now: number;
	/** When a feed found leaving this poll and not read started to leave (the service's time). */
	leftAt: number;
	/** The feeds as the last poll saved them (none on a restart). */
	old: Record<string, FeedState>;
	chunk: Chunk;
}

/** The poll's results so far: what to emit, the feeds to save, the failures, the events. */
interface Settled {
	changes: Change[];
	feeds: Record<string, FeedState>;
	failed: Failure[];
	events?: PollState['events'];
}

/** A feed that was read: the records it emits and where it stands now. */
function afterRead(
	planned: Planned,
	outcome: { read: WindowRead; feed: FeedState },
	index: number,
	{ settings: { overlapMs, lagMs }, now, chunk }: Settling,
): { fresh: FeedRecord[]; feed: FeedState } {
	const { read: got } = outcome;
	const horizon = Math.min(got.horizon ?? Infinity, chunk.horizons.get(index) ?? Infinity);
	const records = planned.emit ? chunk.recordsOf(index) : got.records;
	const bounds = {
		// A pass that reached the end counts from when it began.
		serviceTime: Math.min(got.passBegan ?? Infinity, got.serviceTime),
		overlapMs,
		lagMs,
		...(horizon < Infinity ? { horizon } : {}),
	};
	const { fresh, next } = advance(outcome.feed, records, bounds);
	// Records of a pass left out of this chunk: the pass no longer proves the feed complete.
	const pass =
		got.pass && chunk.horizons.has(index) ? { ...got.pass, unproven: true as const } : got.pass;
	const offset = offsetToSave(outcome.feed.offset, got.offset);
	const readAt = readAtToSave(outcome.feed.readAt, got.offset !== undefined, now, fresh.length);
	const since = planned.leaving ? (outcome.feed.leavingSince ?? got.serviceTime) : undefined;
	// A leaving event rests once a record paid as it left has had its Settlement Lag (and the
	// overlap) to be listed, and its reading reached the end.
	if (since !== undefined && !pass && got.serviceTime - since >= lagMs + overlapMs)
		return { fresh, feed: { ...next, idleSince: now } };
	// A page that failed after the oldest ones were read: they go out, the feed still counts as
	// failing.
	const feed = {
		...next,
		...(offset === undefined ? {} : { offset }),
		...(readAt === undefined ? {} : { readAt }),
		...(pass ? { pass } : {}),
		...(since === undefined ? {} : { leavingSince: since }),
	};
	return { fresh, feed };
}

/** One feed's outcome taken into the poll's results. */
function settleFeed(
	settled: Settled,
	planned: Planned,
	outcome: Outcome,
	index: number,
	poll: Settling,
): void {
	const { key } = planned.spec;
	const { old } = poll;
	const leaving = planned.leaving ? { leavingSince: planned.feed.leavingSince ?? poll.leftAt } : {};
	if ('deferred' in outcome) {
		const failures = old[key]?.failures;
		settled.feeds[key] = {
			...planned.feed,
			...leaving,
			...(failures ? { failures } : {}),
			waiting: true,
		};
	} else if ('gone' in outcome) {
		const { cursor, from, seen } = planned.feed;
		if (old[key]) settled.feeds[key] = { cursor, from, seen, idleSince: poll.now };
		const { events } = settled;
		if (events)
			settled.events = { ...events, ids: events.ids.filter((id) => id !== planned.eventId) };
	} else if ('error' in outcome) {
		// Its place stays; a feed read for the first time (nothing to emit) is simply read again next
		// time.
		const failures = (old[key]?.failures ?? 0) + 1;
		settled.failed.push({ planned, error: outcome.error, failures });
		if (planned.emit) settled.feeds[key] = { ...planned.feed, ...leaving, failures };
	} else {
		const { fresh, feed } = afterRead(planned, outcome, index, poll);
		const { type, source } = planned.spec;
		// An event's list may leave out the event of its records: it is the listed one.
		const { eventId } = planned;
		const json = (r: FeedRecord) =>
			source === 'eventOrders' && eventId ? withEvent(r.json, eventId) : r.json;
		if (planned.emit)
			settled.changes.push(...fresh.map((r) => ({ type, source, time: r.time, json: json(r) })));
		settled.feeds[key] = feed;
	}
}

/** Every feed's outcome taken into the poll's results, in the plan's order. */
export function settleFeeds(
	plan: Planned[],
	outcomes: Outcome[],
	poll: Settling,
	events: PollState['events'],
): Settled {
	const settled: Settled = { changes: [], feeds: {}, failed: [], events };
	plan.forEach((planned, i) => settleFeed(settled, planned, outcomes[i], i, poll));
	return settled;
}
