/**
 * Real n8n (2.40.7, or N8N_VERSION such as 1.123.81; `n8n start`) runs both triggers of the
 * packed package against the sandbox: the sandbox pushes signed sales and refunds to the push
 * trigger's production URL (a delivery signed with the wrong secret is refused), and the poll
 * trigger finds a sale made in the sandbox. Each workflow forwards what its trigger emitted to
 * a local Receiver (HTTP Request node); n8n's REST API shows the executions.
 */
import { randomUUID } from 'node:crypto';

import {
	apiCredential,
	ensureN8n,
	N8nInstance,
	packPackage,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { deliveriesOf, subscribe, until } from '../../harness/sandbox/push';
import {
	forwardingWorkflow,
	POLL_EVERY_MS,
	salesPollTrigger,
	signedPushTrigger,
} from '../../harness/n8n/forwardingWorkflow';
import { Receiver } from '../../harness/net/receiver';
import { SandboxClient } from '../../harness/sandbox/client';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { OWNER } from '../../harness/n8n/owner';

const WEBHOOK_SECRET = 'whsec_e2e_triggers_5b7d2e91';
const WRONG_SECRET = 'whsec_not_the_agreed_one_0c4f';
const API_CREDENTIAL = { id: 'PeE2eCredTrigApi', name: 'Public Events sandbox (e2e triggers)' };
const HOOK_CREDENTIAL = { id: 'PeE2eCredTrigHook', name: 'Public Events webhook (e2e triggers)' };
const PUSH_WORKFLOW = 'PeE2eWfPushTrig1';
const POLL_WORKFLOW = 'PeE2eWfPollTrig1';
const WEBHOOK_ID = randomUUID();
describe('real n8n: push and poll triggers, activated in a running n8n', () => {
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let cookie: string;
	let pushed: Receiver;
	let polled: Receiver;
	/** Widget orders made by these tests: the only ones the poll trigger may emit. */
	const madeOrders = new Set<string>();

	const webhookUrl = () => `${server.url}/webhook/${WEBHOOK_ID}/webhook`;
	/** Completed GETs of a feed since a request-log position: one per poll. */
	const feedReads = (sinceSeq: number, route: string) =>
		sandbox.app.log
			.since(sinceSeq)
			.filter((e) => e.method === 'GET' && e.route === route && e.status !== undefined).length;
	const tokenRequests = async () => (await sandbox.counters())['POST /token'] ?? 0;
	let tokensAfterFirstPoll = 0;

	async function sell(tickets = 1): Promise<{ id: number; eventPoint: number; payAt: string }> {
		const res = await sandbox.admin('POST', '/widget-orders', { company: 'partner', tickets });
		expect(res.status).toBe(201);
		madeOrders.add(String(res.body.id));
		return res.body;
	}

	async function executions(
		workflowId: string,
	): Promise<Array<{ id: string; status: string; mode: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		return (
			(await server.rest(cookie, 'GET', `/executions?filter=${filter}&limit=100`)) as {
				results: any[];
			}
		).results;
	}

	beforeAll(async () => {
		// Retries of a refused push 100 ms apart, 3 attempts: the bad delivery ends within a second.
		const [install, started, pkg, pushReceiver, pollReceiver] = await Promise.all([
			ensureN8n(),
			SandboxClient.start({ push: { retryBaseMs: 100, maxAttempts: 3 } }),
			packPackage(),
			Receiver.start(),
			Receiver.start(),
		]);
		sandbox = started;
		packed = pkg;
		pushed = pushReceiver;
		polled = pollReceiver;
		n8n = await N8nInstance.create({ install, packed });
		await n8n.importCredentials([
			apiCredential(API_CREDENTIAL, sandbox.sandbox.baseUrl, sandbox.keys.partner),
			{ ...HOOK_CREDENTIAL, type: 'publicEventsWebhookApi', data: { secret: WEBHOOK_SECRET } },
		]);
		await n8n.importWorkflows([
			forwardingWorkflow(
				PUSH_WORKFLOW,
				signedPushTrigger(WEBHOOK_ID, HOOK_CREDENTIAL, ['sale', 'refund']),
				pushed.url,
			),
			forwardingWorkflow(POLL_WORKFLOW, salesPollTrigger(API_CREDENTIAL), polled.url),
		]);
		server = await n8n.start();
		cookie = await server.setupOwner(OWNER);
		// What the editor's Publish does. n8n answers before the triggers are live: wait for the
		// webhook to answer (an unsigned request: 401, not 404) and for the poll trigger's first
		// poll (it emits nothing: what is there is history) to have read both feeds.
		const beforeActivation = sandbox.app.log.lastSeq;
		await server.activateWorkflow(cookie, PUSH_WORKFLOW);
		await server.activateWorkflow(cookie, POLL_WORKFLOW);
		const probe = async () =>
			(
				await fetch(webhookUrl(), {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
				})
			).status;
		await until(async () => (await probe()) !== 404, 'the push webhook to be registered', 30_000);
		expect(await probe()).toBe(401);
		await until(
			async () =>
				feedReads(beforeActivation, '/widget-orders') >= 1 &&
				feedReads(beforeActivation, '/widget-orders-refunds') >= 1,
			'the first poll',
			30_000,
		);
		tokensAfterFirstPoll = await tokenRequests();
	});

	afterAll(async () => {
		await server?.stop();
		n8n?.cleanup();
		packed?.cleanup();
		await Promise.all([sandbox?.stop(), pushed?.close(), polled?.close()]);
	});

	it(
		'push: a signed sale and refund each start one execution with ' +
			'their payload; a wrong signature is answered 401 and starts ' +
			'none',
		async () => {
			const good = await subscribe(sandbox, {
				url: webhookUrl(),
				secret: WEBHOOK_SECRET,
				types: ['order.sale', 'order.refund'],
			});
			const bad = await subscribe(sandbox, {
				url: webhookUrl(),
				secret: WRONG_SECRET,
				types: ['order.sale'],
			});

			const sale = await sell(2);
			const refund = (await sandbox.admin('POST', `/widget-orders/${sale.id}/refund`)).body;
			expect(refund.order).toBe(sale.id);

			await pushed.waitFor(2, 30_000);
			const delivered = await until(async () => {
				const all = await deliveriesOf(sandbox, good.id);
				return all.length === 2 && all.every((d) => d.state === 'delivered') && all;
			}, 'both signed deliveries answered 2xx');
			const refused = await until(async () => {
				const [only] = await deliveriesOf(sandbox, bad.id);
				return only?.state === 'failed' && only;
			}, 'the badly signed delivery to give up');

			const items = pushed.bodies();
			const notificationOf = (type: string) => delivered.find((d) => d.type === type);
			expect(items.map((i) => i.type).sort()).toEqual(['refund', 'sale']);
			for (const type of ['sale', 'refund']) {
				const sourceType = `order.${type}`;
				expect(items.find((i) => i.type === type)).toMatchObject({
					sourceType,
					deliveryId: notificationOf(sourceType).notificationId,
					orderId: String(sale.id),
					eventPointId: String(sale.eventPoint),
					payload: notificationOf(sourceType).payload,
				});
			}
			expect(delivered.map((d) => d.attempts.map((a: any) => a.status))).toEqual([[200], [200]]);
			// The same sale, signed with the wrong secret: refused on every attempt.
			expect(refused.notificationId).toBe(notificationOf('order.sale').notificationId);
			expect(refused.attempts.map((a: any) => a.status)).toEqual([401, 401, 401]);

			const runs = await until(async () => {
				const all = await executions(PUSH_WORKFLOW);
				return (
					all.length >= 2 && all.every((r) => r.status !== 'running' && r.status !== 'new') && all
				);
			}, 'both executions to finish');
			expect(runs.map((r) => [r.mode, r.status])).toEqual([
				['webhook', 'success'],
				['webhook', 'success'],
			]);
			expect(pushed.requests).toHaveLength(2);
		},
	);

	it('poll: a widget sale is emitted within two poll intervals, and exactly once', async () => {
		const sale = await sell();
		const soldAt = Date.now();
		const isThisSale = (item: any) => item.type === 'sale' && item.orderId === String(sale.id);

		const item = await until(
			async () => polled.bodies().find(isThisSale),
			'the poll trigger to emit the sale',
			2 * POLL_EVERY_MS,
		);
		const delayMs = Date.now() - soldAt;
		expect(item).toMatchObject({
			source: 'widgetSales',
			occurredAt: new Date(Date.parse(sale.payAt)).toISOString(),
			eventPointId: String(sale.eventPoint),
			id: sale.id,
			payAt: sale.payAt,
		});

		// Two more polls after the one that found it (the later one only starts once the first
		// has long emitted, 10 s apart): neither emits the sale again.
		const found = sandbox.app.log.lastSeq;
		await until(
			async () => feedReads(found, '/widget-orders') >= 2,
			'two more polls',
			3 * POLL_EVERY_MS,
		);
		expect(polled.bodies().filter(isThisSale)).toHaveLength(1);

		// Every record the poll trigger emitted (also the push test's sale and refund) came once,
		// and only records made after activation came: the seeded widget orders are history.
		const keys = polled.bodies().map((i) => `${i.type}:${i.orderId}`);
		expect(new Set(keys).size).toBe(keys.length);
		expect(keys.every((key) => madeOrders.has(key.split(':')[1]))).toBe(true);
		expect(keys).toEqual(expect.arrayContaining([`sale:${sale.id}`]));
		const runs = await executions(POLL_WORKFLOW);
		expect(runs.length).toBeGreaterThanOrEqual(1);
		expect(runs.every((r) => r.mode === 'trigger' && r.status === 'success')).toBe(true);
		// The polls after the first reuse the token n8n stored in the credential. (The first poll
		// reads its two feeds at once and each finds no token yet: 2 token requests, measured.)
		expect(tokensAfterFirstPoll).toBeGreaterThanOrEqual(1);
		expect(await tokenRequests()).toBe(tokensAfterFirstPoll);
		console.log(
			`poll trigger emitted the sale ${delayMs} ms after ` +
				`it was made (polls every ${POLL_EVERY_MS / 1000} s)`,
		);
	});

	it('no secret (API key, token, webhook secrets) in anything n8n printed', async () => {
		await server.stop();
		const printed = n8n.printedText() + server.log();
		expect(printed).toContain('Editor is now accessible');
		expectNoSecrets(
			printed,
			secretsOf(sandbox, { webhookSecret: WEBHOOK_SECRET }),
			'real n8n triggers',
		);
	});
});
