/**
 * Real n8n 2.40.7 with its durable poll scheduler on (N8N_SCHEDULER_ENABLED,
 * N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, N8N_USE_WORKFLOW_PUBLICATION_SERVICE,
 * N8N_POLLER_DURABLE_CURSORS_ENABLED): each scheduled poll is a task, the trigger's state a row
 * of n8n's `poller_state`, and the poll n8n runs at publishing a test whose state is dropped. The
 * poll trigger as a user sets it up (Sales and Refunds, every minute, default settings, no Start
 * From) into an HTTP Request: every sale made after publishing arrives exactly once, the first
 * seconds after publishing included, a sale dated a day ahead, and sales made while n8n was
 * stopped. (1.x has no durable scheduler.)
 */
import {
	apiCredential,
	ensureN8n,
	N8N_VERSION,
	N8nInstance,
	packPackage,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { until } from '../../harness/sandbox/push';
import { forwardingWorkflow } from '../../harness/n8n/forwardingWorkflow';
import { Receiver } from '../../harness/net/receiver';
import { SandboxClient } from '../../harness/sandbox/client';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { OWNER } from '../../harness/n8n/owner';
import { DAY } from '../../harness/time';

const DURABLE = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	// The scheduler's lines ("Poll returned no new data", "handed off to a new execution").
	N8N_LOG_LEVEL: 'debug',
};
const API_CREDENTIAL = { id: 'PeE2eCredDurable', name: 'Public Events sandbox (durable)' };
const WORKFLOW = 'PeE2eWfDurable01';
/** A minute poll fires at a second n8n derives from the workflow and node ids. */
const MINUTE_POLL_MS = 75_000;

const describe2x = Number(N8N_VERSION.split('.')[0]) >= 2 ? describe : describe.skip;

describe2x("real n8n's durable poll scheduler: every sale after publishing, once", () => {
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let cookie: string;
	let received: Receiver;
	const made: string[] = [];
	let logs = '';

	const feedReads = (sinceSeq: number) =>
		sandbox.app.log
			.since(sinceSeq)
			.filter((e) => e.method === 'GET' && e.route === '/widget-orders' && e.status !== undefined)
			.length;
	const arrived = () => received.bodies().map((item: any) => `${item.type}:${item.orderId}`);
	async function sell(at?: number) {
		const res = await sandbox.admin('POST', '/widget-orders', {
			company: 'partner',
			...(at ? { at: new Date(at).toISOString() } : {}),
		});
		expect(res.status).toBe(201);
		made.push(`sale:${res.body.id}`);
	}
	const allArrived = (what: string) =>
		until(async () => arrived().length >= made.length, what, MINUTE_POLL_MS + 30_000, 500);

	beforeAll(async () => {
		const [install, started, pkg, receiver] = await Promise.all([
			ensureN8n(),
			SandboxClient.start({ widgetOrders: 5 }),
			packPackage(),
			Receiver.start(),
		]);
		sandbox = started;
		packed = pkg;
		received = receiver;
		n8n = await N8nInstance.create({ install, packed, env: DURABLE });
		await n8n.importCredentials([
			apiCredential(API_CREDENTIAL, sandbox.sandbox.baseUrl, sandbox.keys.partner),
		]);
		const trigger = {
			name: 'New Sales and Refunds',
			type: 'n8n-nodes-public-events.publicEventsPollTrigger',
			typeVersion: 1.1,
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				source: 'salesAndRefunds',
				include: ['widgetSales', 'widgetRefunds'],
			},
			credentials: { publicEventsApi: API_CREDENTIAL },
		};
		const workflow = forwardingWorkflow(WORKFLOW, trigger, received.url);
		await n8n.importWorkflows([workflow]);
		server = await n8n.start();
		cookie = await server.setupOwner(OWNER);
	});

	afterAll(async () => {
		await server?.stop();
		n8n?.cleanup();
		packed?.cleanup();
		await Promise.all([sandbox?.stop(), received?.close()]);
	});

	it('sales made in the seconds after publishing reach the destination once', async () => {
		const published = sandbox.app.log.lastSeq;
		await server.activateWorkflow(cookie, WORKFLOW);
		// The poll n8n runs at publishing (a test in this mode: what it writes is dropped).
		await until(async () => feedReads(published) >= 1, 'the poll at publishing', 30_000, 200);
		for (let i = 0; i < 3; i++) await sell();
		await allArrived('the first scheduled poll to emit the three sales');
		// One more scheduled poll after the one that emitted: nothing again.
		const after = sandbox.app.log.lastSeq;
		await until(async () => feedReads(after) >= 1, 'one more poll', MINUTE_POLL_MS, 500);
		expect(arrived()).toEqual(made);
		logs = server.log();
		expect(logs).toContain('Poll returned new data; handed off to a new execution');
	});

	it('a sale dated a day ahead, and sales made while n8n was down, arrive once', async () => {
		await sell(Date.now() + DAY);
		await allArrived('the sale dated a day ahead');
		await server.stop();
		logs += server.log();
		await sell();
		await sell();
		server = await n8n.start();
		await allArrived('the sales made while n8n was stopped');
		const after = sandbox.app.log.lastSeq;
		await until(async () => feedReads(after) >= 1, 'one more poll', MINUTE_POLL_MS, 500);
		expect(arrived()).toEqual(made);
		logs += server.log();
		expect(logs).toContain('Poll returned no new data; nothing to hand off');
		console.log(
			`[durable] ${made.length} sales after publishing, each once, across a restart ` +
				`(${sandbox.app.log.since(0).filter((e) => e.route === '/widget-orders').length} ` +
				`reads of /widget-orders)`,
		);
	});

	it('no secret (API key, token) in anything n8n printed', async () => {
		await server.stop();
		expectNoSecrets(n8n.printedText() + logs, secretsOf(sandbox), 'real n8n durable');
	});
});
