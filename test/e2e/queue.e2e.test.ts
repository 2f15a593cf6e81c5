/**
 * Queue mode (harness/n8n/queueCluster.ts): one token for all workers, and pushes through two
 * webhook processors started once each. Webhook-started executions are spread over both
 * processors, as a load balancer would, and run on the workers. docs/queue-mode.md has the figures.
 */
import { randomUUID } from 'node:crypto';

import { apiCredential, N8N_VERSION, type N8nServer } from '../../scripts/n8n/instance';
import { Balancer, send } from '../../harness/net/balancer';
import { deliveriesOf, signAt, subscribe, until } from '../../harness/sandbox/push';
import { Receiver } from '../../harness/net/receiver';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { forwardingWorkflow, signedPushTrigger } from '../../harness/n8n/forwardingWorkflow';
import { QueueCluster, WORKERS } from '../../harness/n8n/queueCluster';
import { HOUR } from '../../harness/time';

const CALLS = 50;
const API_CREDENTIAL = { id: 'PeE2eCredQueue01', name: 'Public Events sandbox (e2e queue)' };
const TOKEN_WORKFLOW = 'PeE2eWfQueueTok1';
const TOKEN_PATH = 'queue-token';
const HOOK_CREDENTIAL = { id: 'PeE2eCredQueueHk', name: 'Public Events webhook (e2e queue)' };
const WEBHOOK_SECRET = 'whsec_e2e_queue_7c1d0a55';
const PUSH_WORKFLOW = 'PeE2eWfQueuePsh1';
const PUSH_WEBHOOK_ID = randomUUID();
const SALES = 6;
/** What n8n (2.40.7 and 1.123.81) says when the process running a workflow lacks the package. */
const MISSING_PACKAGE = 'Unrecognized node type: n8n-nodes-public-events.publicEvents';
const REFUNDS = 2;

/**
 * Webhook -> Public Events: one event. The webhook answers on receipt: answering when the run
 * ends left one of 50 calls without an answer once (its execution had finished on a worker).
 */
function tokenWorkflow() {
	return {
		id: TOKEN_WORKFLOW,
		name: 'e2e queue: one event per call',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: randomUUID(),
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path: TOKEN_PATH,
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				id: randomUUID(),
				name: 'Public Events',
				type: 'n8n-nodes-public-events.publicEvents',
				typeVersion: 1,
				position: [240, 0],
				parameters: { resource: 'event', operation: 'getMany', returnAll: false, limit: 1 },
				credentials: { publicEventsApi: API_CREDENTIAL },
			},
		],
		connections: { Webhook: { main: [[{ node: 'Public Events', type: 'main', index: 0 }]] } },
	};
}

