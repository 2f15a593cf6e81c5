import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { changeId } from '../../shared/changes';
import type { FeedState } from './state';

export type { FeedState };

export interface FeedRecord {
	id: string;
	time: number;
	json: IDataObject;
}

/** Hard cap on remembered ids per feed; past it the oldest go and `from` moves up past them. */
export const SEEN_CAP = 10_000;
/**
 * Future-dated ids remembered per feed, apart from SEEN_CAP (they stay until the service's time
 * reaches them, so they must not push `from` up). Past it the furthest wait, unemitted.
 */
export const FUTURE_CAP = 1_000;

/**
 * The record's id for de-duplication: its id as both triggers emit ids, else a digest of the
 * record.
 */
export const recordId = (json: IDataObject): string =>
	changeId(json) ??
	`#${createHash('sha256').update(JSON.stringify(json)).digest('base64url').slice(0, 16)}`;

/** `<time>[after]` value: whole seconds (the API's precision), UTC, e.g. 2026-05-01T10:00:00Z. */
export function afterParam(ms: number): string {
	return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** A feed that emits everything from `start` on. */
export const feedFrom = (start: number): FeedState => ({ cursor: start, from: start, seen: {} });

/** What one reading of a feed knew about time. */
export interface ReadBounds {
	/** The service's time when the reading began (epoch ms, estimated low). */
	serviceTime: number;
	overlapMs: number;
	/** Settlement Lag: how long after its time a record may first be listed. */
	lagMs: number;
	/**
	 * Records at or after this time may be left unread (a chunk ended there); none when all was read.
	 */
	horizon?: number;
}

/** Records later than this are future-dated: emitted once, but they never move the cursor. */
export const futureAfter = (bounds: ReadBounds) => bounds.serviceTime + bounds.overlapMs;

const byTime = (a: FeedRecord, b: FeedRecord) =>
	a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Picks the records not emitted before (at or after `from`, not in `seen`) and moves the window.
 * The next reading starts at the earliest of: the cursor minus the overlap, the service's time
 * minus the settlement lag (a record listed late is still ahead of it), and the horizon of a
 * chunk; never before `from`. Every id emitted at or after the new `from` stays in `seen`.
 * Correct whatever the service did with the time filter and the sort.
 */
export function advance(
	feed: FeedState,
	records: FeedRecord[],
	bounds: ReadBounds,
): { fresh: FeedRecord[]; next: FeedState } {
	const future = futureAfter(bounds);
	const seen = { ...feed.seen };
	let ahead = Object.values(seen).filter((time) => time > future).length;
	let newest = -Infinity;
	const fresh: FeedRecord[] = [];
	for (const record of [...records].sort(byTime)) {
		if (record.time < feed.from || seen[record.id] !== undefined) continue;
		if (record.time > future) {
			if (ahead >= FUTURE_CAP) continue;
			ahead++;
		} else newest = Math.max(newest, record.time);
		seen[record.id] = record.time;
		fresh.push(record);
	}
	// A cursor past the service's time (a future-dated record, before this rule) is brought back.
	const cursor = Math.min(Math.max(feed.cursor, newest), future);
	let from = Math.max(
		feed.from,
		Math.min(
			cursor - bounds.overlapMs,
			bounds.serviceTime - bounds.lagMs,
			bounds.horizon ?? Infinity,
		),
	);
	const kept = Object.entries(seen).filter(([, time]) => time >= from);
	const later = kept.filter(([, time]) => time > future);
	let current = kept.filter(([, time]) => time <= future);
	if (current.length > SEEN_CAP) {
		// Keep the newest ids; `from` moves past every dropped time, so none of them comes back.
		current.sort((a, b) => b[1] - a[1]);
		from = current[SEEN_CAP][1] + 1;
		current = current.filter(([, time]) => time >= from);
	}
	return { fresh, next: { cursor, from, seen: Object.fromEntries([...current, ...later]) } };
}
