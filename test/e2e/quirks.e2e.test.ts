/**
 * Real n8n (`n8n start` and `n8n execute`) meets a difficult service on purpose: the sandbox in
 * quirks mode (docs/sandbox.md).
 * - The poll trigger, active in n8n, against a service whose clock is 10 minutes behind n8n's,
 *   that lists newest first whatever the sort asked, and shows paid sales 8 minutes late, more
 *   sales than a page holds; records leaving the list while polls read it; then a sale dated 2099
 *   and more after it: every sale and refund still listed is forwarded exactly once.
 * - The sell-a-ticket example against a service that applies every write but cuts its answer
 *   short, and redirects every read within its own origin: one order held (the cut 201 names it)
 *   and paid, its tickets out, nothing sent twice, nothing left held. Answered with bytes that are
 *   not HTTP instead, nothing ties the order to the request: the run stops at Create Order naming
 *   the order, which is never taken as its own nor paid. Each of the two runs sells under a Sale
 *   reference of its own (the example sells once per reference).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	apiCredential,
	ensureN8n,
	N8nInstance,
	nodeOutput,
	packPackage,
	REPO_ROOT,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { until } from '../../harness/sandbox/push';
import { Receiver } from '../../harness/net/receiver';
import { SandboxClient } from '../../harness/sandbox/client';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import {
	forwardingWorkflow,
	POLL_EVERY_MS,
	salesPollTrigger,
} from '../../harness/n8n/forwardingWorkflow';
import { MINUTE } from '../../harness/time';
import { OWNER } from '../../harness/n8n/owner';
import { API_CREDENTIAL as DEMO_API } from '../../scripts/demo/setup';

const POLL_WORKFLOW = 'PeE2eWfQuirkPol1';
const SELL_WORKFLOW = 'PeExSellTicket01';
/** The example again, another sale: its Sale node's reference changed, as a user does per sale. */
const SELL_AGAIN = 'PeE2eQuirkSell02';

type Sell = { id: string; name?: string; nodes: Array<{ name: string; parameters: any }> };

/** The shipped example under another id whose Sale node holds `reference`. */
function nextSale(sell: Sell, id: string, reference: string): Sell {
	const nodes = sell.nodes.map((node) =>
		node.name === 'Sale'
			? {
					...node,
					parameters: {
						...node.parameters,
						assignments: {
							assignments: node.parameters.assignments.assignments.map((a: { name: string }) =>
								a.name === 'saleReference' ? { ...a, value: reference } : a,
							),
						},
					},
				}
			: node,
	);
	if (JSON.stringify(nodes) === JSON.stringify(sell.nodes))
		throw new Error('the example has no Sale node with a saleReference');
	return { ...sell, id, name: `${sell.name ?? ''} (${reference})`, nodes };
}

