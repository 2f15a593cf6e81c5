/**
 * n8n's queue mode, as partners who outgrow one process run it: Redis, Postgres, a main process,
 * two workers (`n8n worker --concurrency=5`) and two webhook processors (`n8n webhook`), all on
 * loopback with the packed package and one encryption key. Webhook-started executions are
 * spread over both processors, as a load balancer would, and run on the workers.
 * docs/queue-mode.md has the figures.
 */
import { randomUUID } from 'node:crypto';

import { apiCredential, ensureN8n, N8nInstance, packPackage, TYPE_PREFIX, type N8nServer, type PackedPackage } from '../../scripts/n8n/instance';
import { startPostgres, startRedis, type Service } from '../../scripts/n8n/queue';
import { SandboxClient } from '../helpers/sandboxClient';
import { expectNoSecrets, secretsOf } from '../helpers/secrets';

const HOUR = 3_600_000;
const CALLS = 50;
const WORKERS = 2;
const API_CREDENTIAL = { id: 'PeE2eCredQueue01', name: 'Public Events sandbox (e2e queue)' };
const TOKEN_WORKFLOW = 'PeE2eWfQueueTok1';
const TOKEN_PATH = 'queue-token';
const OWNER = { email: 'owner@e2e.invalid', firstName: 'E2E', lastName: 'Owner', password: 'E2e-owner-passw0rd' };

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
				parameters: { httpMethod: 'POST', path: TOKEN_PATH, responseMode: 'onReceived', options: {} },
			},
			{
				id: randomUUID(),
				name: 'Public Events',
				type: `${TYPE_PREFIX}publicEvents`,
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
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let redis: Service;
	let postgres: Service;
	const processes: N8nServer[] = [];
	let webhooks: N8nServer[] = [];

	/** API requests of runs since a log position, as `METHOD route status`. */
	const requestsSince = (seq: number) => sandbox.app.log.since(seq).map((e) => `${e.method} ${e.route} ${e.status ?? '-'}`);

	/**
	 * `count` calls at once, alternated between the webhook processors; resolves once every run
	 * has read its event (or fails after a minute), with the API requests the runs made.
	 */
	async function callAll(count: number): Promise<string[]> {
		const seq = sandbox.app.log.lastSeq;
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
		const [install, started, pkg, r, p] = await Promise.all([ensureN8n(), SandboxClient.start({}), packPackage(), startRedis(), startPostgres()]);
		sandbox = started;
		packed = pkg;
		redis = r;
		postgres = p;
		n8n = await N8nInstance.create({
			install,
			extensionsDir: packed.extensionsDir,
			env: {
				...p.env,
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(r.port),
				// n8n warns at start about Postgres 15 (17 is current); it works.
				N8N_LOG_LEVEL: 'info',
			},
		});
		await n8n.importCredentials([apiCredential(API_CREDENTIAL, sandbox.sandbox.baseUrl, sandbox.keys.partner)]);
		await n8n.importWorkflows([tokenWorkflow()]);
		const main = await n8n.start();
		processes.push(main);
		const cookie = await main.setupOwner(OWNER);
		await main.activateWorkflow(cookie, TOKEN_WORKFLOW);
		const started2 = await Promise.all([
			...Array.from({ length: WORKERS }, () => n8n.start({ command: 'worker', args: ['--concurrency=5'] })),
			n8n.start({ command: 'webhook' }),
			n8n.start({ command: 'webhook' }),
		]);
		processes.push(...started2);
		webhooks = started2.slice(WORKERS);
		// A webhook processor serves what is published once it has read it from the database.
		const deadline = Date.now() + 60_000;
		for (const hook of webhooks) {
			// (a preflight: it starts no execution, so no token is fetched before the test)
			while ((await fetch(`${hook.url}/webhook/${TOKEN_PATH}`, { method: 'OPTIONS' })).status === 404 && Date.now() < deadline) await new Promise((r2) => setTimeout(r2, 500));
		}
	});

	afterAll(async () => {
		await Promise.all(processes.map((p) => p.stop()));
		n8n?.cleanup();
		packed?.cleanup();
		await Promise.all([sandbox?.stop(), redis?.stop(), postgres?.stop()]);
	});

	it(`token across workers: ${CALLS} executions at once, no token yet: all succeed, at most one token per worker`, async () => {
		const requests = await callAll(CALLS);
		expect(requests.filter((r) => r === 'GET /event-points 200')).toHaveLength(CALLS);
		expect(requests.filter((r) => !r.endsWith(' 200'))).toEqual([]);
		const fetched = requests.filter((r) => r === 'POST /token 200').length;
		console.log(`[queue] ${CALLS} executions at once with no token: ${fetched} /token request(s)`);
		expect(fetched).toBeGreaterThanOrEqual(1);
		expect(fetched).toBeLessThanOrEqual(WORKERS);
	});

	it(`after the token expired (clock +25 h), ${CALLS} more: all succeed, renewals at most one per worker`, async () => {
		await sandbox.advanceClock(25 * HOUR);
		const requests = await callAll(CALLS);
		expect(requests.filter((r) => r === 'GET /event-points 200')).toHaveLength(CALLS);
		// each run that held the expired token was refused once, then took the renewed one
		expect(requests.filter((r) => !r.endsWith(' 200')).every((r) => r === 'GET /event-points 401')).toBe(true);
		const renewed = requests.filter((r) => r === 'POST /token 200').length;
		console.log(`[queue] ${CALLS} executions at once after expiry: ${renewed} renewal(s)`);
		expect(renewed).toBeGreaterThanOrEqual(1);
		expect(renewed).toBeLessThanOrEqual(WORKERS);
	});

	it('nothing n8n printed holds the API key or a token', () => {
		expectNoSecrets(n8n.printedText() + processes.map((p) => p.log()).join('\n'), secretsOf(sandbox), 'queue-mode processes');
	});
});
