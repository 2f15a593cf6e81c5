import { z } from 'zod';

import { HOUR, MINUTE } from './clock';
import { formatReadBackQuirks, READ_BACK_PARSERS, readBackQuirkShape } from './readBackQuirks';

/**
 * Quirks: a difficult but plausible service, switched on on purpose (all off by default).
 * Unlike fault rules they are not one-shot: they describe how the service behaves until changed.
 */
export const MANGLE_KINDS = ['gzip', 'html', 'garbage', 'truncated'] as const;
export type MangleKind = (typeof MANGLE_KINDS)[number];

export const quirksSchema = z
	.object({
		/** Lists ignore `order[...]` and come newest first by their time field. */
		ignoreSort: z.boolean(),
		/** The service's clock runs this far from real time (shifts the sandbox clock). */
		clockSkewMs: z.number().int(),
		/** Paid orders and refunds reach the lists this long after their time. */
		lateVisibleMs: z.number().int().min(0),
		/** Simulated widget sales and refunds are stamped far in the future. */
		futureDated: z.boolean(),
		/** GETs under /api/v2 answer 302: to `/moved/api/v2/...` or to the other origin. */
		redirect: z.enum(['same-origin', 'cross-origin']),
		/** POST /token answers 307 to the other origin. */
		redirectToken: z.boolean(),
		/** POST and PUT (not /token) answer 307 to the other origin, unapplied. */
		redirectWrites: z.boolean(),
		/** Writes are applied, then answered unreadably. */
		mangleWriteAnswers: z.enum(MANGLE_KINDS),
		/** Mangle only this many writes from when the quirks were set (0 = every one). */
		mangleWriteAnswersCount: z.number().int().min(0),
		/** Mangle each write with this probability, drawn from a Random of the seed. */
		mangleWriteAnswersRate: z.number().min(0).max(1),
		/** A list's reported total grows by one per page. */
		totalDrift: z.boolean(),
		...readBackQuirkShape,
		/**
		 * Sales and refunds lists: before a page past the first is served, this many records listed
		 * just before it leave the list (an order cancelled or re-dated while a client reads).
		 */
		dropMidRead: z.number().int().min(1),
		/** Drop only on this many page requests from when the quirks were set (0 = every one). */
		dropMidReadCount: z.number().int().min(0),
		/** An event's order list shows the widget orders of the event too (without tickets). */
		widgetInEventLists: z.boolean(),
		/** Order totals and refund amounts are plain numbers, not `{ amount, currency }`. */
		plainTotals: z.boolean(),
		/** Widget orders made from now on are numbered from where API orders start: numbers meet. */
		sharedOrderNumbers: z.boolean(),
	})
	.partial()
	.strict();

export type Quirks = z.infer<typeof quirksSchema>;

const UNITS: Record<string, number> = { s: 1000, m: MINUTE, h: HOUR };

function duration(name: string, value: string | undefined, signed: boolean): number {
	const match = /^([+-]?)(\d+)([smh])$/.exec(value ?? '');
	if (!match || (!signed && match[1] === '-'))
		throw new Error(
			`quirk "${name}" needs a duration such as ${signed ? '+10m or -30s' : '8m'} ` +
				`(units s, m, h), got "${value ?? ''}"`,
		);
	return (match[1] === '-' ? -1 : 1) * Number(match[2]) * UNITS[match[3]];
}

function oneOf<T extends string>(
	name: string,
	value: string | undefined,
	allowed: readonly T[],
): T {
	if (!allowed.includes(value as T))
		throw new Error(`quirk "${name}" must be one of ${allowed.join(', ')}, got "${value ?? ''}"`);
	return value as T;
}

function number(name: string, value: string | undefined, max: number): number {
	const n = Number(value);
	if (value === undefined || value === '' || !Number.isFinite(n) || n < 0 || n > max)
		throw new Error(`quirk "${name}" needs a number from 0 to ${max}, got "${value ?? ''}"`);
	return n;
}

function wholeFromOne(name: string, value: string | undefined): number {
	const n = Number(value);
	if (value === undefined || value === '' || !Number.isInteger(n) || n < 1)
		throw new Error(`quirk "${name}" needs a whole number from 1, got "${value ?? ''}"`);
	return n;
}

