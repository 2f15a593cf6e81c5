/**
 * Order > Get Many for Event > Paid. Invariant: for any orders of an event (paid at any second of
 * the last six weeks, some exactly at the start of a day or a month or a second either side, some
 * never paid), any workflow time zone, any day (clock changes and months' firsts among them) and
 * any Paid choice (Between Dates with a day, a moment or nothing at either end), the output is
 * exactly the orders whose payAt lies in the range, its start included and its end left out; with
 * a Limit, that many of them. The start goes out as the list's payAt filter. A Paid Before not
 * after Paid After stops the item, naming it, with nothing sent.
 *
 * The range is worked out here without the node's code: a day starts at the first second the
 * zone's calendar (Intl) shows it. Orders are paid on the sandbox's clock, which is set to each
 * payment time and then to the case's now.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { credentialFor, mark, runPublicEvents, since } from '../../harness/nodes/publicEvents';
import { checkProperty } from '../../harness/props/property';
import { SandboxClient } from '../../harness/sandbox/client';
import { onlyEvents } from '../../harness/sandbox/suite';
import { DAY, HOUR, MINUTE, SECOND } from '../../harness/time';

/** No zone here turns its calendar back (a day never starts twice). */
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Adelaide'];
/** Days the clocks change in one of the zones, or a month's first, and an ordinary day. */
const DAYS = [
	'2026-01-01',
	'2026-03-01',
	'2026-03-08',
	'2026-03-09',
	'2026-03-29',
	'2026-03-30',
	'2026-04-05',
	'2026-10-04',
	'2026-10-25',
	'2026-11-01',
	'2026-11-02',
	'2026-06-17',
];
const CHOICES = [
	'anyTime',
	'today',
	'yesterday',
	'last7Days',
	'last30Days',
	'thisMonth',
	'lastMonth',
	'between',
] as const;

type Payment =
	| { kind: 'dayStart'; daysBack: number; seconds: number }
	| { kind: 'monthStart'; monthsBack: number; seconds: number }
	| { kind: 'any'; secondsBack: number }
	| { kind: 'never' };
type Bound =
	| { kind: 'none' }
	| { kind: 'day'; daysBack: number }
	| { kind: 'moment'; secondsBack: number };
interface Case {
	zone: string;
	day: string;
	/** Minutes after the day's start: now. */
	minute: number;
	choice: (typeof CHOICES)[number];
	after: Bound;
	before: Bound;
	payments: Payment[];
	limit?: number;
}

const SIX_WEEKS_S = 42 * 24 * 3600;
const edge = fc.integer({ min: -1, max: 1 });
const payment: fc.Arbitrary<Payment> = fc.oneof(
	fc.record({
		kind: fc.constant('dayStart' as const),
		// Mostly today, yesterday and the day before: where the short periods end.
		daysBack: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 40 })),
		seconds: edge,
	}),
	fc.record({
		kind: fc.constant('monthStart' as const),
		monthsBack: fc.integer({ min: 0, max: 1 }),
		seconds: edge,
	}),
	fc.record({
		kind: fc.constant('any' as const),
		secondsBack: fc.integer({ min: 1, max: SIX_WEEKS_S }),
	}),
	fc.constant({ kind: 'never' as const }),
);
const bound: fc.Arbitrary<Bound> = fc.oneof(
	fc.constant({ kind: 'none' as const }),
	fc.record({ kind: fc.constant('day' as const), daysBack: fc.integer({ min: 0, max: 40 }) }),
	fc.record({
		kind: fc.constant('moment' as const),
		secondsBack: fc.integer({ min: 0, max: SIX_WEEKS_S }),
	}),
);
const caseArb: fc.Arbitrary<Case> = fc.record(
	{
		zone: fc.constantFrom(...ZONES),
		day: fc.constantFrom(...DAYS),
		minute: fc.integer({ min: 1, max: 22 * 60 }),
		choice: fc.constantFrom(...CHOICES),
		after: bound,
		before: bound,
		payments: fc.array(payment, { minLength: 1, maxLength: 8 }),
		limit: fc.integer({ min: 1, max: 3 }),
	},
	{ requiredKeys: ['zone', 'day', 'minute', 'choice', 'after', 'before', 'payments'] },
);

