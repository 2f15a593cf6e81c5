/**
 * Invariant: whatever a 422 to Hold Best Available's POST /orders says and however its
 * Retry-After is given, on a service clock behind or ahead of this one:
 * 1. a 422 the node cannot tell is the account's reserved-tickets limit (the per-order limit, a
 *    validation error, words it cannot place) sends one POST and fails at once with the
 *    service's words;
 * 2. the account's limit is waited out, each wait at least a second (Retry-After 0 and dates not
 *    in the future included) and at least what Retry-After asked, never past Max Wait: at most
 *    1 + Max Wait / 1 s POSTs, one with Max Wait 0, the whole item within Max Wait (plus the
 *    requests' own time);
 * 3. when the limit clears within Max Wait, the places are held, once.
 * Cases run through n8n-core against the sandbox over real HTTP; the sandbox clock is moved, the
 * test never sleeps.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { byId, orderNodeSuite } from '../../harness/nodes/orderNode';
import { mark, since } from '../../harness/nodes/publicEvents';
import { checkProperty } from '../../harness/props/property';
import { HOUR } from '../../harness/time';

const suite = orderNodeSuite();
const { sb, order, setStatus } = suite;

const ACCOUNT_CODES = ['reserved_tickets_limit', 'RESERVED-TICKETS', 'limit', 'error'];
const ACCOUNT_WORDS = [
	'Too many reserved tickets',
	'The account may hold at most 40 reserved tickets at once',
	'Simultaneously reserved tickets limit reached',
	'Your company has reached its reservation limit',
];
const OTHER_BODIES: IDataObject[] = [
	{ code: 'tickets_per_order_limit', message: 'An order may hold at most 10 tickets' },
	{ code: 'limit', message: 'At most 6 tickets per purchase' },
	{ message: 'Maximum 4 tickets per transaction' },
	{
		'hydra:title': 'An error occurred',
		'hydra:description': 'places: This collection should contain 10 elements or less.',
		violations: [
			{ propertyPath: 'places', message: 'This collection should contain 10 elements or less.' },
		],
	},
	{ message: 'Unprocessable entity' },
	{ error: 'rule 7b' },
];

interface Case {
	body: IDataObject;
	account: boolean;
	retryAfter?: number | { date: number };
	/** The service's clock against this one. */
	skewMs: number;
	maxWaitS: number;
	/** 422s before the POST goes through (0: every one). */
	refusals: number;
}

const caseArb: fc.Arbitrary<Case> = fc
	.record({
		account: fc.boolean(),
		code: fc.constantFrom(...ACCOUNT_CODES),
		words: fc.constantFrom(...ACCOUNT_WORDS),
		other: fc.constantFrom(...OTHER_BODIES),
		retryAfter: fc.option(
			fc.oneof(fc.integer({ min: 0, max: 2 }), fc.record({ date: fc.integer({ min: 0, max: 2 }) })),
			{ nil: undefined },
		),
		skewMs: fc.constantFrom(0, -HOUR, -10 * 60_000, 10 * 60_000),
		maxWaitS: fc.integer({ min: 0, max: 2 }),
		refusals: fc.integer({ min: 0, max: 3 }),
	})
	.map(({ account, code, words, other, ...rest }) => ({
		...rest,
		account,
		body: account ? { code, message: words } : other,
	}));

const posts = async (from: number) =>
	(await since(sb(), from)).filter((e) => e.method === 'POST' && e.route === '/orders');

let waited = 0;

async function run(c: Case): Promise<void> {
	const { body: event } = await sb().admin('POST', '/events', { places: 10 });
	await sb().advanceClock(c.skewMs);
	await sb().admin('POST', '/faults', {
		kind: 'status',
		status: 422,
		method: 'POST',
		path: '/orders',
		count: c.refusals,
		body: c.body,
		...(c.retryAfter === undefined ? {} : { retryAfter: c.retryAfter }),
	});
	try {
		const before = await mark(sb());
		const started = Date.now();
		const { items, error } = await order('holdBestAvailable', {
			eventId: byId(String(event.id)),
			quantity: 1,
			options: { limitWaitSeconds: c.maxWaitS },
		});
		const took = Date.now() - started;
		const sent = await posts(before);
		const context = {
			case: c,
			took,
			sent: sent.map((e) => `${e.at} ${e.status}`),
			error: error?.message,
		};
		if (!c.account) {
			// 1. At once, in the service's words.
			expect({ ...context, count: sent.length }).toEqual({ ...context, count: 1 });
			const words = String(c.body.message ?? c.body.error ?? '');
			if (words) expect(error?.message).toContain(words);
			expect(error?.message).toMatch(/^Refused: /);
			return;
		}
		// 2. Bounded: requests, gaps, time.
		const floorMs = Math.max(
			1000,
			typeof c.retryAfter === 'number'
				? c.retryAfter * 1000
				: c.retryAfter
					? c.retryAfter.date * 1000
					: 0,
		);
		expect({ ...context, many: sent.length <= 1 + Math.floor((c.maxWaitS * 1000) / 1000) }).toEqual(
			{
				...context,
				many: true,
			},
		);
		if (c.maxWaitS === 0) expect(sent).toHaveLength(1);
		for (let n = 1; n < sent.length; n++)
			expect({ ...context, gap: sent[n].at - sent[n - 1].at >= floorMs - 5 }).toEqual({
				...context,
				gap: true,
			});
		expect({ ...context, inTime: took <= c.maxWaitS * 1000 + 1500 }).toEqual({
			...context,
			inTime: true,
		});
		waited += sent.length - 1;
		// 3. Held once when the limit cleared in time.
		if (!error) {
			expect(sent.filter((e) => e.status === 201)).toHaveLength(1);
			await setStatus(Number(items[0].json.id), 'expired');
		} else expect(error.message).toContain('Max Wait for the Reserved-Tickets Limit');
	} finally {
		await sb().admin('DELETE', '/faults');
		await sb().advanceClock(-c.skewMs);
	}
}

/**
 * Kept cases. Against waits without a floor (before this suite) the property finds, with seed
 * 1985468374, the account's limit answered with no Retry-After and Max Wait 1 s failing the gaps;
 * with Retry-After 0 (issue 33's 300 POSTs in a second) on a service clock an hour behind it is
 * the same loop.
 */
const KEPT: Case[] = [
	{
		account: true,
		body: { code: 'reserved_tickets_limit', message: 'Too many reserved tickets' },
		retryAfter: undefined,
		skewMs: 0,
		maxWaitS: 1,
		refusals: 0,
	},
	{
		account: true,
		body: { code: 'reserved_tickets_limit', message: 'Too many reserved tickets' },
		retryAfter: 0,
		skewMs: -HOUR,
		maxWaitS: 2,
		refusals: 0,
	},
];

describe("Hold Best Available's waits on a 422: bounded in requests and time", () => {
	it.each(KEPT.map((c) => [JSON.stringify(c), c] as const))('kept: %s', async (_, c) => {
		await run(c);
	});

	it('property', async () => {
		await checkProperty('422 bodies and Retry-After shapes', caseArb, run, 20);
		// Some cases did wait the limit out.
		expect(waited).toBeGreaterThan(0);
	}, 600_000);
});