const PARSERS: Record<string, (value: string | undefined, q: Quirks) => void> = {
	'ignore-sort': (_, q) => (q.ignoreSort = true),
	'clock-skew': (v, q) => (q.clockSkewMs = duration('clock-skew', v, true)),
	'late-visible': (v, q) => (q.lateVisibleMs = duration('late-visible', v, false)),
	'future-dated': (_, q) => (q.futureDated = true),
	redirect: (v, q) => (q.redirect = oneOf('redirect', v, ['same-origin', 'cross-origin'] as const)),
	'redirect-token': (_, q) => (q.redirectToken = true),
	'redirect-writes': (_, q) => (q.redirectWrites = true),
	'mangle-write-answers': (v, q) =>
		(q.mangleWriteAnswers = oneOf('mangle-write-answers', v, MANGLE_KINDS)),
	'mangle-write-answers-count': (v, q) =>
		(q.mangleWriteAnswersCount = Math.floor(number('mangle-write-answers-count', v, 1e9))),
	'mangle-write-answers-rate': (v, q) =>
		(q.mangleWriteAnswersRate = number('mangle-write-answers-rate', v, 1)),
	'total-drift': (_, q) => (q.totalDrift = true),
	...READ_BACK_PARSERS,
	'drop-mid-read': (v, q) => (q.dropMidRead = wholeFromOne('drop-mid-read', v)),
	'drop-mid-read-count': (v, q) =>
		(q.dropMidReadCount = Math.floor(number('drop-mid-read-count', v, 1e9))),
	'widget-in-event-lists': (_, q) => (q.widgetInEventLists = true),
	'plain-totals': (_, q) => (q.plainTotals = true),
	'shared-order-numbers': (_, q) => (q.sharedOrderNumbers = true),
};
const FLAGS = [
	'ignore-sort',
	'future-dated',
	'redirect-token',
	'redirect-writes',
	'total-drift',
	'widget-in-event-lists',
	'plain-totals',
	'shared-order-numbers',
];

export const QUIRK_NAMES = Object.keys(PARSERS);

/**
 * The string form the CLI and the control surface take:
 * `ignore-sort,clock-skew=+10m,late-visible=8m`.
 */
export function parseQuirks(text: string): Quirks {
	const quirks: Quirks = {};
	for (const part of text
		.split(',')
		.map((p) => p.trim())
		.filter(Boolean)) {
		const [name, value] = part.includes('=')
			? [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)]
			: [part, undefined];
		const parse = PARSERS[name];
		if (!parse) throw new Error(`unknown quirk "${name}" (known: ${QUIRK_NAMES.join(', ')})`);
		if (FLAGS.includes(name) && value !== undefined)
			throw new Error(`quirk "${name}" takes no value, got "${value}"`);
		parse(value, quirks);
	}
	return quirks;
}

/** A typed object, or the string form; throws an Error naming the bad quirk. */
export function toQuirks(input: unknown): Quirks {
	if (typeof input === 'string') return parseQuirks(input);
	const result = quirksSchema.safeParse(input ?? {});
	if (result.success) return result.data;
	const issue = result.error.issues[0];
	throw new Error(
		`quirk ${issue.path.length ? `"${issue.path.join('.')}"` : 'object'}: ${issue.message}`,
	);
}

function formatDuration(ms: number, signed: boolean): string {
	const sign = ms < 0 ? '-' : signed ? '+' : '';
	const abs = Math.abs(ms);
	const [unit, size] =
		abs % HOUR === 0 && abs > 0
			? ['h', HOUR]
			: abs % MINUTE === 0 && abs > 0
				? ['m', MINUTE]
				: ['s', 1000];
	return `${sign}${Math.round(abs / size)}${unit}`;
}

/** The string form of a quirks object (empty when none is on). */
export function formatQuirks(q: Quirks): string {
	const parts: string[] = [];
	if (q.ignoreSort) parts.push('ignore-sort');
	if (q.clockSkewMs) parts.push(`clock-skew=${formatDuration(q.clockSkewMs, true)}`);
	if (q.lateVisibleMs) parts.push(`late-visible=${formatDuration(q.lateVisibleMs, false)}`);
	if (q.futureDated) parts.push('future-dated');
	if (q.redirect) parts.push(`redirect=${q.redirect}`);
	if (q.redirectToken) parts.push('redirect-token');
	if (q.redirectWrites) parts.push('redirect-writes');
	if (q.mangleWriteAnswers) parts.push(`mangle-write-answers=${q.mangleWriteAnswers}`);
	if (q.mangleWriteAnswersCount)
		parts.push(`mangle-write-answers-count=${q.mangleWriteAnswersCount}`);
	if (q.mangleWriteAnswersRate !== undefined)
		parts.push(`mangle-write-answers-rate=${q.mangleWriteAnswersRate}`);
	if (q.totalDrift) parts.push('total-drift');
	parts.push(...formatReadBackQuirks(q));
	if (q.dropMidRead) parts.push(`drop-mid-read=${q.dropMidRead}`);
	if (q.dropMidReadCount) parts.push(`drop-mid-read-count=${q.dropMidReadCount}`);
	if (q.widgetInEventLists) parts.push('widget-in-event-lists');
	if (q.plainTotals) parts.push('plain-totals');
	if (q.sharedOrderNumbers) parts.push('shared-order-numbers');
	return parts.join(',');
}

/** Where future-dated records land: far enough ahead that no real clock reaches it. */
export const FUTURE_TIME = Date.parse('2099-01-01T00:00:00Z');

/** Whether a record stamped `at` has reached the lists yet (late-visible). */
export function visibleYet(q: Quirks, at: number | null, now: number): boolean {
	return !q.lateVisibleMs || at === null || at + q.lateVisibleMs <= now;
}
