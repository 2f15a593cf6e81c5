/**
 * Invariant: whatever faults meet an order write (Create, Change Status to paid or expired, Extend
 * Hold, Add Place, Remove Ticket, Change Ticket Status) and its read-back, and whatever quirks the
 * service has (answers applied but unreadable, writes redirected, reads redirected):
 * 1. the write reaches the service at most once (the sandbox's request log: an answer the service
 *    gave without acting, 429 or 401, is not a send), and nothing reaches another origin;
 * 2. the node names one outcome, in words: applied (an item; `writeCheck` when read back),
 *    "Refused: … was NOT applied", "Not sent: … was NOT applied", "… was NOT applied … safe to
 *    run it again", "Uncertain: … not applied when the node checked" or "Uncertain: … may or may
 *    not have been applied";
 * 3. the outcome agrees with the sandbox's state once every request has run its course: applied is
 *    applied (for Create, the order given is the one it made); every "NOT applied" is not applied;
 *    "not applied when the node checked" is not applied unless the write was still running at the
 *    service when the node read it back; the same whether tickets name their places by number,
 *    numeric string or IRI, the event's order list shows a new order late, or writes answer 204;
 *    a refusal is read back only when a repeat of an applied write could get it (400, 409, 422 to
 *    a write to one order);
 * A read-back follows a redirect within the service's origin, as any read does (it takes only an
 * answer that is the order it asked for); one to another origin is covered by 1.
 * Cases run through n8n-core against the sandbox over real HTTP (harness/props/writes.cases.ts).
 */
import fc from 'fast-check';

import { mark, since, type LogEntry } from '../../harness/nodes/publicEvents';
import { checkProperty } from '../../harness/props/property';
import {
	CONFIRM_S,
	TIMEOUT_S,
	writesSuite,
	type Case,
	type Op,
	type ReadFault,
	type WriteFault,
} from '../../harness/props/writes.cases';

const { sb, prepare, order } = writesSuite();

const OPS: Op[] = [
	'create',
	'paid',
	'expired',
	'extendHold',
	'addPlace',
	'removeTicket',
	'refundTicket',
];

const writeFault: fc.Arbitrary<WriteFault> = fc.oneof(
	{ weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('status' as const),
			status: fc.constantFrom(400, 401, 404, 409, 422, 429, 500, 502, 503, 504),
			count: fc.integer({ min: 1, max: 3 }),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('drop' as const),
			phase: fc.constantFrom('before' as const, 'after' as const),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('latency' as const),
			delayMs: fc.constantFrom(50, TIMEOUT_S * 1000 + 500),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constantFrom('html' as const, 'malformed' as const, 'empty' as const),
			status: fc.constantFrom(200, 201, 500, 502),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('mangle' as const),
			as: fc.constantFrom(
				'gzip' as const,
				'html' as const,
				'garbage' as const,
				'truncated' as const,
			),
		}),
	},
	{ weight: 1, arbitrary: fc.constant({ kind: 'redirect' as const }) },
);

const readFault: fc.Arbitrary<ReadFault> = fc.record({
	kind: fc.constantFrom(
		'status' as const,
		'drop' as const,
		'html' as const,
		'malformed' as const,
		'empty' as const,
	),
	status: fc.constantFrom(200, 404, 429, 500, 502, 503),
	/** Which read route of the operation (Create has two). */
	route: fc.nat({ max: 1 }),
	/** 0: every matching read until the case ends. */
	count: fc.constantFrom(0, 1, 1, 2),
});

const cases: fc.Arbitrary<Case> = fc.record({
	op: fc.constantFrom(...OPS),
	write: writeFault,
	reads: fc.oneof(
		{ weight: 2, arbitrary: fc.constant<ReadFault[]>([]) },
		{ weight: 3, arbitrary: fc.array(readFault, { minLength: 1, maxLength: 2 }) },
	),
	redirectReads: fc.oneof(
		{ weight: 4, arbitrary: fc.constant(false) },
		{ weight: 1, arbitrary: fc.constant(true) },
	),
	readQuirks: fc.record(
		{
			ticketPlaceIds: fc.constantFrom('string' as const, 'iri' as const),
			orderListLagMs: fc.constantFrom(0, 800),
			emptyWriteAnswers: fc.boolean(),
		},
		{ requiredKeys: [] },
	),
});

type Said = 'applied' | 'refused' | 'notSent' | 'notApplied' | 'notYet' | 'unknown';

/** The outcome the node named; throws when its words name none. */
function said(result: { items: Array<{ json: Record<string, unknown> }>; error?: Error }): Said {
	if (!result.error) {
		expect(result.items.length).toBeGreaterThan(0);
		const check = result.items[0].json.writeCheck as
			| { outcome?: string; cause?: string }
			| undefined;
		if (check)
			expect(check).toEqual({ outcome: 'applied', cause: expect.stringMatching(/\w{3,}/) });
		return 'applied';
	}
	const message = result.error.message;
	if (/^Refused: .+ was NOT applied\b/.test(message)) return 'refused';
	if (/^Not sent: .+ was NOT applied\b/.test(message)) return 'notSent';
	if (
		new RegExp(
			'^Uncertain: .+ was not applied when the node checked: .+ Che' +
				'ck .+ before running this again',
		).test(message)
	)
		return 'notYet';
	if (
		/^Uncertain: .+ may or may not have been applied: .+ It was not sent again\. Check /.test(
			message,
		)
	)
		return 'unknown';
	if (/^[A-Z].+ was NOT applied: .+ It is safe to run it again\./.test(message))
		return 'notApplied';
	throw new Error(`the message names no outcome: ${message}`);
}

