/**
 * The shop examples as shipped (examples/shop-checkout.json and its error workflow
 * examples/shop-release-held-orders.json) in real n8n (2.40.7, or N8N_VERSION such as 1.123.81)
 * started with `n8n start`, set up by the demo's own code: the credentials (the shop's key made
 * for this run), an n8n API key for the error workflow, the examples, the checkout published.
 * Buyers post to the checkout's production webhook, case by case; each case ends once the error
 * workflow has dealt with every failed run, and the sandbox's scenario report then shows what
 * became of each hold. One copy has its payment stand-in replaced as the checkout's note says (a
 * payment provider's API through n8n's HTTP Request node, then a Set node saying paid or declined):
 * only the provider's decline releases; a charge whose answer is lost keeps the hold.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { SandboxClient } from '../../harness/sandbox/client';
import { until } from '../../harness/sandbox/push';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { OWNER } from '../../harness/n8n/owner';
import { n8nWithSandbox } from '../../harness/n8n/withSandbox';
import { MINUTE } from '../../harness/time';
import type { ScenarioReport } from '../../sandbox/scenario';
import {
	n8nMajor,
	nodeOutput,
	type N8nInstall,
	type N8nInstance,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import {
	demoSecrets,
	importDemo,
	loadExamples,
	type DemoSecrets,
	type Example,
} from '../../scripts/demo/setup';
import { publishShop, SHOP_HEADER } from '../../scripts/demo/shop';

const CHECKOUT = 'PeExShopCheckout';
const RELEASE = 'PeExShopRelease1';
/** examples/sell-a-ticket.json: run twice with one Sale reference, as a double click runs it. */
const SELL = 'PeExSellTicket01';
/** The checkout with its payment step's error output not wired: a failing payment kills it. */
const UNWIRED = { id: 'PeE2eShopUnwired', path: 'shop-checkout-unwired' };
/** The checkout with a payment provider in place of the stand-in, as its note says. */
const PROVIDER = { id: 'PeE2eShopProvider', path: 'shop-checkout-provider' };
/** The checkout with a payment step slower than the workflow's Timeout Workflow setting. */
const SLOW = { id: 'PeE2eShopTimeout', path: 'shop-checkout-slow' };
/** The checkout with a Timeout Workflow setting its payment report outlasts (a slow service). */
const LATE = { id: 'PeE2eShopLateReport', path: 'shop-checkout-late' };
const PLACES = 10;
const BARCODE = /^\d{13}$/;
const STATUS_PUT = { method: 'PUT', path: '/orders/{id}/status' };
/** What no answer to a buyer may show: the API's paths, a Code node's line, n8n's item index. */
const NOT_FOR_BUYERS =
	/\/api\/|\/orders\/|\/event-points\/|\[line \d+\]|\[item \d+\]|Refused:|Uncertain:/;

interface Node {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	onError?: string;
	webhookId?: string;
}
type Workflow = Example & {
	connections: Record<string, { main: unknown[][] }>;
	settings?: Record<string, unknown>;
};
const PAY = 'Take Payment (replace me)';
const NO_HOLDS = { created: 0, paid: 0, released: 0, expired: 0, leftBehind: 0 };

/** The shipped checkout under its own ID and webhook path, `change` applied to its other nodes. */
function variant(
	shipped: Workflow,
	{ id, path }: { id: string; path: string },
	label: string,
	change: (node: Node) => Node,
): Workflow {
	const nodes = (shipped.nodes as unknown as Node[]).map((node) =>
		node.type === 'n8n-nodes-base.webhook'
			? { ...node, webhookId: randomUUID(), parameters: { ...node.parameters, path } }
			: change(node),
	);
	return { ...shipped, id, name: `${shipped.name} (${label})`, nodes: nodes as Example['nodes'] };
}

/**
 * What a user builds who swaps in their payment node and forgets its error output: a payment step
 * that fails (a provider down, a timeout) fails the run (On Error: Stop Workflow) after the hold.
 */
function unwired(shipped: Workflow): Workflow {
	const failing = "throw new Error('The payment provider did not answer');";
	return {
		...variant(shipped, UNWIRED, 'payment error output not wired', (node) =>
			node.name === PAY
				? { ...node, onError: 'stopWorkflow', parameters: { ...node.parameters, jsCode: failing } }
				: node,
		),
		connections: { ...shipped.connections, [PAY]: { main: [shipped.connections[PAY].main[0]] } },
	};
}

