import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { changeId } from '../../PublicEvents/shared/changes';
import type { FeedState } from './state';

export type { FeedState };

export interface FeedRecord {
	id: string;
	time: number;
	json: IDataObject;
}

/** Hard cap on remembered ids per feed; past it the oldest go and `from` moves up past them. */
export const SEEN_CAP = 10_000;

/** The record's id for de-duplication: its id as both triggers emit ids, else a digest of the record. */
export const recordId = (json: IDataObject): string =>
	changeId(json) ?? `#${createHash('sha256').update(JSON.stringify(json)).digest('base64url').slice(0, 16)}`;

/** `<time>[after]` value: whole seconds (the API's precision), UTC, e.g. 2026-05-01T10:00:00Z. */
export function afterParam(ms: number): string {
	return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** A feed that emits everything from `start` on. */
export const feedFrom = (start: number): FeedState => ({ cursor: start, from: start, seen: {} });

/** The earliest record time a poll of this feed still looks at. */
export const lowerBound = (feed: FeedState, overlapMs: number) => Math.max(feed.from, feed.cursor - overlapMs);

/**
 * Picks the records not emitted before: at or after the lower bound (the cursor minus the overlap
 * window) and not in `seen`. Correct whatever the service did with the time filter and the sort,
 * and with records sharing one timestamp or arriving late within the window.
 */
export function advance(feed: FeedState, records: FeedRecord[], overlapMs: number): { fresh: FeedRecord[]; next: FeedState } {
	const lower = lowerBound(feed, overlapMs);
	const seen = { ...feed.seen };
	const fresh: FeedRecord[] = [];
	for (const record of [...records].sort((a, b) => a.time - b.time || a.id.localeCompare(b.id))) {
		if (record.time < lower || seen[record.id] !== undefined) continue;
		seen[record.id] = record.time;
		fresh.push(record);
	}
	const cursor = fresh.reduce((max, record) => Math.max(max, record.time), feed.cursor);
	let from = Math.max(feed.from, cursor - overlapMs);
	let kept = Object.entries(seen).filter(([, time]) => time >= from);
	if (kept.length > SEEN_CAP) {
		// Keep the newest ids; `from` moves past every dropped time, so none of them comes back.
		kept.sort((a, b) => b[1] - a[1]);
		from = kept[SEEN_CAP][1] + 1;
		kept = kept.filter(([, time]) => time >= from);
	}
	return { fresh, next: { cursor, from, seen: Object.fromEntries(kept) } };
}
