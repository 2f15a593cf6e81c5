/**
 * Queue mode (harness/n8n/queueCluster.ts), the work partners run on it: the poll trigger on main
 * across a restart of main, the sell-a-ticket example started through a webhook processor and
 * run on a worker, and a bounded push load through both processors. docs/queue-mode.md.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { apiCredential, REPO_ROOT } from '../../scripts/n8n/instance';
import { Balancer } from '../../harness/net/balancer';
import { deliveriesOf, subscribe, until } from '../../harness/sandbox/push';
import { Receiver } from '../../harness/net/receiver';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import {
	forwardingWorkflow,
	POLL_EVERY_MS,
	salesPollTrigger,
	signedPushTrigger,
} from '../../harness/n8n/forwardingWorkflow';
import { QueueCluster } from '../../harness/n8n/queueCluster';

const API_CREDENTIAL = { id: 'PeDemoApiCred001', name: 'Public Events (sandbox)' };
const HOOK_CREDENTIAL = { id: 'PeE2eCredQueueHk', name: 'Public Events webhook (e2e queue)' };
const WEBHOOK_SECRET = 'whsec_e2e_queue_runs_51b9e2';
const POLL_WORKFLOW = 'PeE2eWfQueuePol1';
const PUSH_WORKFLOW = 'PeE2eWfQueuePsh2';
const PUSH_WEBHOOK_ID = randomUUID();
/**
 * The load baselines: n8n's own Webhook node forwarding each push, without and with Header Auth
 * (a credential read per request, as the trigger's signature check does). Header Auth cannot
 * check the sandbox's HMAC; it checks `Content-Type: application/json`, which every attempt
 * carries (a header only first attempts carry, as before, left a retried delivery refused for
 * good).
 */
const BASELINES = [
	{ id: 'PeE2eWfQueuePln1', path: 'queue-plain-push', label: "n8n's Webhook node", auth: false },
	{
		id: 'PeE2eWfQueuePln2',
		path: 'queue-plain-push-auth',
		label: "n8n's Webhook node with Header Auth",
		auth: true,
	},
];
const HEADER_CREDENTIAL = { id: 'PeE2eHdrAuth0001', name: 'Header Auth (e2e queue)' };
const SELL_WORKFLOW = 'PeExSellTicket01';
const SELL_PATH = 'sell-a-ticket';
const POLLED_SALES = 1000;
const BATCHES = 8;
const LOAD_SALES = 200;

/**
 * The sell-a-ticket example as shipped, its manual start swapped for a webhook answering with the
 * last node's items.
 */
function sellOverWebhook() {
	const example = JSON.parse(
		readFileSync(join(REPO_ROOT, 'examples', 'sell-a-ticket.json'), 'utf8'),
	) as { id: string; nodes: Array<Record<string, unknown>> };
	return {
		...example,
		id: SELL_WORKFLOW,
		nodes: example.nodes.map((node) =>
			node.name === 'Start'
				? {
						...node,
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						webhookId: randomUUID(),
						parameters: {
							httpMethod: 'POST',
							path: SELL_PATH,
							responseMode: 'lastNode',
							responseData: 'allEntries',
							options: {},
						},
					}
				: node,
		),
	};
}

