import {
	advance,
	feedFrom,
	FUTURE_CAP,
	SEEN_CAP,
	type FeedRecord,
	type ReadBounds,
} from '../../../nodes/PublicEventsPollTrigger/poll/feed';
import { zonedTime as startTime } from '../../../nodes/shared/zonedTime';
import { changeId, changeTime } from '../../../nodes/shared/changes';
import { MINUTE } from '../../../harness/time';

// The cursor rules on their own, for the cases the sandbox cannot stage: late records, a changed
// window, more ids in the window than the cap.
const T = Date.parse('2026-05-01T10:00:00Z');
const rec = (id: number, time: number): FeedRecord => ({ id: String(id), time, json: { id } });
const ids = (records: FeedRecord[]) => records.map((r) => Number(r.id));
/** A reading at service time `now` with an overlap and no settlement lag unless given. */
const at = (now: number, overlapMinutes = 5, lagMinutes = 0): ReadBounds => ({
	serviceTime: now,
	overlapMs: overlapMinutes * MINUTE,
	lagMs: lagMinutes * MINUTE,
});

describe('Poll Trigger feed cursor', () => {
	it(
		'a record that arrives late within the overlap window is ' +
			'emitted once; one older than the window is not',
		() => {
			const first = advance(
				feedFrom(T),
				[rec(1, T + 10 * MINUTE), rec(2, T + 10 * MINUTE)],
				at(T + 10 * MINUTE),
			);
			expect(ids(first.fresh)).toEqual([1, 2]);
			const late = [
				rec(1, T + 10 * MINUTE),
				rec(2, T + 10 * MINUTE),
				rec(3, T + 6 * MINUTE),
				rec(4, T + 4 * MINUTE),
			];
			const second = advance(first.next, late, at(T + 11 * MINUTE));
			expect(ids(second.fresh)).toEqual([3]);
			expect(ids(advance(second.next, late, at(T + 12 * MINUTE)).fresh)).toEqual([]);
		},
	);

	it(
		'the settlement lag keeps the window open behind the ' + "service's time, whatever the cursor",
		() => {
			const first = advance(feedFrom(T), [rec(1, T + 30 * MINUTE)], at(T + 30 * MINUTE, 5, 15));
			// the service's time minus the lag, before the cursor minus the overlap
			expect(first.next.from).toBe(T + 15 * MINUTE);
			const late = [rec(1, T + 30 * MINUTE), rec(2, T + 16 * MINUTE), rec(3, T + 14 * MINUTE)];
			const second = advance(first.next, late, at(T + 31 * MINUTE, 5, 15));
			expect(ids(second.fresh)).toEqual([2]);
			expect(second.next.seen).toHaveProperty('2');
			expect(ids(advance(second.next, late, at(T + 32 * MINUTE, 5, 15)).fresh)).toEqual([]);
		},
	);

	it('a future-dated record is emitted once and never moves the cursor', () => {
		const future = Date.parse('2099-01-01T00:00:00Z');
		const first = advance(feedFrom(T), [rec(1, T + MINUTE), rec(2, future)], at(T + 2 * MINUTE));
		expect(ids(first.fresh)).toEqual([1, 2]);
		expect(first.next.cursor).toBe(T + MINUTE);
		expect(first.next.seen).toHaveProperty('2');
		const second = advance(
			first.next,
			[rec(2, future), rec(3, T + 3 * MINUTE)],
			at(T + 4 * MINUTE),
		);
		expect(ids(second.fresh)).toEqual([3]);
		// A cursor already past the service's time (saved before this rule) is brought back.
		expect(advance({ cursor: future, from: T, seen: {} }, [], at(T)).next.cursor).toBe(
			T + 5 * MINUTE,
		);
	});

	it(
		'future-dated ids do not count against the cap, and past ' +
			'their own cap the furthest wait unemitted',
		() => {
			const future = Date.parse('2099-01-01T00:00:00Z');
			const far = Array.from({ length: FUTURE_CAP + 5 }, (_, i) =>
				rec(100_000 + i, future + i * 1000),
			);
			const { fresh, next } = advance(
				feedFrom(T),
				[...far, rec(1, T + MINUTE)],
				at(T + 2 * MINUTE),
			);
			expect(fresh).toHaveLength(FUTURE_CAP + 1);
			expect(next.from).toBeLessThanOrEqual(T + MINUTE);
			expect(
				ids(advance(next, [...far, rec(2, T + 2 * MINUTE)], at(T + 3 * MINUTE)).fresh),
			).toEqual([2]);
		},
	);

	it("a chunk's horizon holds the window there: what was left unread comes next time", () => {
		// Records 1 and 2 emitted; others at T + 1 minute were left for the next poll (the poll's
		// budget).
		const { next } = advance(feedFrom(T), [rec(1, T + MINUTE), rec(2, T + 2 * MINUTE)], {
			...at(T + 60 * MINUTE, 0),
			horizon: T + MINUTE,
		});
		expect(next.from).toBe(T + MINUTE);
		const again = [
			rec(1, T + MINUTE),
			rec(3, T + MINUTE),
			rec(2, T + 2 * MINUTE),
			rec(4, T + 30 * MINUTE),
		];
		expect(ids(advance(next, again, at(T + 61 * MINUTE, 0)).fresh)).toEqual([3, 4]);
	});

	it('widening the overlap window later emits nothing twice', () => {
		const records = [rec(1, T + MINUTE), rec(2, T + 20 * MINUTE)];
		const { next } = advance(feedFrom(T), records, at(T + 20 * MINUTE));
		expect(Object.keys(next.seen)).toEqual(['2']); // 1 fell out of the window
		expect(ids(advance(next, records, at(T + 21 * MINUTE, 60)).fresh)).toEqual([]);
	});

	it(
		'past the cap, the oldest ids go and the window closes behind ' +
			'them, whole timestamps at a time',
		() => {
			const many = Array.from({ length: SEEN_CAP + 50 }, (_, i) =>
				rec(i, T + Math.floor(i / 10) * 1000),
			);
			const day = at(T + 20 * MINUTE, 24 * 60);
			const { fresh, next } = advance(feedFrom(T), many, day);
			expect(fresh).toHaveLength(many.length);
			expect(Object.keys(next.seen).length).toBeLessThanOrEqual(SEEN_CAP);
			expect(Object.values(next.seen).every((time) => time >= next.from)).toBe(true);
			expect(ids(advance(next, many, day).fresh)).toEqual([]);
			expect(JSON.parse(JSON.stringify(next))).toEqual(next);
		},
	);

	it(
		'reads record times with or without a zone (without: UTC), ' + 'and Start From in a given zone',
		() => {
			expect(changeTime('2026-05-01T10:00:00+02:00')).toBe(Date.parse('2026-05-01T08:00:00Z'));
			expect(changeTime('2026-05-01 10:00:00')).toBe(Date.parse('2026-05-01T10:00:00Z'));
			expect(changeTime('Fri, 01 May 2026 10:00:00 GMT')).toBe(Date.parse('2026-05-01T10:00:00Z'));
			expect(changeTime(1777629600)).toBe(Date.parse('2026-05-01T10:00:00Z')); // epoch seconds
			expect(changeTime(1777629600123)).toBe(Date.parse('2026-05-01T10:00:00.123Z')); // epoch ms
			expect(changeTime(null)).toBeUndefined();
			expect(changeTime('soon')).toBeUndefined();
			expect(startTime('2026-07-01T12:00:00', 'Europe/Berlin')).toBe(
				Date.parse('2026-07-01T10:00:00Z'),
			);
			expect(startTime('2026-01-01T12:00:00', 'Europe/Berlin')).toBe(
				Date.parse('2026-01-01T11:00:00Z'),
			);
			expect(startTime('2026-03-29T03:30:00', 'Europe/Berlin')).toBe(
				Date.parse('2026-03-29T01:30:00Z'),
			);
			expect(startTime('2026-02-31', 'UTC')).toBeUndefined();
			expect(startTime(new Date(T), 'UTC')).toBe(T);
		},
	);

	it(
		'ids come out as both triggers emit them: numeric strings ' +
			'from numbers, IRIs and objects; null when absent',
		() => {
			expect([
				changeId(7),
				changeId(' 7 '),
				changeId('/api/v2/orders/7'),
				changeId({ id: 7 }),
				changeId({ '@id': '/api/v2/event-points/9' }),
			]).toEqual(['7', '7', '7', '7', '9']);
			expect([
				changeId('ord-7'),
				changeId(undefined),
				changeId(null),
				changeId(''),
				changeId({}),
			]).toEqual(['ord-7', null, null, null, null]);
		},
	);
});