/** A request the service answered without acting on it (the fault said so): not a send. */
const unheard = (e: LogEntry) => e.fault === 'status' && (e.status === 429 || e.status === 401);

async function run(c: Case): Promise<void> {
	const prepared = await prepare(c);
	const writeRoute = prepared.route;
	try {
		for (const rule of prepared.faults) await sb().admin('POST', '/faults', rule);
		const quirks = {
			...prepared.quirks,
			...c.readQuirks,
			...(c.redirectReads ? { redirect: 'same-origin' as const } : {}),
		};
		if (Object.keys(quirks).length) await sb().setQuirks(quirks);
		const before = await mark(sb());
		const result = await order(prepared.operation, {
			...prepared.parameters,
			options: {
				maxRetries: 1,
				maxRetryWait: 2,
				timeout: TIMEOUT_S,
				confirmWaitSeconds: CONFIRM_S,
			},
		});
		await sb().app.idle(); // a slow write runs to its end after the node gave up
		await sb().setQuirks({});
		await sb().admin('DELETE', '/faults');
		const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
		const writes = log.filter((e) => e.method === writeRoute.method && e.route === writeRoute.path);
		const sent = writes.filter((e) => !unheard(e));
		const firstWrite = writes[0]?.seq ?? Infinity;
		const readBacks = log.filter((e) => e.method === 'GET' && e.seq > firstWrite);
		const applied = await prepared.applied();
		const outcome = said(result as never);
		const context = {
			outcome,
			applied,
			message: result.error?.message,
			log: log.map((e) => `${e.method} ${e.path} ${e.status ?? '-'} ${e.fault ?? ''}`),
		};

		// 1. At most once, and only here.
		expect({ ...context, sent: sent.length }).toEqual({ ...context, sent: expect.any(Number) });
		expect(sent.length).toBeLessThanOrEqual(1);
		expect(await sb().otherOriginRequests()).toEqual([]);
		// 3. The words agree with the state.
		switch (outcome) {
			case 'applied':
				expect(context).toEqual({ ...context, applied: true });
				// The order given is the one this write made, never another live one on the event.
				if (prepared.made)
					expect({ ...context, own: prepared.made(Number(result.items[0].json.id)) }).toEqual({
						...context,
						own: true,
					});
				break;
			case 'refused': {
				expect(context).toEqual({ ...context, applied: false });
				// A refusal a repeat of an applied write would also get (400, 409, 422) is checked
				// against the order first: one read of it. No other refusal is read back.
				const answered = writes.at(-1)?.status ?? 0;
				if (c.op !== 'create' && [400, 409, 422].includes(answered))
					expect(readBacks.filter((e) => e.route !== '/orders/{id}')).toEqual([]);
				else expect(readBacks).toEqual([]);
				break;
			}
			case 'notSent':
				expect(context).toEqual({ ...context, applied: false });
				expect(sent).toEqual([]);
				break;
			case 'notApplied':
				expect(context).toEqual({ ...context, applied: false });
				expect(readBacks.length).toBeGreaterThan(0);
				break;
			case 'notYet': {
				// Not applied when read, unless it was still running there then (a slow write cut short).
				const stillRunning =
					sent.some((e) => e.fault === 'latency') &&
					c.write.kind === 'latency' &&
					c.write.delayMs > TIMEOUT_S * 1000;
				if (!stillRunning) expect(context).toEqual({ ...context, applied: false });
				expect(result.error?.message).not.toMatch(/safe to run/i);
				break;
			}
			case 'unknown':
				expect(result.error?.message).not.toMatch(/safe to run/i);
				break;
		}
	} finally {
		await sb().setQuirks({});
		await sb().admin('DELETE', '/faults');
		await sb().clearOtherOrigin();
		await prepared.release();
	}
}

/**
 * Counterexamples fast-check found, kept as cases of their own (seed and path as it printed them).
 * - seed 185831063, path 41:2:2:3:3: Extend Hold's first read answered 200 with something other
 *   than the order; the write then failed (502) and the read-back, compared with that, said
 *   "applied". Fixed: an answer that is not the order asked for is no read.
 * - seed 1863530036, path 11:0:0:1:1: under a same-origin redirect of every GET, Create's
 *   read-back followed the redirect (kept: a read-back now follows one within the origin, and the
 *   case checks that its outcome still matches the state).
 */
const REGRESSIONS: Case[] = [
	{
		op: 'extendHold',
		write: { kind: 'status', status: 502, count: 1 },
		reads: [{ kind: 'status', status: 200, route: 0, count: 1 }],
		redirectReads: false,
	},
	{
		op: 'create',
		write: { kind: 'mangle', as: 'gzip' },
		reads: [{ kind: 'status', status: 200, route: 1, count: 0 }],
		redirectReads: true,
	},
];

describe(
	'order writes under random faults: sent at most once, the ' +
		'outcome named as the sandbox holds it',
	() => {
		it.each(REGRESSIONS.map((c) => [JSON.stringify(c), c] as const))(
			'regression %s',
			async (_, c) => {
				await run(c);
			},
		);

		it('property', async () => {
			const started = Date.now();
			await checkProperty('writes: at most once, outcome as the state', cases, run, 60);
			process.stdout.write(`writes property: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
		}, 600_000);
	},
);