describe(
	'real n8n in queue mode: poll across a restart of main, an ' + 'example on a worker, push load',
	() => {
		let cluster: QueueCluster;
		let polled: Receiver;
		let pushed: Receiver;
		let balancer: Balancer;
		const baselines: Array<{ receiver: Receiver; balancer: Balancer }> = [];
		const sandbox = () => cluster.sandbox;
		/** Completed GETs of a feed since a request-log position: one per poll. */
		const feedReads = (sinceSeq: number) =>
			sandbox()
				.app.log.since(sinceSeq)
				.filter((e) => e.method === 'GET' && e.route === '/widget-orders' && e.status !== undefined)
				.length;

		async function pollRuns(): Promise<Array<{ status: string }>> {
			const filter = encodeURIComponent(JSON.stringify({ workflowId: POLL_WORKFLOW }));
			return (
				(await cluster.main.rest(
					cluster.cookie,
					'GET',
					`/executions?filter=${filter}&limit=100`,
				)) as { results: Array<{ status: string }> }
			).results;
		}

		async function sell(): Promise<string> {
			const res = await sandbox().admin('POST', '/widget-orders', {
				company: 'partner',
				tickets: 1,
			});
			expect(res.status).toBe(201);
			return String(res.body.id);
		}

		async function sellMany(count: number): Promise<string[]> {
			const ids = [];
			for (let i = 0; i < count; i++) ids.push(await sell());
			return ids;
		}

		beforeAll(async () => {
			[polled, pushed] = await Promise.all([Receiver.start(), Receiver.start()]);
			const receivers = await Promise.all(BASELINES.map(() => Receiver.start()));
			cluster = await QueueCluster.start({
				// The sender waits 30 s for an answer, as real senders do: the load measures throughput,
				// and a 5 s timeout on a 2-core machine turned slow answers into retries at the other
				// processor.
				sandbox: { placesPerEvent: 200, push: { timeoutMs: 30_000 } },
				credentials: (sb) => [
					apiCredential(API_CREDENTIAL, sb.sandbox.baseUrl, sb.keys.partner),
					{ ...HOOK_CREDENTIAL, type: 'publicEventsWebhookApi', data: { secret: WEBHOOK_SECRET } },
					{
						...HEADER_CREDENTIAL,
						type: 'httpHeaderAuth',
						data: { name: 'Content-Type', value: 'application/json' },
					},
				],
				workflows: [
					sellOverWebhook(),
					forwardingWorkflow(
						POLL_WORKFLOW,
						salesPollTrigger(API_CREDENTIAL, ['widgetSales']),
						polled.url,
					),
					forwardingWorkflow(
						PUSH_WORKFLOW,
						signedPushTrigger(PUSH_WEBHOOK_ID, HOOK_CREDENTIAL, ['sale']),
						pushed.url,
					),
					...BASELINES.map((b, i) =>
						forwardingWorkflow(
							b.id,
							{
								name: 'Webhook',
								type: 'n8n-nodes-base.webhook',
								typeVersion: 2,
								webhookId: randomUUID(),
								parameters: {
									httpMethod: 'POST',
									path: b.path,
									responseMode: 'onReceived',
									...(b.auth ? { authentication: 'headerAuth' } : {}),
									options: {},
								},
								...(b.auth ? { credentials: { httpHeaderAuth: HEADER_CREDENTIAL } } : {}),
							},
							receivers[i].url,
						),
					),
				],
				activate: [SELL_WORKFLOW, PUSH_WORKFLOW, ...BASELINES.map((b) => b.id)],
				paths: [SELL_PATH, `${PUSH_WEBHOOK_ID}/webhook`, ...BASELINES.map((b) => b.path)],
			});
			balancer = await Balancer.start(
				cluster.webhooks.map((hook) => `${hook.url}/webhook/${PUSH_WEBHOOK_ID}/webhook`),
			);
			for (const [i, b] of BASELINES.entries()) {
				baselines.push({
					receiver: receivers[i],
					balancer: await Balancer.start(
						cluster.webhooks.map((hook) => `${hook.url}/webhook/${b.path}`),
					),
				});
			}
		});

		afterAll(async () => {
			await Promise.all([
				cluster?.stop(),
				polled?.close(),
				pushed?.close(),
				balancer?.close(),
				...baselines.flatMap((b) => [b.receiver.close(), b.balancer.close()]),
			]);
		});

		it(
			'the sell-a-ticket example, started through a webhook ' +
				'processor, runs on a worker: sold tickets with the sandbox ' +
				"order's barcodes",
			async () => {
				const res = await fetch(`${cluster.webhooks[0].url}/webhook/${SELL_PATH}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
					signal: AbortSignal.timeout(60_000),
				});
				expect(res.status).toBe(200);
				const tickets = (await res.json()) as Array<{
					orderId: string;
					orderStatus: string;
					status: string;
					barcode: string;
				}>;
				expect(tickets.length).toBeGreaterThan(0);
				const order = await sandbox().get(`/orders/${tickets[0].orderId}`);
				expect(order.body.status).toBe('paid');
				expect(tickets.map((t) => [t.orderStatus, t.status, t.barcode])).toEqual(
					order.body.tickets.map((t: { barcode: string }) => ['paid', 'sold', t.barcode]),
				);
				for (const t of tickets) expect(t.barcode).toMatch(/^\d{13}$/);
				// n8n logs each job a worker takes, with its workflow: here on a worker, and only there.
				const ranOn = cluster.processes.filter((p) =>
					p
						.log()
						.split('\n')
						.some(
							(line) => line.includes('Worker started execution') && line.includes(SELL_WORKFLOW),
						),
				);
				expect(ranOn).toHaveLength(1);
				expect(cluster.workers).toContain(ranOn[0]);
			},
		);

		it(
			`poll trigger on main: ${POLLED_SALES} sales over many polls, ` +
				`main restarted in the middle: each emitted once, none lost`,
			async () => {
				const activatedAt = sandbox().app.log.lastSeq;
				await cluster.main.activateWorkflow(cluster.cookie, POLL_WORKFLOW);
				// the first poll emits nothing: what is there is history
				await until(async () => feedReads(activatedAt) >= 1, 'the first poll', 3 * POLL_EVERY_MS);
				const emitted = () =>
					polled.bodies<{ type: string; orderId: string }>().map((b) => `${b.type}:${b.orderId}`);
				// Sales in batches, each followed by a poll; main restarted after half of them.
				const sold: string[] = [];
				const batch = POLLED_SALES / BATCHES;
				for (let i = 0; i < BATCHES; i++) {
					sold.push(...(await sellMany(batch)));
					if (i === BATCHES / 2 - 1) await cluster.restartMain();
					const seq = sandbox().app.log.lastSeq;
					await until(
						async () => feedReads(seq) >= 1,
						`a poll after batch ${i + 1}`,
						(i === BATCHES / 2 - 1 ? 6 : 3) * POLL_EVERY_MS,
					);
				}
				await until(
					async () => new Set(emitted()).size >= POLLED_SALES,
					`${POLLED_SALES} sales emitted`,
					12 * POLL_EVERY_MS,
				);
				// two more polls, and their runs (if any) ended: nothing comes again
				const doneAt = sandbox().app.log.lastSeq;
				await until(async () => feedReads(doneAt) >= 2, 'two more polls', 4 * POLL_EVERY_MS);
				await until(
					async () =>
						(await pollRuns()).every((run) => ['success', 'error', 'crashed'].includes(run.status)),
					'the poll runs to end',
					30_000,
				);
				const runs = await pollRuns();
				expect(runs.every((run) => run.status === 'success')).toBe(true);
				const keys = emitted();
				console.log(
					`[queue] poll trigger, main restarted after ${POLLED_SALES / 2} of ` +
						`${POLLED_SALES} sales in ${BATCHES} batches: ${keys.length} items ` +
						`emitted in ${runs.length} runs, ${new Set(keys).size} distinct`,
				);
				expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
				expect([...keys].sort()).toEqual(sold.map((id) => `sale:${id}`).sort());
			},
		);

		/**
		 * Sells `count` at once, pushed to `url`; seconds until every delivery was answered and until
		 * `forwarded` holds them all, and the deliveries retried.
		 */
		async function pushLoad(
			url: string,
			count: number,
			forwarded: () => string[],
		): Promise<{ sold: string[]; seconds: number; answered: number; retried: number }> {
			const subscription = await subscribe(sandbox(), {
				url,
				secret: WEBHOOK_SECRET,
				types: ['order.sale'],
			});
			const started = performance.now();
			const sold = await sellMany(count);
			const deliveries = await until(
				async () => {
					const all = await deliveriesOf(sandbox(), subscription.id);
					return all.length === count && all.every((d) => d.state === 'delivered') && all;
				},
				`${count} deliveries answered 2xx`,
				180_000,
			);
			const answered = (performance.now() - started) / 1000;
			await until(async () => forwarded().length >= count, `${count} sales forwarded`, 120_000);
			const seconds = (performance.now() - started) / 1000;
			await sandbox().admin('DELETE', '/webhooks');
			return {
				sold,
				seconds,
				answered,
				retried: deliveries.filter((d) => d.attempts.length > 1).length,
			};
		}

		it(
			`push load: ${LOAD_SALES} sales pushed through 2 webhook processors and run on 2 ` +
				`workers, each forwarded once; pushes per second against n8n's own Webhook node`,
			async () => {
				const base: Array<Awaited<ReturnType<typeof pushLoad>>> = [];
				for (const { receiver, balancer: to } of baselines)
					base.push(await pushLoad(to.url, LOAD_SALES, () => receiver.requests.map((r) => r.raw)));
				const forwarded = () => pushed.bodies<{ orderId: string }>().map((b) => b.orderId);
				const ours = await pushLoad(balancer.url, LOAD_SALES, forwarded);
				const figure = (run: { seconds: number; answered: number }) =>
					`${(LOAD_SALES / run.seconds).toFixed(1)} pushes/s (all answered after ` +
					`${run.answered.toFixed(1)} s, run after ${run.seconds.toFixed(1)} s)`;
				console.log(
					`[queue] push load, ${LOAD_SALES} sales through 2 webhook ` +
						`processors and 2 workers: Public Events Trigger ${figure(ours)}; ` +
						BASELINES.map(
							(b, i) =>
								`${b.label} ${figure(base[i])}: ours at ` +
								`${(base[i].seconds / ours.seconds).toFixed(2)} of its rate`,
						).join('; ') +
						`; deliveries retried ${[ours, ...base].map((r) => r.retried).join(', ')}`,
				);
				expect(forwarded().sort()).toEqual([...ours.sold].sort());
				for (const { receiver } of baselines) expect(receiver.requests).toHaveLength(LOAD_SALES);
			},
		);

		it('nothing n8n printed holds the API key or a token', () => {
			expectNoSecrets(
				cluster.printed(),
				secretsOf(sandbox(), { 'webhook secret': WEBHOOK_SECRET }),
				'queue-mode processes',
			);
		});
	},
);
