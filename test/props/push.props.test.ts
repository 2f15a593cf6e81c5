/**
 * Invariants of the Public Events Trigger over generated delivery schedules, through n8n-core's
 * engine against the sandbox (harness/engine/webhook.ts answers as n8n 2.40 does: once the run
 * exists, 500 when creating it fails):
 * - no 2xx without a run: every delivery answered 2xx has its run, started by it or by an
 *   earlier copy in the same process; a sender that retries until 2xx gets every genuine
 *   notification run;
 * - "duplicate" only after a run: a genuine delivery is answered duplicate only when a delivery
 *   with the same content started a run in that process;
 * - at most one run per real change per process, whatever is replayed, renamed, forged or
 *   claimed, each named by the change's dedupeKey (a destination keyed by it holds it once).
 *
 * Signature: schedules of genuine sends (inside or outside the Replay Window, copies at once),
 * forgeries, replays byte for byte, re-sends under the id of another notification (also one still
 * to come), restarts, and n8n failing or being slow to create runs.
 * Security None: true, false and lagging claims (a sale whose order is paid while the trigger
 * re-checks it), forged event updates with sales and real edits between them, and failed run
 * creations; each claim costs at most 3 reads. The re-check's waits (1 s, 2 s) are not slept: the
 * test does what happens meanwhile (a lagging order is paid) and goes on.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { RECHECK_WAITS_MS } from '../../nodes/PublicEventsTrigger/webhook/confirm';
import type { WebhookTrigger } from '../../harness/engine';
import { mark, since } from '../../harness/nodes/publicEvents';
import { reserveOrder, SECRET, sign, signAt } from '../../harness/sandbox/push';
import { SandboxClient } from '../../harness/sandbox/client';
import { NONE, post, SIGNED, Triggers } from '../../harness/nodes/webhookTrigger';
import { checkProperty, runsFor } from '../../harness/props/property';

/** The re-check's waits, while set: what happens meanwhile, instead of the wait. */
const mockRecheck: { meanwhile?: (ms: number) => Promise<void> } = {};
jest.mock('n8n-workflow', () => {
	const actual = jest.requireActual('n8n-workflow');
	return {
		...actual,
		sleep: async (ms: number) =>
			mockRecheck.meanwhile && ms >= 1000 ? await mockRecheck.meanwhile(ms) : actual.sleep(ms),
	};
});

type Forgery = 'unsigned' | 'wrongSecret' | 'otherBody' | 'timeChanged' | 'garbage';
type Action =
	| { kind: 'send'; n: number; skewS: number; copies: number }
	| { kind: 'forge'; n: number; how: Forgery }
	| { kind: 'replay'; pick: number }
	| { kind: 'rename'; pick: number; as: number }
	| { kind: 'failRuns'; count: number }
	| { kind: 'restart' };

/** Well inside or outside the 300 s window, so the seconds a case takes cannot tip one over. */
const INSIDE = [0, 5, -5, 60, -60, 240, -240];
const OUTSIDE = [360, -360, 900, -900, 86_400, -86_400];
const NOTIFICATIONS = 6;