const CHARGE = 'Charge Card';
const ANSWER = 'Payment Answer';

/**
 * The checkout with its stand-in replaced as the note says: the payment provider's API through
 * n8n's HTTP Request node (Never Error and Full Response, a 1 s Timeout, its error output wired as
 * the stand-in's), then a Set node saying `paid` or `declined` from the provider's answer.
 */
function withProvider(shipped: Workflow, providerUrl: string): Workflow {
	const base = variant(shipped, PROVIDER, 'a payment provider', (node) => node);
	const stand = (base.nodes as unknown as Array<Node & { position?: number[] }>).find(
		(n) => n.name === PAY,
	)!;
	const charge = {
		id: randomUUID(),
		name: CHARGE,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: stand.position,
		onError: 'continueErrorOutput',
		parameters: {
			method: 'POST',
			url: `${providerUrl}/v1/charges`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody:
				'={{ JSON.stringify({ amount: 100, currency: "eur", order: ' +
				"String($('Hold Best Available').item.json.id) }) }}",
			options: { timeout: 1000, response: { response: { neverError: true, fullResponse: true } } },
		},
	};
	const flag = (name: string, value: string) => ({
		id: randomUUID(),
		name,
		value,
		type: 'boolean',
	});
	const answer = {
		id: randomUUID(),
		name: ANSWER,
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position: [(stand.position?.[0] ?? 900) + 110, (stand.position?.[1] ?? 0) + 160],
		parameters: {
			assignments: {
				assignments: [
					flag('paid', "={{ $json.statusCode === 200 && $json.body.status === 'succeeded' }}"),
					flag('declined', '={{ $json.statusCode === 402 }}'),
				],
			},
			options: {},
		},
	};
	const link = (node: string) => [{ node, type: 'main', index: 0 }];
	const connections = { ...shipped.connections };
	delete connections[PAY];
	// A purchase that is not a repeat (its Idempotency-Key) goes on to the charge.
	connections['Repeated?'] = { main: [shipped.connections['Repeated?'].main[0], link(CHARGE)] };
	connections[CHARGE] = { main: [link(ANSWER), link('Payment Unknown')] };
	connections[ANSWER] = { main: [link('Paid?')] };
	return {
		...base,
		nodes: [
			...(base.nodes as unknown as Node[]).filter((n) => n.name !== PAY),
			charge,
			answer,
		] as unknown as Example['nodes'],
		connections,
	};
}

/** How the payment provider stand-in answers the next charge. */
type Provider = 'succeeds' | 'declines' | 'answersLate' | 'fails';

/** A payment step slower than the workflow's Timeout Workflow (1 s): n8n stops the run. */
function slow(shipped: Workflow): Workflow {
	const stall = 'await new Promise((resolve) => setTimeout(resolve, 3000));\nreturn $input.item;';
	return {
		...variant(shipped, SLOW, 'payment times out', (node) =>
			node.name === PAY ? { ...node, parameters: { ...node.parameters, jsCode: stall } } : node,
		),
		settings: { ...shipped.settings, executionTimeout: 1 },
	};
}

/** The checkout as shipped, stopped by n8n when a run takes over 2 s. */
function late(shipped: Workflow): Workflow {
	return {
		...variant(shipped, LATE, 'stopped after 2 s', (node) => node),
		settings: { ...shipped.settings, executionTimeout: 2 },
	};
}

interface Run {
	id: string;
	status: string;
}