/** The calendar day at `at` in `zone`, YYYY-MM-DD. */
const dayIn = (at: number, zone: string) =>
	new Intl.DateTimeFormat('en-CA', {
		timeZone: zone,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
	}).format(at);
const plusDays = (day: string, days: number) =>
	new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const monthFirst = (day: string, monthsBack: number) => {
	const [year, month] = day.split('-').map(Number);
	return new Date(Date.UTC(year, month - 1 - monthsBack, 1)).toISOString().slice(0, 10);
};

/** The first second of `day` in `zone`: searched between 15 hours either side of its UTC start. */
function startOf(day: string, zone: string): number {
	let before = Date.parse(`${day}T00:00:00Z`) / SECOND - 15 * 3600;
	let on = before + 30 * 3600;
	while (on - before > 1) {
		const middle = Math.floor((before + on) / 2);
		if (dayIn(middle * SECOND, zone) >= day) on = middle;
		else before = middle;
	}
	return on * SECOND;
}

interface Range {
	from?: number;
	to?: number;
}

/** The case's range at `now` (undefined: every order, paid or not). */
function rangeOf(c: Case, now: number): Range | undefined {
	const today = dayIn(now, c.zone);
	const start = (day: string) => startOf(day, c.zone);
	const back = (days: number) => start(plusDays(today, -days));
	switch (c.choice) {
		case 'anyTime':
			return undefined;
		case 'today':
			return { from: back(0) };
		case 'yesterday':
			return { from: back(1), to: back(0) };
		case 'last7Days':
			return { from: back(6) };
		case 'last30Days':
			return { from: back(29) };
		case 'thisMonth':
			return { from: start(monthFirst(today, 0)) };
		case 'lastMonth':
			return { from: start(monthFirst(today, 1)), to: start(monthFirst(today, 0)) };
		case 'between': {
			const from = boundAt(c.after, now, back);
			const to = boundAt(c.before, now, back);
			return from === undefined && to === undefined ? undefined : { from, to };
		}
	}
}

const boundAt = (b: Bound, now: number, back: (days: number) => number) =>
	b.kind === 'none'
		? undefined
		: b.kind === 'day'
			? back(b.daysBack)
			: now - b.secondsBack * SECOND;

/** A bound as the partner gives it: a day alone, or a moment with its offset. */
const boundText = (b: Bound, now: number, zone: string) =>
	b.kind === 'none'
		? ''
		: b.kind === 'day'
			? plusDays(dayIn(now, zone), -b.daysBack)
			: new Date(now - b.secondsBack * SECOND).toISOString();

function paidAt(p: Payment, now: number, zone: string): number | undefined {
	const today = dayIn(now, zone);
	switch (p.kind) {
		case 'dayStart':
			return startOf(plusDays(today, -p.daysBack), zone) + p.seconds * SECOND;
		case 'monthStart':
			return startOf(monthFirst(today, p.monthsBack), zone) + p.seconds * SECOND;
		case 'any':
			return now - p.secondsBack * SECOND;
		case 'never':
			return undefined;
	}
}

let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];
/** The sandbox clock when the client's token was issued (it lasts 24 hours of that clock). */
let tokenAt = -Infinity;

beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(1, 20, { limits: { reservedPerAccount: 1000 } }));
	store = credentialFor(sb).store;
});
afterAll(() => sb.stop());

async function clockAt(at: number) {
	await sb.admin('POST', '/clock', { set: new Date(at).toISOString() });
	if (at < tokenAt + 20 * HOUR) return;
	sb.forgetTokens();
	await sb.token();
	tokenAt = at;
}

/** The case's orders in a new event: their ids and payAt as the API states it (null: unpaid). */
async function ordersOf(c: Case, now: number) {
	await clockAt(now);
	const { body: event } = await sb.admin('POST', '/events', { places: c.payments.length + 1 });
	const places = await sb.getAll(`/event-points/${event.id}/places`);
	const orders: Array<{ id: number; payAt: number | null }> = [];
	for (const [k, p] of c.payments.entries()) {
		const at = paidAt(p, now, c.zone) ?? now - HOUR;
		await clockAt(at);
		const held = await sb.send('POST', '/orders', {
			eventPoint: String(event.id),
			places: [String(places[k].id)],
			priceCategory: String(places[k].priceCategories[0].id),
		});
		expect(held.status).toBe(201);
		if (p.kind === 'never') {
			orders.push({ id: held.body.id, payAt: null });
			continue;
		}
		const paid = await sb.send('PUT', `/orders/${held.body.id}/status`, { toStatus: 'paid' });
		expect(paid.status).toBe(200);
		orders.push({ id: held.body.id, payAt: Date.parse(paid.body.payAt) });
	}
	await clockAt(now);
	return { eventId: String(event.id), orders };
}

