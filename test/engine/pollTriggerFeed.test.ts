import { advance, feedFrom, SEEN_CAP, type FeedRecord } from '../../nodes/PublicEventsPollTrigger/poll/feed';
import { startTime } from '../../nodes/PublicEventsPollTrigger/poll/settings';
import { changeId, changeTime } from '../../nodes/PublicEvents/shared/changes';

// The cursor rules on their own, for the cases the sandbox cannot stage: late records, a changed
// window, more ids in the window than the cap.
const MINUTE = 60_000;
const T = Date.parse('2026-05-01T10:00:00Z');
const rec = (id: number, time: number): FeedRecord => ({ id: String(id), time, json: { id } });
const ids = (records: FeedRecord[]) => records.map((r) => Number(r.id));

describe('Poll Trigger feed cursor', () => {
	it('a record that arrives late within the overlap window is emitted once; one older than the window is not', () => {
		const first = advance(feedFrom(T), [rec(1, T + 10 * MINUTE), rec(2, T + 10 * MINUTE)], 5 * MINUTE);
		expect(ids(first.fresh)).toEqual([1, 2]);
		const late = [rec(1, T + 10 * MINUTE), rec(2, T + 10 * MINUTE), rec(3, T + 6 * MINUTE), rec(4, T + 4 * MINUTE)];
		const second = advance(first.next, late, 5 * MINUTE);
		expect(ids(second.fresh)).toEqual([3]);
		expect(ids(advance(second.next, late, 5 * MINUTE).fresh)).toEqual([]);
	});

	it('widening the overlap window later emits nothing twice', () => {
		const records = [rec(1, T + MINUTE), rec(2, T + 20 * MINUTE)];
		const { next } = advance(feedFrom(T), records, 5 * MINUTE);
		expect(Object.keys(next.seen)).toEqual(['2']); // 1 fell out of the window
		expect(ids(advance(next, records, 60 * MINUTE).fresh)).toEqual([]);
	});

	it('past the cap, the oldest ids go and the window closes behind them, whole timestamps at a time', () => {
		const many = Array.from({ length: SEEN_CAP + 50 }, (_, i) => rec(i, T + Math.floor(i / 10) * 1000));
		const { fresh, next } = advance(feedFrom(T), many, 24 * 60 * MINUTE);
		expect(fresh).toHaveLength(many.length);
		expect(Object.keys(next.seen).length).toBeLessThanOrEqual(SEEN_CAP);
		expect(Object.values(next.seen).every((time) => time >= next.from)).toBe(true);
		expect(ids(advance(next, many, 24 * 60 * MINUTE).fresh)).toEqual([]);
		expect(JSON.parse(JSON.stringify(next))).toEqual(next);
	});

	it('reads record times with or without a zone (without: UTC), and Start From in a given zone', () => {
		expect(changeTime('2026-05-01T10:00:00+02:00')).toBe(Date.parse('2026-05-01T08:00:00Z'));
		expect(changeTime('2026-05-01 10:00:00')).toBe(Date.parse('2026-05-01T10:00:00Z'));
		expect(changeTime('Fri, 01 May 2026 10:00:00 GMT')).toBe(Date.parse('2026-05-01T10:00:00Z'));
		expect(changeTime(1777629600)).toBe(Date.parse('2026-05-01T10:00:00Z')); // epoch seconds
		expect(changeTime(1777629600123)).toBe(Date.parse('2026-05-01T10:00:00.123Z')); // epoch ms
		expect(changeTime(null)).toBeUndefined();
		expect(changeTime('soon')).toBeUndefined();
		expect(startTime('2026-07-01T12:00:00', 'Europe/Berlin')).toBe(Date.parse('2026-07-01T10:00:00Z'));
		expect(startTime('2026-01-01T12:00:00', 'Europe/Berlin')).toBe(Date.parse('2026-01-01T11:00:00Z'));
		expect(startTime('2026-03-29T03:30:00', 'Europe/Berlin')).toBe(Date.parse('2026-03-29T01:30:00Z'));
		expect(startTime('2026-02-31', 'UTC')).toBeUndefined();
		expect(startTime(new Date(T), 'UTC')).toBe(T);
	});

	it('ids come out as both triggers emit them: numeric strings from numbers, IRIs and objects; null when absent', () => {
		expect([changeId(7), changeId(' 7 '), changeId('/api/v2/orders/7'), changeId({ id: 7 }), changeId({ '@id': '/api/v2/event-points/9' })]).toEqual(['7', '7', '7', '7', '9']);
		expect([changeId('ord-7'), changeId(undefined), changeId(null), changeId(''), changeId({})]).toEqual(['ord-7', null, null, null, null]);
	});
});