describe('real n8n: the shop checkout, closed, answers each case and leaves no hold behind', () => {
	let install: N8nInstall;
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let cookie: string;
	let checkoutUrl: string;
	let workflowIds: Map<string, string>;
	let secrets: DemoSecrets;
	let eventId: number;
	let v2: boolean;
	let provider: Server;
	let providerAnswers: Provider = 'succeeds';
	/** Charges the provider made, one per card charged. */
	const charges: string[] = [];

	async function buy(
		body: unknown,
		{
			path,
			key,
			idempotencyKey,
		}: { path?: string; key?: string | null; idempotencyKey?: string } = {},
	): Promise<{ status: number; body: any }> {
		const headers: Record<string, string> = { 'content-type': 'application/json' };
		if (key !== null) headers[SHOP_HEADER] = key ?? secrets.shopKey;
		if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
		const res = await fetch(path ? `${server.url}/webhook/${path}` : checkoutUrl, {
			method: 'POST',
			headers,
			body: JSON.stringify(body),
		});
		const text = await res.text();
		try {
			return { status: res.status, body: JSON.parse(text) };
		} catch {
			return { status: res.status, body: text };
		}
	}

	async function order(id: number | string): Promise<any> {
		const res = await sandbox.get(`/orders/${id}`);
		expect(res.status).toBe(200);
		return res.body;
	}

	async function executions(workflowId: string): Promise<Run[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		return (await server.rest(cookie, 'GET', `/executions?filter=${filter}&limit=100`)).results;
	}

	const ended = (run: Run) => !['new', 'running', 'waiting'].includes(run.status);

	/** The failed run each ended error-workflow run was started for (its id), read once. */
	const releasedFor = new Map<string, string | undefined>();

	async function failedRunOf(release: Run): Promise<string | undefined> {
		if (!releasedFor.has(release.id)) {
			const run = await server.rest(cookie, 'GET', `/executions/${release.id}`);
			// n8n stores the run flattened (flatted): every string is one element of the array. The
			// Error Trigger's output holds the failed run's address, ending in its id.
			const strings = (JSON.parse(run.data) as unknown[]).filter(
				(v): v is string => typeof v === 'string',
			);
			const address = strings.map((v) => /\/executions\/(\d+)$/.exec(v)).find(Boolean);
			releasedFor.set(release.id, address?.[1]);
		}
		return releasedFor.get(release.id);
	}

	/**
	 * Waits until every checkout run has ended and, for each failed one, a run of the error workflow
	 * started for it has ended (n8n 1.x starts none for a run its timeout stopped); returns the
	 * checkout's runs, newest first. Matched by id, not counted: a count once let an earlier run's
	 * extra error-workflow run stand in for this one's.
	 */
	async function settled(): Promise<Run[]> {
		const checkouts = [CHECKOUT, UNWIRED.id, SLOW.id, LATE.id, PROVIDER.id].map(
			(id) => workflowIds.get(id)!,
		);
		const failedStatuses = v2 ? ['error', 'canceled'] : ['error'];
		let runs: Run[] = [];
		await until(
			async () => {
				const all = (await Promise.all(checkouts.map(executions))).flat();
				if (!all.every(ended)) return false;
				const releases = (await executions(workflowIds.get(RELEASE)!)).filter(ended);
				const released = new Set(await Promise.all(releases.map(failedRunOf)));
				runs = await executions(workflowIds.get(CHECKOUT)!);
				return all
					.filter((r) => failedStatuses.includes(r.status))
					.every((r) => released.has(r.id));
			},
			'the checkout runs and their error workflow runs to end',
			60_000,
			250,
		);
		return runs;
	}

	/** Settles, then the scenario's report: every case ends with nothing left behind. */
	async function report(): Promise<ScenarioReport> {
		await settled();
		const found = await sandbox.scenarioReport();
		expect(found.holds.leftBehind).toBe(0);
		return found;
	}

	/** The checkout's newest run's status, once ended. */
	const lastRunStatus = async () => (await settled())[0].status;

	beforeAll(async () => {
		provider = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const answer = (status: number, body: object) => {
					res.writeHead(status, { 'content-type': 'application/json' });
					res.end(JSON.stringify(body));
				};
				if (providerAnswers === 'declines')
					return answer(402, { error: { code: 'card_declined', message: 'Card declined' } });
				if (providerAnswers === 'fails') return answer(500, { error: { message: 'Internal' } });
				// The card is charged at once; the answer comes back at once, or after 3 s.
				const charge = `ch_${charges.length + 1}`;
				charges.push(charge);
				const delay = providerAnswers === 'answersLate' ? 3000 : 0;
				setTimeout(() => answer(200, { id: charge, status: 'succeeded' }), delay);
			});
		});
		await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
		const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
		({ install, sandbox, packed, n8n } = await n8nWithSandbox());
		v2 = n8nMajor(install) >= 2;
		const created = await sandbox.admin('POST', '/events', { name: 'Shop e2e', places: PLACES });
		expect(created.status).toBe(201);
		eventId = Number(created.body.id);
		server = await n8n.start();
		cookie = await server.setupOwner(OWNER);
		const shipped = loadExamples().filter((e) => [CHECKOUT, RELEASE, SELL].includes(e.id));
		expect(shipped.map((e) => e.id).sort()).toEqual([CHECKOUT, RELEASE, SELL].sort());
		const checkout = shipped.find((e) => e.id === CHECKOUT) as Workflow;
		const examples = [
			...shipped,
			unwired(checkout),
			slow(checkout),
			late(checkout),
			withProvider(checkout, providerUrl),
		];
		secrets = demoSecrets();
		workflowIds = await importDemo(server, cookie, sandbox.sandbox, secrets, examples);
		const shop = await publishShop(server, cookie, examples, workflowIds, v2);
		expect(shop?.keyed).toBe(true);
		checkoutUrl = shop!.url;
		for (const { id } of [UNWIRED, SLOW, LATE, PROVIDER])
			await server.activateWorkflow(cookie, workflowIds.get(id)!);
		// n8n answers before the webhooks are served (404 until then); a call without the key
		// starts no run.
		for (const url of [
			checkoutUrl,
			...[UNWIRED, SLOW, LATE, PROVIDER].map((w) => `${server.url}/webhook/${w.path}`),
		])
			await until(
				async () => (await fetch(url, { method: 'POST' })).status === 403,
				`${url} to be served`,
				30_000,
				250,
			);
	});

	afterEach(async () => {
		await sandbox.admin('DELETE', '/faults');
	});

	afterAll(async () => {
		await server?.stop();
		n8n?.cleanup();
		packed?.cleanup();
		await sandbox?.stop();
		provider?.closeAllConnections();
		await new Promise((resolve) => (provider ? provider.close(resolve) : resolve(undefined)));
	});

	it('a call without the key, or with another, is refused (403): no run, no hold', async () => {
		await sandbox.startScenario('shop: no key');
		const runsBefore = (await settled()).length;

		const answers = [
			await buy({ eventId, quantity: 1 }, { key: null }),
			await buy({ eventId, quantity: 1 }, { key: `${secrets.shopKey}x` }),
			await buy({ eventId, quantity: 1 }, { key: '' }),
		];

		expect(answers.map((a) => a.status)).toEqual([403, 403, 403]);
		expect((await report()).holds).toEqual(NO_HOLDS);
		expect((await settled()).length).toBe(runsBefore);
	});

	it('a buyer gets paid tickets with their places and barcodes; the run succeeds', async () => {
		await sandbox.startScenario('shop: a buyer');

		const { status, body } = await buy({ eventId, quantity: 2 });

		expect([status, Object.keys(body).sort()]).toEqual([200, ['orderId', 'tickets', 'totalPrice']]);
		const paid = await order(body.orderId);
		expect(paid.status).toBe('paid');
		expect(body.tickets).toEqual(
			paid.tickets.map((t: any) => ({
				sectorName: t.sectorName,
				rowName: t.rowName,
				placeName: t.placeName,
				barcode: t.barcode,
			})),
		);
		expect(body.tickets).toHaveLength(2);
		for (const t of body.tickets) expect(t.barcode).toMatch(BARCODE);
		const found = await report();
		expect([found.holds, found.placesSold, found.paymentsForLostHolds]).toEqual([
			{ ...NO_HOLDS, created: 1, paid: 1 },
			2,
			0,
		]);
		expect(await lastRunStatus()).toBe('success');
	});

	it.each([
		['an empty body', {}, 'eventId'],
		['no quantity (never 1 by default)', { quantity: undefined }, 'quantity'],
		['quantity "two"', { quantity: 'two' }, 'quantity'],
		['quantity 11, over the per-order limit', { quantity: 11 }, 'quantity'],
		['quantity 0', { quantity: 0 }, 'quantity'],
		['quantity 1.5', { quantity: 1.5 }, 'quantity'],
		['eventId "abc"', { eventId: 'abc' }, 'eventId'],
		['eventId -5', { eventId: -5 }, 'eventId'],
	])(
		'bad input, %s: 400 naming the field, nothing held, the run failed in Executions',
		async (_, change, field) => {
			await sandbox.startScenario(`shop: bad input ${field}`);
			const request = Object.keys(change).length ? { eventId, quantity: 1, ...change } : change;

			const { status, body } = await buy(request);

			expect([status, body]).toEqual([
				400,
				{
					error: 'invalid_request',
					field,
					message: expect.stringMatching(new RegExp(`^${field}`)),
				},
			]);
			expect(body.message).not.toMatch(NOT_FOR_BUYERS);
			expect((await report()).holds).toEqual(NO_HOLDS);
			expect(await lastRunStatus()).toBe('error');
		},
	);

	it('an unknown event, one whose sale has ended, or one not for this key: 404', async () => {
		await sandbox.startScenario('shop: no such event');
		const closed = await sandbox.admin('POST', '/events', { name: 'Closed', places: 4 });
		const ended = new Date(sandbox.app.clock.now() - MINUTE).toISOString();
		await sandbox.admin('PATCH', `/events/${closed.body.id}`, { dateEndOfSale: ended });
		const forbidden = {
			kind: 'status',
			status: 403,
			body: { code: 'forbidden', message: 'Not allowed for this key' },
			method: 'GET',
			path: '/event-points/{id}/places',
		};

		const answers = [
			await buy({ eventId: 987654, quantity: 1 }),
			await buy({ eventId: String(closed.body.id), quantity: 1 }),
			await sandbox.admin('POST', '/faults', forbidden).then(() => buy({ eventId, quantity: 1 })),
		];

		for (const { status, body } of answers) {
			expect([status, body.error]).toEqual([404, 'event_not_found']);
			expect(body.message).not.toMatch(NOT_FOR_BUYERS);
		}
		expect((await report()).holds).toEqual(NO_HOLDS);
	});

	it("the service's own per-order limit, below the shop's, answers 400 on quantity", async () => {
		await sandbox.startScenario('shop: per-order limit');
		await sandbox.admin('PUT', '/config', { limits: { ticketsPerOrder: 3 } });
		try {
			const { status, body } = await buy({ eventId, quantity: 4 });

			expect([status, body]).toEqual([
				400,
				{
					error: 'invalid_request',
					field: 'quantity',
					message: 'quantity must be at most 3 tickets in one order.',
				},
			]);
		} finally {
			await sandbox.admin('PUT', '/config', { limits: { ticketsPerOrder: 10 } });
		}
		expect((await report()).holds).toEqual(NO_HOLDS);
	});

	it('asking for more places than are left answers 409 sold out, saying what is left', async () => {
		await sandbox.startScenario('shop: sold out');
		const small = await sandbox.admin('POST', '/events', { name: 'Small', places: 2 });

		const { status, body } = await buy({ eventId: small.body.id, quantity: 3 });

		// Its two places may differ in price: one order holds places of one price.
		expect([status, body]).toEqual([
			409,
			{ error: 'sold_out', soldOut: true, left: expect.any(Number), message: expect.any(String) },
		]);
		expect([1, 2]).toContain(body.left);
		expect(body.message).toBe(
			`Not enough tickets left: at most ${body.left} can be bought in one order.`,
		);
		expect((await report()).holds).toEqual(NO_HOLDS);
	});

	it('a declined payment answers 402: nothing charged, the seats released', async () => {
		await sandbox.startScenario('shop: payment declined');

		const { status, body } = await buy({ eventId, quantity: 1, failPayment: true });

		expect([status, body]).toEqual([
			402,
			{
				paid: false,
				orderId: expect.any(String),
				seatsReleased: true,
				message:
					'Your payment was declined: nothing was charged. The seats held for you are released.',
			},
		]);
		expect((await order(body.orderId)).status).toBe('expired');
		const found = await report();
		expect([found.holds, found.placesSold]).toEqual([{ ...NO_HOLDS, created: 1, released: 1 }, 0]);
		expect(await lastRunStatus()).toBe('error');
	});

	it('a payment report landed, its answer lost: read back, 200 with tickets', async () => {
		await sandbox.startScenario('shop: report lost, paid');
		await sandbox.admin('POST', '/faults', { kind: 'drop', phase: 'after', ...STATUS_PUT });

		const { status, body } = await buy({ eventId, quantity: 2 });

		expect([status, body.tickets?.length]).toEqual([200, 2]);
		expect((await order(body.orderId)).status).toBe('paid');
		const found = await report();
		expect([found.holds, found.paymentsForLostHolds]).toEqual([
			{ ...NO_HOLDS, created: 1, paid: 1 },
			0,
		]);
	});

	it(
		'a payment report the service failed without applying: read back, 402, seats released, ' +
			'the charge to refund',
		async () => {
			await sandbox.startScenario('shop: report failed, not paid');
			await sandbox.admin('POST', '/faults', {
				kind: 'status',
				status: 500,
				body: { code: 'internal', message: 'Internal error' },
				...STATUS_PUT,
			});

			const { status, body } = await buy({ eventId, quantity: 1 });

			expect([status, body]).toEqual([
				402,
				{
					paid: false,
					orderId: expect.any(String),
					seatsReleased: true,
					message:
						'We could not complete your order, so it is cancelled and your payment will be ' +
						'refunded. The seats held for you are released.',
				},
			]);
			expect((await order(body.orderId)).status).toBe('expired');
			const found = await report();
			expect([found.holds, found.paymentsForLostHolds]).toEqual([
				{ ...NO_HOLDS, created: 1, released: 1 },
				0,
			]);
		},
	);

	it(
		'a payment report still unknown after reading back: 202 "do not pay again", the hold ' +
			'kept by the checkout and by the error workflow; it ends at its deadline',
		async () => {
			await sandbox.startScenario('shop: report unknown');
			await sandbox.admin('POST', '/faults', { kind: 'drop', phase: 'before', ...STATUS_PUT });
			await sandbox.admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				count: 0,
				method: 'GET',
				path: '/orders/{id}',
			});

			const { status, body } = await buy({ eventId, quantity: 1 });

			expect([status, body]).toEqual([
				202,
				{ pending: true, orderId: expect.any(String), message: expect.any(String) },
			]);
			expect(body.message).toMatch(/^Your payment is being confirmed\. Do not pay again/);
			expect(await lastRunStatus()).toBe('error');
			await sandbox.admin('DELETE', '/faults');
			expect((await order(body.orderId)).status).toBe('reserved_to_time');
			expect((await sandbox.scenarioReport()).holds).toEqual({
				...NO_HOLDS,
				created: 1,
				leftBehind: 1,
			});
			await sandbox.advanceClock(16 * MINUTE);
			expect((await report()).holds).toEqual({ ...NO_HOLDS, created: 1, expired: 1 });
		},
	);

	it(
		'a run that dies in its payment step (its error output not wired): the card may have been ' +
			'charged, so the error workflow reads the run through the n8n API and keeps the hold; it ' +
			'ends at its deadline',
		async () => {
			await sandbox.startScenario('shop: run dies paying');

			const { status, body } = await buy({ eventId, quantity: 2 }, { path: UNWIRED.path });

			// No Respond to Webhook ran: n8n answers for the failed run itself (1.x: an empty 200).
			expect([status, body]).toEqual(
				v2 ? [500, expect.objectContaining({ message: 'Error in workflow' })] : [200, ''],
			);
			await settled();
			expect((await sandbox.scenarioReport()).holds).toEqual({
				...NO_HOLDS,
				created: 1,
				leftBehind: 1,
			});
			await sandbox.advanceClock(16 * MINUTE);
			const found = await report();
			expect([found.holds, found.placesSold]).toEqual([{ ...NO_HOLDS, created: 1, expired: 1 }, 0]);
		},
	);

	it(
		"a run stopped by the workflow's timeout while its payment step ran: the hold is kept " +
			'(the card may have been charged) and ends at its deadline',
		async () => {
			await sandbox.startScenario('shop: run times out paying');

			const { status, body } = await buy({ eventId, quantity: 1 }, { path: SLOW.path });

			expect([status, body.message]).toEqual([
				500,
				'The execution was cancelled because it timed out',
			]);
			const slowId = workflowIds.get(SLOW.id)!;
			await until(
				async () => (await executions(slowId))[0]?.status === 'canceled',
				'the stopped run to be saved',
				30_000,
				250,
			);
			// 2.x starts the error workflow (which keeps the hold); 1.x starts none for a run its
			// timeout stopped.
			await settled();
			expect((await sandbox.scenarioReport()).holds.leftBehind).toBe(1);
			await sandbox.advanceClock(16 * MINUTE);
			expect((await report()).holds).toEqual({ ...NO_HOLDS, created: 1, expired: 1 });
		},
	);

	it(
		'a declined payment whose release failed: the run chose to release, so the error ' +
			'workflow releases the hold',
		async () => {
			await sandbox.startScenario('shop: release fails');
			await sandbox.admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				body: { code: 'unavailable', message: 'Try again later' },
				count: 1,
				...STATUS_PUT,
			});

			const { status, body } = await buy({ eventId, quantity: 1, failPayment: true });

			expect([status, body]).toEqual([
				402,
				{
					paid: false,
					orderId: expect.any(String),
					seatsReleased: false,
					message: 'Your payment was declined: nothing was charged.',
				},
			]);
			const found = await report();
			expect([found.holds, found.placesSold]).toEqual([
				{ ...NO_HOLDS, created: 1, released: 1 },
				0,
			]);
			expect((await order(body.orderId)).status).toBe('expired');
		},
	);

	describe("the stand-in replaced by a payment provider, as the checkout's note says", () => {
		const pay = async (answers: Provider) => {
			providerAnswers = answers;
			const charged = charges.length;
			const answer = await buy({ eventId, quantity: 1 }, { path: PROVIDER.path });
			return { ...answer, charged: charges.length - charged };
		};

		it('the provider charges: 200 with the tickets, the order paid', async () => {
			await sandbox.startScenario('shop: provider charges');

			const { status, body, charged } = await pay('succeeds');

			expect([status, body.tickets?.length, charged]).toEqual([200, 1, 1]);
			expect((await order(body.orderId)).status).toBe('paid');
			expect((await report()).holds).toEqual({ ...NO_HOLDS, created: 1, paid: 1 });
		});

		it('the provider declines (402): 402 "nothing was charged", the seats released', async () => {
			await sandbox.startScenario('shop: provider declines');

			const { status, body, charged } = await pay('declines');

			expect([status, body, charged]).toEqual([
				402,
				{
					paid: false,
					orderId: expect.any(String),
					seatsReleased: true,
					message:
						'Your payment was declined: nothing was charged. The seats held for you are released.',
				},
				0,
			]);
			expect((await report()).holds).toEqual({ ...NO_HOLDS, created: 1, released: 1 });
		});

		it.each([
			['charges the card, its answer later than the 1 s Timeout', 'answersLate', 1],
			['fails (500): the charge unknown', 'fails', 0],
		] as const)(
			'the provider %s: never "nothing was charged"; 202 "being confirmed, do not pay again", ' +
				'the hold kept by the checkout and by the error workflow, the run failed naming the ' +
				'order and what to check with the provider',
			async (_, answers, charges) => {
				await sandbox.startScenario(`shop: provider ${answers}`);

				const { status, body, charged } = await pay(answers);

				expect([status, body, charged]).toEqual([
					202,
					{ pending: true, orderId: expect.any(String), message: expect.any(String) },
					charges,
				]);
				expect(body.message).toBe(
					'Your payment is being confirmed. Do not pay again: we will send your tickets, or ' +
						'refund you, as soon as it is confirmed.',
				);
				expect(body.message).not.toMatch(NOT_FOR_BUYERS);
				await settled();
				const runs = await executions(workflowIds.get(PROVIDER.id)!);
				expect(runs[0].status).toBe('error');
				const failed = await server.rest(cookie, 'GET', `/executions/${runs[0].id}`);
				expect(JSON.stringify(failed)).toContain(
					`Order ${body.orderId}: the payment step gave no clear answer`,
				);
				expect(JSON.stringify(failed)).toContain('Look the payment up with your payment provider');
				expect((await order(body.orderId)).status).toBe('reserved_to_time');
				expect((await sandbox.scenarioReport()).holds).toEqual({
					...NO_HOLDS,
					created: 1,
					leftBehind: 1,
				});
				await sandbox.advanceClock(16 * MINUTE);
				expect((await report()).holds).toEqual({ ...NO_HOLDS, created: 1, expired: 1 });
			},
		);
	});

	it(
		'a run stopped while its payment report is on the way: the error workflow keeps the hold, ' +
			'and the late report makes it a sale',
		async () => {
			await sandbox.startScenario('shop: stopped while reporting');
			await sandbox.admin('POST', '/faults', { kind: 'latency', delayMs: 4000, ...STATUS_PUT });

			const { status, body } = await buy({ eventId, quantity: 1 }, { path: LATE.path });

			expect([status, body.message]).toEqual([
				500,
				'The execution was cancelled because it timed out',
			]);
			await until(
				async () => (await sandbox.scenarioReport()).holds.paid === 1,
				'the late payment report to land',
				30_000,
				250,
			);
			const found = await report();
			expect([found.holds, found.paymentsForLostHolds]).toEqual([
				{ ...NO_HOLDS, created: 1, paid: 1 },
				0,
			]);
		},
	);

	it(
		'a buyer who clicks twice buys once: two posts with one Idempotency-Key at once make one ' +
			'order and one charge; asked again, the same tickets; the key with another quantity: 422',
		async () => {
			await sandbox.startScenario('shop: two clicks');
			const idempotencyKey = `click-${randomUUID()}`;
			const request = { eventId, quantity: 1 };
			const clicks = await Promise.all([
				buy(request, { idempotencyKey }),
				buy(request, { idempotencyKey }),
			]);
			// A click while the first one pays is told to ask again; asked again, the first answer.
			const again = await buy(request, { idempotencyKey });
			const answers = [...clicks, again];
			expect(answers.map((a) => [200, 409].includes(a.status))).toEqual([true, true, true]);
			expect(again.status).toBe(200);
			const paid = answers.filter((a) => a.status === 200).map((a) => JSON.stringify(a.body));
			expect(new Set(paid).size).toBe(1);
			for (const a of answers.filter((a) => a.status === 409))
				expect(a.body).toMatchObject({ error: 'in_progress', orderId: again.body.orderId });
			const other = await buy({ eventId, quantity: 2 }, { idempotencyKey });
			expect([other.status, other.body.error]).toEqual([422, 'idempotency_key_reused']);
			expect(other.body.message).not.toMatch(NOT_FOR_BUYERS);
			const found = await report();
			expect([found.holds, found.placesSold]).toEqual([{ ...NO_HOLDS, created: 1, paid: 1 }, 1]);
		},
	);

	it(
		'a repeat of a paid purchase whose order cannot be read just now: 409 in_progress with its ' +
			'order, never "nothing was charged"; asked again, the same tickets. An Idempotency-Key ' +
			'over 1,000 characters: 400 naming the header, nothing held',
		async () => {
			await sandbox.startScenario('shop: a repeat not read, a long key');
			const idempotencyKey = `repeat-${randomUUID()}`;
			const request = { eventId, quantity: 1 };
			const first = await buy(request, { idempotencyKey });
			expect(first.status).toBe(200);
			await sandbox.admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				method: 'GET',
				path: '/orders/{id}',
				count: 0,
			});
			const again = await buy(request, { idempotencyKey });
			await sandbox.admin('DELETE', '/faults');
			expect([again.status, again.body.error, again.body.orderId]).toEqual([
				409,
				'in_progress',
				first.body.orderId,
			]);
			expect(again.body.message).not.toMatch(/charged/i);
			expect(again.body.message).not.toMatch(NOT_FOR_BUYERS);
			const later = await buy(request, { idempotencyKey });
			expect([later.status, later.body]).toEqual([200, first.body]);
			const long = await buy(request, { idempotencyKey: `cart.${'x'.repeat(1200)}` });
			expect([long.status, long.body.error, long.body.field]).toEqual([
				400,
				'invalid_request',
				'Idempotency-Key',
			]);
			expect(long.body.message).not.toMatch(NOT_FOR_BUYERS);
			const found = await report();
			expect([found.holds, found.placesSold]).toEqual([{ ...NO_HOLDS, created: 1, paid: 1 }, 1]);
		},
	);

	it(
		'Sell a ticket run twice (a double click): one sale; the second run shows its tickets and ' +
			'reports no payment',
		async () => {
			await sandbox.startScenario('sell a ticket: twice');
			const id = workflowIds.get(SELL)!;
			const first = await n8n.execute(id);
			const second = await n8n.execute(id);
			const sold = nodeOutput(first, 'Report Payment');
			expect(sold.length).toBeGreaterThan(0);
			expect(nodeOutput(second, 'Sold Tickets').map((t) => [t.orderId, t.barcode])).toEqual(
				sold.map((t) => [t.orderId, t.barcode]),
			);
			expect(second.data.resultData.runData['Report Payment']).toBeUndefined();
			const found = await sandbox.scenarioReport();
			expect([found.holds.created, found.holds.paid]).toEqual([1, 1]);
		},
	);

	it('every run of the error workflow succeeded', async () => {
		const releases = await executions(workflowIds.get(RELEASE)!);
		expect(releases.length).toBeGreaterThan(10);
		expect(releases.filter((r) => r.status !== 'success')).toEqual([]);
	});

	it("nothing n8n printed holds a key of the sandbox or the shop's key", () => {
		expectNoSecrets(
			n8n.printedText() + server.log(),
			secretsOf(sandbox, { 'shop key': secrets.shopKey }),
			'shop e2e',
		);
	});
});