describe('real n8n in queue mode: Redis, Postgres, main, 2 workers, 2 webhook processors', () => {
	let cluster: QueueCluster;
	let webhooks: N8nServer[] = [];
	let sink: Receiver;
	let balancer: Balancer;
	const sandbox = () => cluster.sandbox;
	const pushUrl = (hook: N8nServer) => `${hook.url}/webhook/${PUSH_WEBHOOK_ID}/webhook`;
	async function sell(): Promise<number> {
		const res = await sandbox().admin('POST', '/widget-orders', { company: 'partner', tickets: 1 });
		expect(res.status).toBe(201);
		return Number(res.body.id);
	}

	/** API requests of runs since a log position, as `METHOD route status`. */
	const requestsSince = (seq: number) =>
		sandbox()
			.app.log.since(seq)
			.map((e) => `${e.method} ${e.route} ${e.status ?? '-'}`);

	/**
	 * `count` calls at once, alternated between the webhook processors; resolves once every run
	 * has read its event (or fails after a minute), with the API requests the runs made.
	 */
	async function callAll(count: number): Promise<string[]> {
		const seq = sandbox().app.log.lastSeq;
		const statuses = await Promise.all(
			Array.from({ length: count }, async (_, i) => {
				const res = await fetch(`${webhooks[i % webhooks.length].url}/webhook/${TOKEN_PATH}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
					signal: AbortSignal.timeout(60_000),
				});
				return res.status;
			}),
		);
		expect(statuses).toEqual(Array(count).fill(200));
		const read = () => requestsSince(seq).filter((r) => r === 'GET /event-points 200').length;
		const deadline = Date.now() + 60_000;
		while (read() < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
		return requestsSince(seq);
	}

	beforeAll(async () => {
		sink = await Receiver.start();
		cluster = await QueueCluster.start({
			credentials: (sb) => [
				apiCredential(API_CREDENTIAL, sb.sandbox.baseUrl, sb.keys.partner),
				{ ...HOOK_CREDENTIAL, type: 'publicEventsWebhookApi', data: { secret: WEBHOOK_SECRET } },
			],
			workflows: [
				tokenWorkflow(),
				// one sink request per execution
				forwardingWorkflow(
					PUSH_WORKFLOW,
					signedPushTrigger(PUSH_WEBHOOK_ID, HOOK_CREDENTIAL, ['sale', 'refund']),
					sink.url,
				),
			],
			activate: [TOKEN_WORKFLOW, PUSH_WORKFLOW],
			paths: [TOKEN_PATH, `${PUSH_WEBHOOK_ID}/webhook`],
		});
		webhooks = cluster.webhooks;
		balancer = await Balancer.start(webhooks.map(pushUrl));
	});

	afterAll(async () => {
		await Promise.all([cluster?.stop(), sink?.close(), balancer?.close()]);
	});

	it(
		`token across workers: ${CALLS} executions at once, no ` +
			`token yet: all succeed, at most one token per worker`,
		async () => {
			const requests = await callAll(CALLS);
			expect(requests.filter((r) => r === 'GET /event-points 200')).toHaveLength(CALLS);
			expect(requests.filter((r) => !r.endsWith(' 200'))).toEqual([]);
			const fetched = requests.filter((r) => r === 'POST /token 200').length;
			console.log(
				`[queue] ${CALLS} executions at once with no token: ${fetched} /token request(s)`,
			);
			expect(fetched).toBeGreaterThanOrEqual(1);
			expect(fetched).toBeLessThanOrEqual(WORKERS);
		},
	);

	it(
		`after the token expired (clock +25 h), ${CALLS} ` +
			`more: all succeed, renewals at most one per worker`,
		async () => {
			await sandbox().advanceClock(25 * HOUR);
			const requests = await callAll(CALLS);
			expect(requests.filter((r) => r === 'GET /event-points 200')).toHaveLength(CALLS);
			// each run that held the expired token was refused once, then took the renewed one
			expect(
				requests.filter((r) => !r.endsWith(' 200')).every((r) => r === 'GET /event-points 401'),
			).toBe(true);
			const renewed = requests.filter((r) => r === 'POST /token 200').length;
			console.log(`[queue] ${CALLS} executions at once after expiry: ${renewed} renewal(s)`);
			expect(renewed).toBeGreaterThanOrEqual(1);
			expect(renewed).toBeLessThanOrEqual(WORKERS);
			// The sandbox signs pushes with its clock: back to n8n's time, or the Replay Window refuses
			// them.
			await sandbox().advanceClock(-25 * HOUR);
		},
	);

	/** Executions (sink requests) per delivery id, for the ids given. */
	const executionsOf = (ids: string[]) =>
		ids.map(
			(id) => sink.bodies<{ deliveryId: string }>().filter((b) => b.deliveryId === id).length,
		);

	/**
	 * What a destination that upserts by the item's dedupeKey (a Data Table, a CRM's external id)
	 * holds for the deliveries given: how many rows each of their keys ends as (1: once).
	 */
	function destination(ids: string[]): Map<string, number> {
		const rows = new Map<string, number>();
		const items = sink.bodies<{ deliveryId: string; dedupeKey: string }>();
		for (const item of items.filter((b) => ids.includes(b.deliveryId))) rows.set(item.dedupeKey, 1);
		return rows;
	}

	/** Waits until `n` deliveries of the subscription were answered 2xx; their ids. */
	const delivered = (subscriptionId: number, n: number) =>
		until(
			async () => {
				const all = await deliveriesOf(sandbox(), subscriptionId);
				return (
					all.length === n &&
					all.every((d) => d.state === 'delivered') &&
					all.map((d) => String(d.notificationId))
				);
			},
			'every delivery answered 2xx',
			30_000,
		);

	/** Waits until `n` deliveries were answered 2xx and each has started an execution; their ids. */
	async function settled(subscriptionId: number, n: number) {
		const ids = await delivered(subscriptionId, n);
		await until(
			async () => executionsOf(ids).every((count) => count > 0),
			'an execution for every delivery',
			60_000,
		);
		return ids;
	}

	/**
	 * Sales (and refunds of the first `refunds`) pushed through the balancer, routed as it is set;
	 * `spaced`: each only after the previous one's execution arrived. Then every delivery again,
	 * byte for byte (a sender's retry): at the other processor, or twice at once through the
	 * balancer. Returns, per delivery, the executions of the first round, those the copies added,
	 * and what a destination keyed by dedupeKey holds: one row per sale and per refund.
	 */
	async function pushRound(
		sales: number,
		refunds: number,
		spaced: boolean,
		retry: 'other' | 'balancer' = 'other',
	): Promise<{ first: number[]; retried: number; rows: number[]; windows: boolean }> {
		const subscription = await subscribe(sandbox(), {
			url: balancer.url,
			secret: WEBHOOK_SECRET,
			types: ['order.sale', 'order.refund'],
		});
		const kept = balancer.deliveries.length;
		const settle = (n: number) => settled(subscription.id, n);
		const sold: number[] = [];
		let sent = 0;
		for (let i = 0; i < sales; i++) {
			sold.push(await sell());
			if (spaced) await settle(++sent);
		}
		for (const id of sold.slice(0, refunds)) {
			expect((await sandbox().admin('POST', `/widget-orders/${id}/refund`)).status).toBeLessThan(
				300,
			);
			if (spaced) await settle(++sent);
		}
		const total = sales + refunds;
		const ids = await settle(total);
		const first = executionsOf(ids);
		const round = balancer.deliveries.slice(kept, kept + total);
		const answers = [];
		for (const delivery of round) {
			if (retry === 'other')
				answers.push(
					await send(pushUrl(webhooks[(delivery.target + 1) % webhooks.length]), delivery),
				);
			else
				answers.push(
					...(await Promise.all([send(balancer.url, delivery), send(balancer.url, delivery)])),
				);
		}
		expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(200));
		// a sale after the retries: once its execution is in, the retries' are most likely in too
		await sell();
		await settle(total + 1);
		await sandbox().admin('DELETE', '/webhooks');
		const sum = (counts: number[]) => counts.reduce((x, y) => x + y, 0);
		const stored = (await cluster.main.rest(
			cluster.cookie,
			'GET',
			`/workflows/${PUSH_WORKFLOW}`,
		)) as { staticData?: Record<string, object> };
		return {
			first,
			retried: sum(executionsOf(ids)) - sum(first),
			rows: [...destination(ids).values()],
			// delivery windows written to the database (the trigger before: seenDeliveries)
			windows: JSON.stringify(stored.staticData ?? {}).includes('seen'),
		};
	}

	// Each processor remembers what it answered; a retry at the other one starts a second run,
	// which a destination keyed by dedupeKey takes as the same sale.
	it(
		`pushes through two webhook processors, spaced: ${SALES} sales and ${REFUNDS} refunds ` +
			'each start one execution; with retries at the other processor the destination ' +
			'still gets each once',
		async () => {
			balancer.route = 'alternate';
			const { first, retried, rows, windows } = await pushRound(SALES, REFUNDS, true);
			console.log(
				`[queue] ${SALES + REFUNDS} spaced deliveries alternated over 2 webhook processors: ` +
					`executions per delivery ${first.join(' ')}; the same again at the other processor: ` +
					`${retried} more; rows at a destination keyed by dedupeKey: ${rows.length}`,
			);
			expect(first).toEqual(Array(SALES + REFUNDS).fill(1));
			expect(retried).toBeLessThanOrEqual(SALES + REFUNDS);
			expect(rows).toEqual(Array(SALES + REFUNDS).fill(1));
			expect(windows).toBe(false);
		},
	);

	it(
		`pushes in a burst, alternated: ${SALES} sales and ${REFUNDS} refunds at once each start ` +
			'one execution; with retries at the other processor the destination still gets each once',
		async () => {
			balancer.route = 'alternate';
			const { first, retried, rows } = await pushRound(SALES, REFUNDS, false);
			console.log(
				`[queue] ${SALES + REFUNDS} deliveries in a burst alternated over 2 webhook ` +
					`processors: executions per delivery ${first.join(' ')}; the same again at the other ` +
					`processor: ${retried} more; rows at a destination keyed by dedupeKey: ${rows.length}`,
			);
			expect(first).toEqual(Array(SALES + REFUNDS).fill(1));
			expect(retried).toBeLessThanOrEqual(SALES + REFUNDS);
			expect(rows).toEqual(Array(SALES + REFUNDS).fill(1));
		},
	);

	// What docs/queue-mode.md advises: route by X-Delivery-ID, so each process sees every copy.
	it(
		`pushes in a burst, routed by delivery id: ${SALES} sales and ${REFUNDS}` +
			` refunds each start one execution; retries, two at once, start none`,
		async () => {
			balancer.route = 'sticky';
			const { first, retried, rows } = await pushRound(SALES, REFUNDS, false, 'balancer');
			console.log(
				`[queue] ${SALES + REFUNDS} deliveries in a burst routed by delivery id: executions ` +
					`per delivery ${first.join(' ')}; each again twice at once: ${retried} more`,
			);
			expect(first).toEqual(Array(SALES + REFUNDS).fill(1));
			expect(retried).toBe(0);
			expect(rows).toEqual(Array(SALES + REFUNDS).fill(1));
		},
	);

	it('the sender hears 2xx only once the execution exists (2.x; 1.x answers first)', async () => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: PUSH_WORKFLOW }));
		const count = async () =>
			(
				(await cluster.main.rest(
					cluster.cookie,
					'GET',
					`/executions?filter=${filter}&limit=500`,
				)) as { results: unknown[] }
			).results.length;
		// The executions of the deliveries sent twice at once in the test before may still be
		// changing (a fresh-clone run on a loaded machine saw 43 -> 43 once, not seen since): the
		// count is taken once it holds still, so it counts only this delivery's execution.
		let before = await count();
		for (let reads = 0; reads < 40; reads++) {
			await new Promise((resolve) => setTimeout(resolve, 250));
			const again = await count();
			if (again === before) break;
			before = again;
		}
		const body = JSON.stringify({
			id: `direct-${randomUUID()}`,
			type: 'order.sale',
			occurredAt: new Date().toISOString(),
			data: { orderId: await sell(), source: 'widget' },
		});
		const res = await fetch(pushUrl(webhooks[0]), {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'x-signature': signAt(WEBHOOK_SECRET, body),
			},
			body,
		});
		const after = await count();
		console.log(
			`[queue] a signed sale answered ${res.status} (${JSON.stringify(await res.text())}); ` +
				`executions of the workflow at that moment: ${before} -> ${after}`,
		);
		expect(res.status).toBe(200);
		if (Number(N8N_VERSION.split('.')[0]) >= 2) expect(after).toBe(before + 1);
		await sandbox().admin('DELETE', '/webhooks');
	});

	it(
		'the same delivery at both processors at the same moment: up to one run at each, ' +
			'the destination gets it once',
		async () => {
			balancer.route = 'both';
			const subscription = await subscribe(sandbox(), {
				url: balancer.url,
				secret: WEBHOOK_SECRET,
				types: ['order.sale'],
			});
			const copies = 5;
			for (let i = 0; i < copies; i++) await sell();
			const ids = await settled(subscription.id, copies);
			// a sale through one processor: once its execution is in, the copies' are most likely in too
			balancer.route = 'alternate';
			await sell();
			const last = (await delivered(subscription.id, copies + 1)).filter((id) => !ids.includes(id));
			await until(async () => executionsOf(last)[0] > 0, "the last sale's execution", 60_000);
			const counts = executionsOf(ids);
			console.log(
				`[queue] ${copies} deliveries each sent to both webhook ` +
					`processors at once: executions per delivery ${counts.join(' ')}`,
			);
			expect(counts.every((count) => count >= 1 && count <= 2)).toBe(true);
			expect([...destination(ids).values()]).toEqual(Array(copies).fill(1));
			await sandbox().admin('DELETE', '/webhooks');
		},
	);

	it(
		'the database lists no installed package: each process ran ' +
			'the nodes from its own nodes folder',
		async () => {
			// Settings > Community nodes lists the database's records; the folders were laid out as
			// n8n's installer does, without one.
			await expect(
				cluster.main.rest(cluster.cookie, 'GET', '/community-packages'),
			).resolves.toEqual([]);
		},
	);

	// Each process loads nodes from its own n8n folder, whatever the database lists: a worker
	// whose folder lacks the package takes the job all the same. docs/troubleshooting.md.
	it(
		'a worker without the package takes a job: the execution ' + 'fails, naming the node type',
		async () => {
			await cluster.stopWorkers();
			const bare = await cluster.startWorker({ withPackage: false });
			const filter = encodeURIComponent(JSON.stringify({ workflowId: TOKEN_WORKFLOW }));
			const runs = async () =>
				(
					(await cluster.main.rest(
						cluster.cookie,
						'GET',
						`/executions?filter=${filter}&limit=200`,
					)) as { results: Array<{ id: string; status: string }> }
				).results;
			const before = new Set((await runs()).map((r) => r.id));
			const seq = sandbox().app.log.lastSeq;
			const res = await fetch(`${webhooks[0].url}/webhook/${TOKEN_PATH}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			expect(res.status).toBe(200);
			const failed = await until(
				async () => {
					await new Promise((r) => setTimeout(r, 500));
					const all = await runs();
					return all.find(
						(r) => !before.has(r.id) && !['new', 'running', 'waiting'].includes(r.status),
					);
				},
				'the execution on the worker without the package to end',
				60_000,
			);
			const execution = (await cluster.main.rest(
				cluster.cookie,
				'GET',
				`/executions/${failed.id}`,
			)) as { status: string; data: string };
			// n8n stores the run flattened (flatted): every string is one element of the array
			const strings = (JSON.parse(execution.data) as unknown[]).filter(
				(v): v is string => typeof v === 'string',
			);
			console.log(
				`[queue] a worker without the package took a job: execution ` +
					`${execution.status}, "${strings.find((s) => s.startsWith('Unrecognized'))}"`,
			);
			// what the execution list shows (Error) and the execution's error message
			expect(execution.status).toBe('error');
			expect(strings).toContain(MISSING_PACKAGE);
			expect(bare.log()).toContain(MISSING_PACKAGE);
			expect(requestsSince(seq)).toEqual([]);
		},
	);

	it('nothing n8n printed holds the API key or a token', () => {
		expectNoSecrets(
			cluster.printed(),
			secretsOf(sandbox(), { 'webhook secret': WEBHOOK_SECRET }),
			'queue-mode processes',
		);
	});
});
