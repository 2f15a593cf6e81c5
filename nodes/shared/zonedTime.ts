import { isoMoment } from './inputs';

// Times the partner writes as wall times in the workflow's time zone (Start From, a period's
// dates), and the days and months of that zone.

/** A day or date-time in parts: year, month, day, hour, minute, second, offset. */
const START_PARTS = new RegExp(
	'^(\\d{4})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.\\d+)?)?)?' +
		'(Z|[+-]\\d{2}:?\\d{2})?$',
	'i',
);

/**
 * A moment as epoch ms: a Date, a Luxon DateTime, or ISO text; text without an offset is a wall
 * time in `timeZone` (the workflow's).
 */
export function zonedTime(value: unknown, timeZone: string): number | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
	const text =
		typeof (value as { toISO?: unknown })?.toISO === 'function'
			? String((value as { toISO: () => string }).toISO())
			: value;
	if (typeof text !== 'string') return undefined;
	const match = START_PARTS.exec(text.trim());
	// 2026-13-01, 10:99 and offsets past ±14:59 are no times; nor a year before 1970 (a typo here,
	// which Date.UTC would read as 1926 for 0026).
	if (!match || !isoMoment(text.trim()) || Number(match[1]) < 1970) return undefined;
	if (match[7]) {
		const ms = Date.parse(text.trim().replace(' ', 'T'));
		return Number.isNaN(ms) ? undefined : ms;
	}
	const [year, month, day, hour, minute, second] = match
		.slice(1, 7)
		.map((part) => Number(part ?? 0));
	const wall = Date.UTC(year, month - 1, day, hour, minute, second);
	if (new Date(wall).getUTCDate() !== day) return undefined; // 2026-02-31 and the like
	// The zone's offset at that moment: guess with the wall time, then correct once (DST edges).
	const first = wall - zoneOffsetMs(wall, timeZone);
	return wall - zoneOffsetMs(first, timeZone);
}

export function zoneOffsetMs(at: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(at));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
	const local = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return local - Math.floor(at / 1000) * 1000;
}

/** The calendar day in `timeZone` at `at`, `days` later (or earlier), as YYYY-MM-DD. */
export function zonedDay(at: number, timeZone: string, days = 0): string {
	const wall = new Date(at + zoneOffsetMs(at, timeZone));
	wall.setUTCDate(wall.getUTCDate() + days);
	return wall.toISOString().slice(0, 10);
}

/**
 * When a day (YYYY-MM-DD) begins in `timeZone`, as epoch ms: its first moment, 01:00 where the
 * clock jumps from midnight (America/Santiago, America/Havana).
 */
export function dayStart(day: string, timeZone: string): number {
	let start = zonedTime(`${day}T00:00:00`, timeZone)!;
	for (let hours = 0; zonedDay(start, timeZone) < day && hours < 3; hours++) start += 3_600_000;
	return start;
}
