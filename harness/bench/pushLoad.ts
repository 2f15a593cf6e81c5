import { randomUUID } from 'node:crypto';

import { Agent, request } from 'undici';

import { forwardingWorkflow, signedPushTrigger } from '../n8n/forwardingWorkflow';
import { Receiver } from '../net/receiver';
import type { SandboxClient } from '../sandbox/client';
import { signAt, until } from '../sandbox/push';

/**
 * The push benchmark's parts (bench/push.bench.ts): three receivers of the same signed sale
 * deliveries, each forwarding what it takes to a stand-in destination; the sandbox's own
 * deliveries captured once and sent to each; the destination's count of lost and repeated sales.
 */

export const PUSH_SECRET = 'whsec_bench_push_6a0f3c11';
export const HOOK_CREDENTIAL = { id: 'PeBenchPushHook1', name: 'Public Events webhook (bench)' };
export const HEADER_CREDENTIAL = { id: 'PeBenchHdrAuth01', name: 'Header Auth (bench)' };
/** The header n8n's Webhook node with Header Auth checks: the same secret, sent as a token. */
const TOKEN_HEADER = 'x-webhook-token';

export interface PushReceiver {
	label: string;
	workflow: { id: string } & object;
	/** After /webhook/. */
	path: string;
	/** The stand-in destination its workflow forwards each item to. */
	destination: Receiver;
	/** The sale's order id in what the destination received. */
	orderOf(forwarded: Record<string, any>): string;
}

function webhookNode(path: string, headerAuth: boolean) {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'onReceived',
			...(headerAuth ? { authentication: 'headerAuth' } : {}),
			options: {},
		},
		...(headerAuth ? { credentials: { httpHeaderAuth: HEADER_CREDENTIAL } } : {}),
	};
}

/**
 * (a) the Public Events Trigger, Signature, default settings; (b) n8n's Webhook node with Header
 * Auth; (c) n8n's Webhook node without authentication: each Trigger -> HTTP Request (forward).
 */
export async function pushReceivers(): Promise<PushReceiver[]> {
	const [a, b, c] = await Promise.all([Receiver.start(), Receiver.start(), Receiver.start()]);
	const triggerId = randomUUID();
	const fromWebhook = (json: Record<string, any>) => String(json.body?.data?.orderId);
	return [
		{
			label: 'Public Events Trigger (Signature)',
			workflow: forwardingWorkflow(
				'PeBenchPushTrig1',
				// 1.1, as a trigger added now is: n8n evaluates an expression per request for a
				// webhook node at version 1 (the binary data option of the old Webhook node).
				{ ...signedPushTrigger(triggerId, HOOK_CREDENTIAL, ['sale']), typeVersion: 1.1 },
				a.url,
			),
			path: `${triggerId}/webhook`,
			destination: a,
			orderOf: (json) => String(json.orderId),
		},
		{
			label: "n8n's Webhook node, Header Auth",
			workflow: forwardingWorkflow('PeBenchPushHdr01', webhookNode('bench-push-auth', true), b.url),
			path: 'bench-push-auth',
			destination: b,
			orderOf: fromWebhook,
		},
		{
			label: "n8n's Webhook node, no authentication",
			workflow: forwardingWorkflow('PeBenchPushPln01', webhookNode('bench-push', false), c.url),
			path: 'bench-push',
			destination: c,
			orderOf: fromWebhook,
		},
	];
}

/** Credentials as `n8n import:credentials` takes them. */
export const pushCredentials = () => [
	{ ...HOOK_CREDENTIAL, type: 'publicEventsWebhookApi', data: { secret: PUSH_SECRET } },
	{
		...HEADER_CREDENTIAL,
		type: 'httpHeaderAuth',
		data: { name: 'X-Webhook-Token', value: PUSH_SECRET },
	},
];