describe('real n8n against the sandbox in quirks mode', () => {
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let polled: Receiver;
	const sold = new Set<string>();
	const refunded = new Set<string>();

	/** Polls since a request-log position: each reads page 1 of the widget sales once. */
	const pollsSince = (seq: number) =>
		sandbox.app.log
			.since(seq)
			.filter(
				(e) =>
					e.method === 'GET' &&
					e.route === '/widget-orders' &&
					e.status !== undefined &&
					new URLSearchParams(e.query).get('page') === '1',
			).length;
	async function polls(count: number) {
		const from = sandbox.app.log.lastSeq;
		await until(
			async () => pollsSince(from) >= count,
			`${count} polls`,
			(count + 1) * POLL_EVERY_MS + 20_000,
		);
	}
	async function sell(count: number, at?: string) {
		for (let i = 0; i < count; i++) {
			const res = await sandbox.admin('POST', '/widget-orders', {
				company: 'partner',
				tickets: 1,
				...(at ? { at } : {}),
			});
			expect(res.status).toBe(201);
			sold.add(String(res.body.id));
		}
	}
	async function refund(ids: string[]) {
		for (const id of ids) {
			expect((await sandbox.admin('POST', `/widget-orders/${id}/refund`)).status).toBe(201);
			refunded.add(id);
		}
	}

	beforeAll(async () => {
		const [install, started, pkg, receiver] = await Promise.all([
			ensureN8n(),
			SandboxClient.start({
				placesPerEvent: 40,
				quirks: 'ignore-sort,clock-skew=-10m,late-visible=8m',
			}),
			packPackage(),
			Receiver.start(),
		]);
		sandbox = started;
		packed = pkg;
		polled = receiver;
		n8n = await N8nInstance.create({ install, packed });
		await n8n.importCredentials([
			apiCredential(DEMO_API, sandbox.sandbox.baseUrl, sandbox.keys.partner),
		]);
		const sell = JSON.parse(
			readFileSync(join(REPO_ROOT, 'examples', 'sell-a-ticket.json'), 'utf8'),
		) as Sell;
		await n8n.importWorkflows([
			forwardingWorkflow(POLL_WORKFLOW, salesPollTrigger(DEMO_API), polled.url),
			sell,
			// one sale per Sale reference: the second test's sale is another one
			nextSale(sell, SELL_AGAIN, 'second sale'),
		]);
		server = await n8n.start();
		const cookie = await server.setupOwner(OWNER);
		const before = sandbox.app.log.lastSeq;
		await server.activateWorkflow(cookie, POLL_WORKFLOW);
		await until(async () => pollsSince(before) >= 1, 'the first poll', 60_000);
	});

	afterAll(async () => {
		await server?.stop();
		n8n?.cleanup();
		packed?.cleanup();
		await Promise.all([sandbox?.stop(), polled?.close()]);
	});

	it(
		'poll: skewed clock, newest-first lists, late-visible sales ' +
			'and a sale dated 2099: each sale and refund forwarded ' +
			'exactly once',
		async () => {
			await sell(130);
			await polls(1);
			await sell(110);
			await refund([...sold].slice(0, 20));
			await polls(1);
			// The settlement lag passes on the service's clock: the late sales become visible.
			await sandbox.advanceClock(9 * MINUTE);
			await sell(60);
			await polls(2);
			// Records leave the list while polls page through it (orders cancelled mid-read): the new
			// sales still come, and none that stays is hidden by one that left.
			await sell(40);
			await sandbox.advanceClock(9 * MINUTE);
			await sandbox.patchQuirks({ dropMidRead: 5, dropMidReadCount: 3 });
			await polls(2);
			await sandbox.patchQuirks({ dropMidRead: null, dropMidReadCount: null });
			await polls(1);
			await sandbox.advanceClock(9 * MINUTE);
			await polls(2);
			// A sale dated 2099 (visible at once now), then more: it comes once and holds none of them
			// back.
			await sandbox.patchQuirks({ lateVisibleMs: null });
			await sell(1, '2099-01-01T00:00:00Z');
			await polls(1);
			await sell(20);
			await polls(2);

			const items = polled.bodies();
			const count = (type: string) => {
				const seen = new Map<string, number>();
				for (const item of items.filter((i) => i.type === type))
					seen.set(String(item.orderId), (seen.get(String(item.orderId)) ?? 0) + 1);
				return seen;
			};
			const sales = count('sale');
			const refunds = count('refund');
			// A sale that left may have been forwarded before it left, once; every other one, once.
			const left = new Set<string>(
				((await sandbox.admin('GET', '/quirks')).body.recordsLeft['/widget-orders'] ?? []).map(
					String,
				),
			);
			expect(left.size).toBeGreaterThan(0);
			expect([...sales.keys()].filter((id) => !sold.has(id))).toEqual([]);
			expect([...sales.keys()].filter((id) => !left.has(id)).sort()).toEqual(
				[...sold].filter((id) => !left.has(id)).sort(),
			);
			expect([...sales.values()].every((n) => n === 1)).toBe(true);
			expect([...refunds.keys()].sort()).toEqual([...refunded].sort());
			expect([...refunds.values()].every((n) => n === 1)).toBe(true);
			console.log(
				`quirks poll: ${sold.size} sales and ${refunded.size}` +
					` refunds made, ${left.size} sales left the list mid-read,` +
					` ${items.length} items forwarded`,
			);
		},
	);

	it(
		'sell a ticket: the hold applied behind bytes that are not HTTP: the order named, never ' +
			'taken or paid; sent once',
		async () => {
			await sandbox.setQuirks(
				// ignore-sort: the first event listed is one the poll above did not sell out.
				'mangle-write-answers=garbage,mangle-write-answers-count=1,' +
					'redirect=same-origin,ignore-sort',
			);
			const from = sandbox.app.log.lastSeq;
			const run = await n8n.executeAllowingFailure(SELL_WORKFLOW);
			await sandbox.setQuirks({});
			expect(run.status).toBe('error');
			const made = [...sandbox.app.store.orders.values()].filter(
				(o) => o.status === 'reserved_to_time',
			);
			expect(made).toHaveLength(1);
			const message = String(run.data.resultData.error?.message ?? '');
			expect(message).toMatch(/^Uncertain: creating an order on event \d+ may or may not/);
			expect(message).toContain(`order ${made[0].id} (places `);
			const writes = sandbox.app.log
				.since(from)
				.filter((e) => e.method !== 'GET' && e.route !== '/token');
			expect(writes.map((e) => `${e.method} ${e.route}`)).toEqual(['POST /orders']);
			await sandbox.send('PUT', `/orders/${made[0].id}/status`, { toStatus: 'expired' });
		},
	);

	it(
		'sell a ticket: writes applied behind answers cut short, reads redirected: one order ' +
			'paid, nothing sent twice, nothing left held',
		async () => {
			await sandbox.setQuirks('mangle-write-answers=truncated,redirect=same-origin,ignore-sort');
			const from = sandbox.app.log.lastSeq;
			const run = await n8n.execute(SELL_AGAIN);

			expect(run.status).toBe('success');
			const tickets = nodeOutput(run, 'Report Payment');
			expect(tickets.length).toBeGreaterThan(0);
			expect(run.data.resultData.runData['Release Hold']).toBeUndefined();
			await sandbox.setQuirks({});
			const paid = (await sandbox.get(`/orders/${tickets[0].orderId}`)).body;
			expect(paid.status).toBe('paid');
			expect(tickets.map((t: any) => t.barcode).sort()).toEqual(
				paid.tickets.map((t: any) => t.barcode).sort(),
			);
			const writes = sandbox.app.log
				.since(from)
				.filter((e) => e.method !== 'GET' && e.route !== '/token');
			expect(writes.map((e) => `${e.method} ${e.route}`)).toEqual([
				'POST /orders',
				'PUT /orders/{id}/status',
			]);
			expect(
				[...sandbox.app.store.orders.values()].filter((o) => o.status === 'reserved_to_time'),
			).toEqual([]);
		},
	);

	it('no secret in anything n8n printed', async () => {
		await server.stop();
		expectNoSecrets(
			n8n.printedText() + server.log(),
			secretsOf(sandbox),
			'real n8n in quirks mode',
		);
	});
});