const sorted = (ids: unknown[]) => ids.map(Number).sort((a, b) => a - b);
const afterText = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

let ran = { cases: 0, refused: 0, empty: 0 };

async function runCase(c: Case) {
	const now = startOf(c.day, c.zone) + c.minute * MINUTE;
	const { eventId, orders } = await ordersOf(c, now);
	const parameters: IDataObject = {
		resource: 'order',
		operation: 'getManyForEvent',
		eventId: { __rl: true, mode: 'id', value: eventId },
		paid: c.choice,
		paidAfter: boundText(c.after, now, c.zone),
		paidBefore: boundText(c.before, now, c.zone),
		...(c.limit === undefined ? { returnAll: true } : { returnAll: false, limit: c.limit }),
	};
	const before = await mark(sb);
	const { items, error } = await runPublicEvents(store, parameters as INodeParameters, {
		timezone: c.zone,
	});
	// Answered lists: a request refused for a token expired on the moved clock is sent again.
	const lists = (await since(sb, before)).filter(
		(e) => e.route === '/event-points/{id}/orders' && e.status === 200,
	);
	ran.cases++;
	const range = rangeOf(c, now);
	if (range?.from !== undefined && range.to !== undefined && range.to <= range.from) {
		ran.refused++;
		expect([error?.message.split(':')[0], lists.length]).toEqual(['Paid Before', 0]);
		return;
	}
	const within = (at: number | null) =>
		range === undefined ||
		(at !== null &&
			(range.from === undefined || at >= range.from) &&
			(range.to === undefined || at < range.to));
	const expected = sorted(orders.filter((o) => within(o.payAt)).map((o) => o.id));
	if (expected.length === 0) ran.empty++;
	const got = sorted(items.map((item) => item.json.id));
	expect(error).toBeUndefined();
	if (c.limit === undefined) expect(got).toEqual(expected);
	else {
		expect(got).toHaveLength(Math.min(c.limit, expected.length));
		expect(expected).toEqual(expect.arrayContaining(got));
	}
	const sent = range?.from === undefined ? null : afterText(range.from);
	expect(lists.map((e) => new URLSearchParams(e.query).get('payAt[after]'))).toEqual([sent]);
}

it('Paid: exactly the orders paid in the range, for any zone, day and choice', async () => {
	ran = { cases: 0, refused: 0, empty: 0 };
	await checkProperty('Get Many for Event > Paid', caseArb, runCase, 40);
	process.stdout.write(
		`Paid: ${ran.cases} cases, ${ran.refused} refused bounds, ${ran.empty} empty ranges\n`,
	);
}, 600_000);

it(
	"kept: seed 520100734, the model's own mistake (a list refused for a token that " +
		'expired on the moved clock was counted as sent)',
	async () => {
		await runCase({
			zone: 'Europe/Berlin',
			day: '2026-11-02',
			minute: 865,
			choice: 'anyTime',
			after: { kind: 'day', daysBack: 4 },
			before: { kind: 'day', daysBack: 18 },
			payments: [],
			limit: 2,
		});
	},
);

it(
	'by hand: orders paid a second either side of the start of a DST day ' +
		'(Berlin, 29 March 2026), Yesterday',
	async () => {
		await runCase({
			zone: 'Europe/Berlin',
			day: '2026-03-30',
			minute: 600,
			choice: 'yesterday',
			after: { kind: 'none' },
			before: { kind: 'none' },
			payments: [
				{ kind: 'dayStart', daysBack: 1, seconds: -1 },
				{ kind: 'dayStart', daysBack: 1, seconds: 0 },
				{ kind: 'dayStart', daysBack: 0, seconds: -1 },
				{ kind: 'dayStart', daysBack: 0, seconds: 0 },
			],
		});
	},
);
