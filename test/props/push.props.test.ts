/**
 * Invariant: whatever mix of deliveries reaches the Public Events Trigger, each genuine
 * notification starts exactly one run, and nothing else starts any.
 *
 * Signature (with a signed time): a notification is genuine when the sender signed one of its
 * attempts inside the Replay Window; attempts signed outside it are refused, and so are forged
 * ones (no header, a wrong secret, another body's signature, a time changed after signing).
 * Replays of any earlier request byte for byte, re-sends of a signed body under a new delivery id,
 * bursts of one attempt at once and restarts (static data kept, memory lost) start nothing new.
 *
 * Security None: a claim is genuine when the API shows it (a sale of a paid or since refunded
 * order, a refund of an order with refunded tickets); each genuine claim starts one run however
 * often and under whichever delivery ids it is repeated, false claims start none, and each claim
 * costs one GET.
 */
import fc from 'fast-check';

import { mark, since } from '../../harness/nodes/publicEvents';
import { reserveOrder, SECRET, sign, signAt } from '../../harness/sandbox/push';
import { SandboxClient } from '../../harness/sandbox/client';
import { NONE, post, SIGNED, Triggers } from '../../harness/nodes/webhookTrigger';
import { checkProperty } from '../../harness/props/property';

type Forgery = 'unsigned' | 'wrongSecret' | 'otherBody' | 'timeChanged' | 'garbage';
type Action =
	| { kind: 'send'; n: number; skewS: number; copies: number }
	| { kind: 'forge'; n: number; how: Forgery }
	| { kind: 'replay'; pick: number }
	| { kind: 'rename'; pick: number }
	| { kind: 'restart' };

/**
 * Well inside or well outside the 300 s window, so the seconds a case takes cannot tip one over.
 */
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
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('rename' as const), pick: fc.nat() }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

interface Sent {
	body: string;
	headers: Record<string, string>;
}

let sb: SandboxClient;
const triggers = new Triggers(() => sb);
let cases = 0;

beforeAll(async () => (sb = await SandboxClient.start({ events: 3, placesPerEvent: 30 })));
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

test(
	'signed deliveries: each genuine notification starts exactly ' +
		'one run; forged and replayed ones none',
	async () => {
		await checkProperty(
			'push trigger, Signature with a signed time',
			fc.array(action, { minLength: 1, maxLength: 30 }),
			async (actions) => {
				const workflow = `props-signed-${++cases}`;
				const instances = [await triggers.start(SIGNED, { workflowId: workflow })];
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
						const statuses = await Promise.all(
							Array.from({ length: step.copies }, () => send(request)),
						);
						expect(statuses).toEqual(statuses.map(() => (inside ? 200 : 401)));
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
						const headers =
							step.kind === 'rename'
								? { ...earlier.headers, 'x-delivery-id': `renamed_${step.pick}` }
								: earlier.headers;
						expect([200, 401]).toContain(await send({ body: earlier.body, headers }));
					} else {
						// A restart: the memory is gone (a new scope), the saved static data stays.
						instances.push(
							await triggers.start(SIGNED, {
								workflowId: `${workflow}-${instances.length}`,
								staticData: current().staticData,
							}),
						);
					}
				}
				const runs = new Map<string, number>();
				for (const { json } of instances.flatMap((instance) => instance.executions.flat()))
					runs.set(String(json.deliveryId), (runs.get(String(json.deliveryId)) ?? 0) + 1);
				expect(Object.fromEntries(runs)).toEqual(
					Object.fromEntries([...genuine].map((n) => [`ntf_${n}`, 1])),
				);
				await triggers.closeAll();
			},
			100,
		);
	},
);

type Claim = {
	type: 'sale' | 'refund';
	order: keyof typeof orders | 'missing';
	widget: boolean;
	id: number;
};
const orders = { reserved: 0, paid: 0, refunded: 0, partly: 0 };
/**
 * What the API shows, as the claims the trigger must start: a sale of an order once paid, a refund
 * with refunded tickets.
 */
const TRUE_CLAIMS = new Set([
	'sale:paid',
	'sale:refunded',
	'sale:partly',
	'refund:refunded',
	'refund:partly',
]);

const claim: fc.Arbitrary<Claim> = fc.record({
	type: fc.constantFrom('sale' as const, 'refund' as const),
	order: fc.constantFrom(
		'reserved' as const,
		'paid' as const,
		'refunded' as const,
		'partly' as const,
		'missing' as const,
	),
	widget: fc.constantFrom(false, false, false, true),
	id: fc.nat(3),
});

test(
	'Security None: each claim the API shows starts one run, ' +
		'however repeated; false claims none; one GET each',
	async () => {
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
		await checkProperty(
			'push trigger, Security None',
			fc.array(claim, { minLength: 1, maxLength: 20 }),
			async (claims) => {
				const trigger = await triggers.start(
					{ ...NONE, events: ['sale', 'refund'] },
					{ workflowId: `props-none-${++cases}` },
				);
				const before = await mark(sb);
				for (const c of claims) {
					const orderId = c.order === 'missing' ? 999_999 : orders[c.order];
					const data = { orderId, ...(c.widget ? { source: 'widget' } : {}) };
					const answer = await post(
						trigger.url,
						JSON.stringify({
							id: `claim-${c.id}`,
							type: `order.${c.type}`,
							occurredAt: new Date().toISOString(),
							data,
						}),
					);
					expect(answer).toEqual({ status: 200, text: '' });
				}
				// Widget claims name API orders here: the widget lists do not hold them, so none is true.
				const expected = new Set(
					claims
						.filter((c) => !c.widget && TRUE_CLAIMS.has(`${c.type}:${c.order}`))
						.map((c) => `${c.type}:${orders[c.order as keyof typeof orders]}`),
				);
				const started = trigger.executions.map(
					([item]) => `${item.json.type}:${item.json.orderId}`,
				);
				expect(started.sort()).toEqual([...expected].sort());
				const reads = (await since(sb, before)).filter((e) => e.method === 'GET');
				expect(reads).toHaveLength(claims.length);
				await triggers.closeAll();
			},
			50,
		);
	},
);