/** `count` widget sales made in the sandbox, and the notification body it pushed for each. */
export async function saleDeliveries(sb: SandboxClient, count: number): Promise<string[]> {
	const capture = await Receiver.start();
	try {
		const subscribed = await sb.admin('POST', '/webhooks', {
			url: capture.url,
			types: ['order.sale'],
		});
		if (subscribed.status !== 201) throw new Error(`subscribing answered ${subscribed.status}`);
		for (let i = 0; i < count; i++) {
			const sold = await sb.admin('POST', '/widget-orders', { company: 'partner', tickets: 1 });
			if (sold.status !== 201) throw new Error(`sale ${i + 1} answered ${sold.status}`);
		}
		await until(async () => capture.requests.length >= count, `${count} pushes captured`, 60_000);
		return capture.requests.slice(0, count).map((r) => r.raw);
	} finally {
		await sb.admin('DELETE', '/webhooks');
		await capture.close();
	}
}

export interface LoadResult {
	/** From the first send to the last delivery answered 2xx. */
	answeredS: number;
	/** From the first send until the destination held every sale (or the wait ended). */
	forwardedS: number;
	/** Attempts answered non-2xx (or not at all) and sent again. */
	retries: number;
	/** Sales the destination never received, and those it received more than once. */
	lost: number;
	duplicates: number;
}

/**
 * Sends every body to `urls` (round robin: the balancer in front of the webhook processors),
 * `concurrency` at a time, as a sender does: signed anew per attempt, the token header for Header
 * Auth, a 60 s wait for each answer, a non-2xx sent again 1 s later (5 attempts). Then waits for
 * the destination to hold them all (2 minutes at most) and counts what it holds.
 */
export async function pushLoad(
	receiver: PushReceiver,
	urls: string[],
	bodies: string[],
	concurrency: number,
	/** The certificates to trust when the URLs are the WAN stand-in's (TLS). */
	ca?: string[],
): Promise<LoadResult> {
	const agent = new Agent({
		connections: concurrency,
		keepAliveTimeout: 4000,
		...(ca ? { connect: { ca } } : {}),
	});
	const kept = receiver.destination.requests.length;
	const orders = bodies.map((body) => String(JSON.parse(body).data.orderId));
	let next = 0;
	let retries = 0;
	const started = performance.now();
	const attempt = async (body: string, n: number): Promise<boolean> => {
		try {
			const res = await request(urls[n % urls.length], {
				method: 'POST',
				dispatcher: agent,
				headersTimeout: 60_000,
				bodyTimeout: 60_000,
				headers: {
					'content-type': 'application/json',
					'x-delivery-id': String(JSON.parse(body).id),
					'x-signature': signAt(PUSH_SECRET, body),
					[TOKEN_HEADER]: PUSH_SECRET,
				},
				body,
			});
			await res.body.dump();
			return res.statusCode >= 200 && res.statusCode < 300;
		} catch {
			return false;
		}
	};
	const worker = async () => {
		for (let n = next++; n < bodies.length; n = next++) {
			for (let tries = 1; !(await attempt(bodies[n], n + tries - 1)); tries++) {
				if (tries >= 5) throw new Error(`${receiver.label}: delivery ${n} refused 5 times`);
				retries++;
				await new Promise((resolve) => setTimeout(resolve, 1000));
			}
		}
	};
	try {
		await Promise.all(Array.from({ length: concurrency }, worker));
	} finally {
		await agent.close();
	}
	const answeredS = (performance.now() - started) / 1000;
	const received = () =>
		receiver.destination.requests
			.slice(kept)
			.map((r) => receiver.orderOf(JSON.parse(r.raw) as Record<string, any>));
	const wanted = new Set(orders);
	const deadline = Date.now() + 120_000;
	while (Date.now() < deadline && [...wanted].some((id) => !received().includes(id)))
		await new Promise((resolve) => setTimeout(resolve, 100));
	const forwardedS = (performance.now() - started) / 1000;
	// Late repeats land a moment after the last sale: a short look more.
	await new Promise((resolve) => setTimeout(resolve, 2000));
	const got = received().filter((id) => wanted.has(id));
	const distinct = new Set(got);
	return {
		answeredS,
		forwardedS,
		retries,
		lost: wanted.size - distinct.size,
		duplicates: got.length - distinct.size,
	};
}
