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

/**
 * How far the service's clock (against this machine's) must fall between two readings to count as
 * set back. Below it the estimate's own noise (whole seconds in the Date header, the time an
 * answer takes) could be taken for a step; a step that small is inside the Settlement Lag anyway.
 */
export const CLOCK_STEP_MS = 30_000;
/** With a Settlement Lag and overlap shorter than CLOCK_STEP_MS, a step past them counts (5 s+). */
const MIN_CLOCK_STEP_MS = 5_000;
/** The saved offset moves only past this, so that noise does not rewrite the state every poll. */
const OFFSET_NOISE_MS = 5_000;

/** The offset to save: the reading's when it moved past the noise, else the saved one. */
export function offsetToSave(saved: number | undefined, read: number | undefined) {
	if (read === undefined) return saved;
	return saved === undefined || Math.abs(read - saved) > OFFSET_NOISE_MS ? read : saved;
}

/** A quiet poll moves `readAt` only this late, so that it does not rewrite the state each time. */
const READ_AT_STEP_MS = 5 * 60_000;

/**
 * The `readAt` to save: this poll's time when it read the service's clock and the state changes
 * anyway (records emitted) or the saved one is READ_AT_STEP_MS old, else the saved one. An older
 * `readAt` only reads more again after a step back.
 */
export function readAtToSave(
	saved: number | undefined,
	sawClock: boolean,
	now: number,
	fresh: number,
) {
	if (!sawClock) return saved;
	return saved === undefined || fresh > 0 || now - saved >= READ_AT_STEP_MS ? now : saved;
}

/** The least a window is read back after a step back of the service's clock (rewind). */
const STEP_MARGIN_MS = 5 * 60_000;
/** How far a sale made after a step may be dated before `readAt`'s bound: the offset's error. */
const STEP_NOISE_MS = 60_000;
/**
 * The most a step back reads again, in the service's time: n8n's own clock put forward looks the
 * same as the service's set back, and what is read again may be emitted twice.
 */
const STEP_READ_BACK_MAX_MS = 2 * 60 * 60_000;

/**
 * Where to read again from when the window no longer fits the service's clock, or undefined.
 *
 * The service's clock set back (its offset from this machine's fell by more than CLOCK_STEP_MS):
 * sales made since are dated from the service's time at the step on, which may lie before the
 * window. The step came after the last reading of the feed (`readAt`, this machine's time; that
 * reading saw the old offset), so a sale made since is dated at least `readAt` plus the offset
 * now, when it is noticed within STEP_READ_BACK_MAX_MS (polls far apart, n8n stopped). A clock
 * that also moved forward after the step would shift that bound, so the window starts at the
 * earlier of it and the overlap (5 minutes at least) before the service's time now. Records dated
 * in the stretch read again that were emitted before their ids left `seen` may come once more. A
 * step back undone before the next poll leaves no trace here: its sales, dated before the window,
 * are for the reconcile (docs/triggers.md).
 *
 * A window ahead of the service's time (saved by a version that let a future-dated record move
 * the cursor, before the offset was kept) is brought back the same way.
 */
export function rewind(
	feed: FeedState,
	read: { serviceTime: number; offset?: number },
	{ overlapMs, lagMs }: { overlapMs: number; lagMs: number },
): FeedState | undefined {
	const { serviceTime, offset } = read;
	const step = Math.min(CLOCK_STEP_MS, Math.max(lagMs + overlapMs, MIN_CLOCK_STEP_MS));
	// A pass under way read the window that was: it starts over.
	const again = (cursor: number, from: number): FeedState => {
		const next: FeedState = { ...feed, cursor, from, ...(offset === undefined ? {} : { offset }) };
		delete next.pass;
		return next;
	};
	if (feed.offset !== undefined && offset !== undefined && feed.offset - offset > step) {
		const cursor = Math.min(feed.cursor, serviceTime);
		const from = Math.min(
			feed.from,
			serviceTime - Math.max(overlapMs, STEP_MARGIN_MS),
			feed.readAt === undefined
				? Infinity
				: Math.max(feed.readAt + offset - STEP_NOISE_MS, serviceTime - STEP_READ_BACK_MAX_MS),
		);
		return cursor === feed.cursor && from === feed.from ? undefined : again(cursor, from);
	}
	if (feed.from > serviceTime + overlapMs) return again(serviceTime, serviceTime - overlapMs);
	return undefined;
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

/** Oldest first; records of one time by id, so every reading sorts them alike. */
export const byTime = (a: FeedRecord, b: FeedRecord) =>
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