const action: fc.Arbitrary<Action> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc.record({
			kind: fc.constant('send' as const),
			n: fc.nat(NOTIFICATIONS - 1),
			skewS: fc.constantFrom(...INSIDE, ...OUTSIDE),
			copies: fc.constantFrom(1, 1, 1, 3),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('forge' as const),
			n: fc.nat(NOTIFICATIONS - 1),
			how: fc.constantFrom<Forgery>(
				'unsigned',
				'wrongSecret',
				'otherBody',
				'timeChanged',
				'garbage',
			),
		}),
	},
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant('replay' as const), pick: fc.nat() }) },
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('rename' as const),
			pick: fc.nat(),
			as: fc.nat(NOTIFICATIONS - 1),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('failRuns' as const),
			count: fc.integer({ min: 1, max: 2 }),
		}),
	},
	{ weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

interface Schedule {
	actions: Action[];
	/** How long n8n takes to create each run: copies of a delivery meet while it is in flight. */
	slowMs: number;
}

const schedule: fc.Arbitrary<Schedule> = fc.record({
	actions: fc.array(action, { minLength: 1, maxLength: 30 }),
	slowMs: fc.constantFrom(0, 0, 15),
});

interface Sent {
	body: string;
	headers: Record<string, string>;
}

let sb: SandboxClient;
const triggers = new Triggers(() => sb);
let cases = 0;

beforeAll(async () => (sb = await SandboxClient.start({ events: 3, placesPerEvent: 1000 })));
afterAll(async () => {
	await triggers.closeAll();
	await sb.stop();
});

const bodyOf = (n: number) =>
	JSON.stringify({
		id: `ntf_${n}`,
		type: 'order.sale',
		occurredAt: new Date().toISOString(),
		data: { orderId: 700 + n },
	});

const is2xx = (status: number) => status >= 200 && status < 300;

/**
 * n8n creating runs for `trigger`: `failing` next creations fail, each takes `slowMs` (so copies
 * of a delivery meet while it is in flight).
 */
function runCreation(trigger: WebhookTrigger, slowMs: number) {
	const state = { failing: 0 };
	trigger.createRun = async () => {
		if (slowMs) await new Promise((resolve) => setTimeout(resolve, slowMs));
		if (state.failing > 0) {
			state.failing--;
			throw new Error('n8n could not create the run');
		}
	};
	return state;
}

/**
 * Per process, in the order answered: each 2xx has its run by then, a "duplicate" only after a
 * run for the same content, at most one run per content.
 */
function checkAnswers(instance: WebhookTrigger, contentOf: (raw: string) => string) {
	const started = new Set<string>();
	for (const call of instance.calls) {
		const content = contentOf(call.raw);
		const duplicate = is2xx(call.status) && call.response.includes('"duplicate"');
		if (duplicate) expect([content, started.has(content)]).toEqual([content, true]);
		if (call.workflowData) {
			expect([content, started.has(content)]).toEqual([content, false]);
			started.add(content);
		}
		if (is2xx(call.status)) expect([content, started.has(content)]).toEqual([content, true]);
	}
}

/** One generated schedule under Signature, checked. */
async function signedSchedule({ actions, slowMs }: Schedule): Promise<void> {
	const workflow = `props-signed-${++cases}`;
	const instances: WebhookTrigger[] = [];
	let creation = { failing: 0 };
	const restart = async () => {
		const next = await triggers.start(SIGNED, {
			workflowId: `${workflow}-${instances.length}`,
		});
		creation = runCreation(next, slowMs);
		instances.push(next);
	};
	await restart();
	const current = () => instances[instances.length - 1];
	const bodies = new Map<number, string>();
	const body = (n: number) => bodies.get(n) ?? (bodies.set(n, bodyOf(n)), bodies.get(n)!);
	const sent: Sent[] = [];
	const genuine = new Set<number>();
	const send = async (request: Sent) => {
		sent.push(request);
		return (await post(current().url, request.body, request.headers)).status;
	};
	for (const step of actions) {
		if (step.kind === 'send') {
			const raw = body(step.n);
			const request = {
				body: raw,
				headers: {
					'x-delivery-id': `ntf_${step.n}`,
					'x-signature': signAt(SECRET, raw, Date.now() + step.skewS * 1000),
				},
			};
			const inside = INSIDE.includes(step.skewS);
			if (inside) genuine.add(step.n);
			const statuses = await Promise.all(Array.from({ length: step.copies }, () => send(request)));
			// Inside: taken, a duplicate, or refused for n8n's failure (500) or a copy's (503).
			for (const status of statuses) expect(inside ? [200, 500, 503] : [401]).toContain(status);
		} else if (step.kind === 'forge') {
			const raw = body(step.n);
			const t = Math.floor(Date.now() / 1000);
			const forged: Record<Forgery, Record<string, string>> = {
				unsigned: {},
				wrongSecret: { 'x-signature': signAt(`${SECRET}!`, raw) },
				otherBody: { 'x-signature': signAt(SECRET, body((step.n + 1) % NOTIFICATIONS)) },
				timeChanged: {
					'x-signature': signAt(SECRET, raw, (t - 3600) * 1000).replace(/^t=\d+/, `t=${t}`),
				},
				garbage: { 'x-signature': `t=${t},sha256=${sign(SECRET, raw).slice(7, 40)}` },
			};
			expect(
				await send({
					body: raw,
					headers: { 'x-delivery-id': `forged_${step.n}`, ...forged[step.how] },
				}),
			).toBe(401);
		} else if (step.kind === 'replay' || step.kind === 'rename') {
			if (sent.length === 0) continue;
			const earlier = sent[step.pick % sent.length];
			// Renamed: under the id of another notification, maybe one still to come.
			const headers =
				step.kind === 'rename'
					? { ...earlier.headers, 'x-delivery-id': `ntf_${step.as}` }
					: earlier.headers;
			expect([200, 401, 500, 503]).toContain(await send({ body: earlier.body, headers }));
		} else if (step.kind === 'failRuns') {
			creation.failing += step.count;
		} else {
			await restart();
		}
	}
	creation.failing = 0;
	// The sender retries each genuine notification not answered 2xx yet, signed anew.
	const answered2xx = new Set(
		instances.flatMap((i) => i.calls.filter((c) => is2xx(c.status)).map((c) => c.raw)),
	);
	for (const n of genuine) {
		if (answered2xx.has(body(n))) continue;
		const raw = body(n);
		const headers = { 'x-delivery-id': `ntf_${n}`, 'x-signature': signAt(SECRET, raw) };
		expect(await send({ body: raw, headers })).toBe(200);
	}

	const contentOf = (raw: string) => String(JSON.parse(raw).id);
	for (const instance of instances) checkAnswers(instance, contentOf);
	const runs = instances.flatMap((instance) => instance.executions.flat());
	// Every genuine notification ran (at most once a process), and nothing else did.
	expect(new Set(runs.map(({ json }) => json.deliveryId))).toEqual(
		new Set([...genuine].map((n) => `ntf_${n}`)),
	);
	for (const { json } of runs)
		expect(json.dedupeKey).toBe(`sale:api:${700 + Number(String(json.deliveryId).slice(4))}`);
	await triggers.closeAll();
}

test(
	'signed deliveries: no 2xx without a run, no "duplicate" before a run, one run per ' +
		'notification per process; forged ones none',
	async () => {
		await checkProperty(
			'push trigger, Signature with a signed time',
			schedule,
			signedSchedule,
			100,
		);
	},
	30_000 + runsFor(100) * 500,
);

/**
 * Counterexamples the property found on the trigger as it was before it let n8n answer once the
 * run exists and kept its delivery windows in static data; run every time. The last two were
 * found with copies and failed run creations left out of the generator (it finds those first).
 */
const KEPT: Array<[string, Schedule]> = [
	[
		'n8n fails to create the run: the sender heard 200 and no run ever came (seed 1445148200)',
		{
			actions: [
				{ kind: 'failRuns', count: 1 },
				{ kind: 'send', n: 0, skewS: 0, copies: 1 },
			],
			slowMs: 0,
		},
	],
	[
		'three copies at once, n8n slow to create the run: a copy was answered "duplicate" before ' +
			'the run existed (seed 1504085417)',
		{
			actions: [
				{ kind: 'send', n: 0, skewS: 0, copies: 3 },
				{ kind: 'send', n: 0, skewS: 0, copies: 1 },
			],
			slowMs: 15,
		},
	],
	[
		"a signed delivery replayed under the next notification's id: that notification was " +
			'answered "duplicate" and never ran (seed 1192107953)',
		{
			actions: [
				{ kind: 'send', n: 0, skewS: 0, copies: 1 },
				{ kind: 'rename', pick: 0, as: 3 },
				{ kind: 'send', n: 3, skewS: 0, copies: 1 },
			],
			slowMs: 0,
		},
	],
	[
		'after a restart, a replay under another id ran under that unsigned id (seed 2146788243)',
		{
			actions: [
				{ kind: 'send', n: 0, skewS: 0, copies: 1 },
				{ kind: 'restart' },
				{ kind: 'rename', pick: 0, as: 1 },
			],
			slowMs: 0,
		},
	],
];
test.each(KEPT)('kept: %s', (_name, kept) => signedSchedule(kept));

type OrderState = 'reserved' | 'paid' | 'refunded' | 'partly' | 'missing' | 'lagging';
type Claim =
	| { kind: 'order'; type: 'sale' | 'refund'; order: OrderState; widget: boolean; id: number }
	| { kind: 'eventUpdated'; id: number }
	| { kind: 'sellSeat' }
	| { kind: 'editEvent' }
	| { kind: 'failRuns' };

const orders: Record<Exclude<OrderState, 'missing' | 'lagging'>, number> = {
	reserved: 0,
	paid: 0,
	refunded: 0,
	partly: 0,
};
/** What the API shows: a sale of an order once paid, a refund with refunded tickets. */
const TRUE_CLAIMS = new Set([
	'sale:paid',
	'sale:refunded',
	'sale:partly',
	'sale:lagging',
	'refund:refunded',
	'refund:partly',
]);

const claim: fc.Arbitrary<Claim> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record({
			kind: fc.constant('order' as const),
			type: fc.constantFrom('sale' as const, 'refund' as const),
			order: fc.constantFrom<OrderState>(
				'reserved',
				'paid',
				'refunded',
				'partly',
				'missing',
				'lagging',
			),
			widget: fc.constantFrom(false, false, false, true),
			id: fc.nat(3),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({ kind: fc.constant('eventUpdated' as const), id: fc.nat(3) }),
	},
	{ weight: 2, arbitrary: fc.constant({ kind: 'sellSeat' as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'editEvent' as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'failRuns' as const }) },
);

let event: { id: number };

/** Orders in each state the claims name, and the event the update claims are about. */
async function prepareOrders() {
	orders.reserved = (await reserveOrder(sb)).orderId;
	for (const name of ['paid', 'refunded', 'partly'] as const) {
		const { orderId, eventId } = await reserveOrder(sb);
		const place = await sb.freePlace(eventId);
		expect(
			(
				await sb.send('PUT', `/orders/${orderId}/add-place`, {
					places: [place.id],
					priceCategory: place.priceCategory,
				})
			).status,
		).toBe(200);
		const paid = await sb.send('PUT', `/orders/${orderId}/status`, { toStatus: 'paid' });
		if (name === 'refunded')
			expect(
				(await sb.send('PUT', `/orders/${orderId}/status`, { toStatus: 'refund' })).status,
			).toBe(200);
		if (name === 'partly')
			expect(
				(
					await sb.send(
						'PUT',
						`/orders/${orderId}/tickets/${paid.body.tickets[0].ticketId}/status`,
						{ toStatus: 'refund' },
					)
				).status,
			).toBe(200);
		orders[name] = orderId;
	}
	[event] = (await sb.get('/event-points', { query: { itemsPerPage: 1 } })).body;
}

/** One generated sequence of claims under Security None, checked. */
async function noneClaims(claims: Claim[]): Promise<void> {
	const trigger = await triggers.start(
		{ ...NONE, events: ['sale', 'refund', 'eventUpdated'] },
		{ workflowId: `props-none-${++cases}` },
	);
	const creation = runCreation(trigger, 0);
	/** Posts a claim; `meanwhile` runs once, in place of the re-check's first wait. */
	const claimOnce = async (body: string, meanwhile?: () => Promise<unknown>) => {
		let pending = meanwhile;
		mockRecheck.meanwhile = async () => {
			const now = pending;
			pending = undefined;
			await now?.();
		};
		const before = await mark(sb);
		try {
			return await post(trigger.url, body);
		} finally {
			mockRecheck.meanwhile = undefined;
			const reads = (await since(sb, before)).filter(
				(e) => e.method === 'GET' && e.route !== '/token',
			);
			expect(reads.length).toBeLessThanOrEqual(1 + RECHECK_WAITS_MS.length);
		}
	};
	for (const [index, c] of claims.entries()) {
		if (c.kind === 'sellSeat') {
			const sold = await sb.admin('POST', '/widget-orders', { eventPoint: event.id });
			expect(sold.status).toBe(201);
			continue;
		}
		if (c.kind === 'editEvent') {
			await sb.admin('PATCH', `/events/${event.id}`, { name: `Renamed ${index}` });
			continue;
		}
		if (c.kind === 'failRuns') {
			creation.failing++;
			continue;
		}
		let orderId = 999_999;
		let meanwhile: (() => Promise<unknown>) | undefined;
		if (c.kind === 'order' && c.order === 'lagging') {
			// Reserved when first read, paid while the trigger waits to read it again.
			orderId = (await reserveOrder(sb)).orderId;
			meanwhile = () => sb.send('PUT', `/orders/${orderId}/status`, { toStatus: 'paid' });
		} else if (c.kind === 'order' && c.order !== 'missing') {
			orderId = orders[c.order as keyof typeof orders];
		}
		const body =
			c.kind === 'eventUpdated'
				? JSON.stringify({
						id: `claim-${c.id}`,
						type: 'event.updated',
						data: { eventPointId: event.id },
					})
				: JSON.stringify({
						id: `claim-${c.id}`,
						type: `order.${c.type}`,
						occurredAt: new Date().toISOString(),
						data: { orderId, ...(c.widget ? { source: 'widget' } : {}) },
					});
		let answer = await claimOnce(body, meanwhile);
		// Widget claims name API orders here: the widget lists do not hold them.
		const real =
			c.kind === 'eventUpdated' || (!c.widget && TRUE_CLAIMS.has(`${c.type}:${c.order}`));
		expect([body, answer.status]).toEqual([body, real ? expect.any(Number) : 503]);
		// The sender of a true claim retries until 2xx (n8n failed to create its run).
		for (let retry = 0; real && answer.status === 500 && retry < 3; retry++)
			answer = await claimOnce(body);
		if (real) expect([body, answer]).toEqual([body, { status: 200, text: '' }]);
	}
	// In the order answered: each 2xx found a run for its claim started, each real change
	// started one run at most.
	const claimOf = (raw: string) => {
		const { type, data } = JSON.parse(raw);
		return `${type}:${data.orderId ?? data.eventPointId}`;
	};
	const keys = new Set<string>();
	const started = new Set<string>();
	for (const call of trigger.calls) {
		const key = call.workflowData?.[0][0].json.dedupeKey as string | undefined;
		if (key !== undefined) {
			expect([key, keys.has(key)]).toEqual([key, false]);
			keys.add(key);
			started.add(claimOf(call.raw));
		}
		if (is2xx(call.status))
			expect([call.raw, started.has(claimOf(call.raw))]).toEqual([call.raw, true]);
	}
	const ran = trigger.executions.map(([item]) => item.json as IDataObject);
	const expected = new Set(
		claims.flatMap((c) =>
			c.kind === 'order' &&
			!c.widget &&
			c.order !== 'lagging' &&
			TRUE_CLAIMS.has(`${c.type}:${c.order}`)
				? [`${c.type}:${orders[c.order as keyof typeof orders]}`]
				: [],
		),
	);
	const orderRuns = ran.filter((json) => json.type !== 'eventUpdated');
	const lagging = claims.filter((c) => c.kind === 'order' && c.order === 'lagging').length;
	const laggingSales = claims.filter(
		(c) => c.kind === 'order' && c.order === 'lagging' && c.type === 'sale' && !c.widget,
	).length;
	expect(
		new Set(orderRuns.map((json) => `${json.type}:${json.orderId}`).filter((k) => expected.has(k))),
	).toEqual(expected);
	expect(orderRuns).toHaveLength(expected.size + laggingSales);
	// Each named as the API order it is (widget claims here name API orders, and start none).
	for (const json of orderRuns)
		expect(String(json.dedupeKey).split(':').slice(0, 3)).toEqual([json.type, 'api', json.orderId]);
	// Event updates: one run per fingerprint of the event (sales between change none).
	const edits = claims.filter((c) => c.kind === 'editEvent').length;
	const updates = ran.filter((json) => json.type === 'eventUpdated').length;
	const claimed = claims.some((c) => c.kind === 'eventUpdated');
	expect(updates).toBeLessThanOrEqual(claimed ? edits + 1 : 0);
	expect(lagging).toBeGreaterThanOrEqual(laggingSales);
	await triggers.closeAll();
}

describe('Security None', () => {
	beforeAll(prepareOrders);

	test(
		'each claim the API shows starts one run, however repeated, lagging or after a failed ' +
			'run creation; false ones are answered 503 and start none; 3 reads at most',
		async () => {
			await checkProperty(
				'push trigger, Security None',
				fc.array(claim, { minLength: 1, maxLength: 16 }),
				noneClaims,
				40,
			);
		},
		30_000 + runsFor(40) * 1_500,
	);

	// Found on the trigger before it let n8n answer once the run exists: a sale read while its
	// payment was being recorded was answered 200 and started nothing.
	test('kept: a claim of a reserved order is answered 503, not 200 (seed 790374979)', () =>
		noneClaims([{ kind: 'order', type: 'sale', order: 'reserved', widget: false, id: 0 }]));
});
