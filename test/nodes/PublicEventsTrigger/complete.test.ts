import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	NodeHelpers,
	type IDataObject,
	type INodeParameters,
	type INodeProperties,
} from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession, type WebhookTrigger } from '../../../harness/engine';
import { buildNode } from '../../../harness/engine/runtime';
import { rowsSchema, schemaErrors } from '../../../harness/engine/rowSchema';
import {
	ledgerKeysOf,
	rowsChanged,
	statusOf,
	upsertByKey,
} from '../../../harness/nodes/ledgerTable';
import { mark, since } from '../../../harness/nodes/publicEvents';
import { apiLedger, ledgerMismatches } from '../../../harness/sandbox/ledger';
import {
	deliveriesOf,
	FIRST_RETRY,
	paidApiOrder,
	SECRET,
	signAt,
	until,
} from '../../../harness/sandbox/push';
import {
	post,
	postSigned,
	SIGNED,
	TRIGGER_TYPE,
	triggerCredentials,
	triggerSuite,
} from '../../../harness/nodes/webhookTrigger';
import { MINUTE } from '../../../harness/time';
import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import {
	LISTING_WAITS_MS,
	WIDGET_PAGES,
} from '../../../nodes/PublicEventsTrigger/webhook/widgetRecord';

/**
 * Fetch Full Order completes a pushed sale or refund from the API, widget ones included (there is
 * no GET /widget-orders/{id}: the record is found in its list, newest first), and Output Ledger
 * Rows makes of it the ledger's rows of the same record, as the poll trigger does. Both triggers
 * run here against one sandbox, and what they emit for the same sales is compared, with each other
 * and with the API's own ledger (harness/sandbox/ledger.ts).
 */
const { sb, triggers } = triggerSuite(
	{ events: 10, placesPerEvent: 60, push: { retryBaseMs: FIRST_RETRY, maxAttempts: 5 } },
	async (sandbox) => await sandbox.setQuirks({}),
);

const COMPLETE = { ...SIGNED, fetchFullOrder: true };
const ROWS = { ...COMPLETE, options: { output: 'rows' } };

async function widgetSale(tickets = 2): Promise<IDataObject> {
	const sale = await sb().admin('POST', '/widget-orders', { tickets });
	expect(sale.status).toBe(201);
	return sale.body;
}

/** An order made through the API with `tickets` places, paid. */
const apiSale = async (tickets = 2): Promise<IDataObject> => await paidApiOrder(sb(), tickets);

/** The reads the sandbox logged since `seq`, as `GET route`. */
const readsSince = async (seq: number) =>
	(await since(sb(), seq))
		.filter((entry) => entry.method === 'GET')
		.map((entry) => `${entry.method} ${entry.route}`);

const poller = () =>
	new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: { options: { output: 'rows' } },
		credentials: triggerCredentials(sb()),
	});

/** Waits until `trigger` has started `count` runs (deliveries of unselected kinds start none). */
const runs = (trigger: { executions: unknown[] }, count: number) =>
	until(async () => trigger.executions.length >= count, `${count} run(s)`);

/** The rows of every run `trigger` started, in the order they started. */
const rowsOf = (trigger: { executions: Array<Array<{ json: IDataObject }>> }) =>
	trigger.executions.flat().map((item) => item.json);

describe('Public Events Trigger, Fetch Full Order: complete sales and refunds', () => {
	it(
		'a widget sale carries its widget order (amount, currency, email, tickets with ' +
			'barcodes), read with one request: the newest page of GET /widget-orders',
		async () => {
			const { trigger } = await triggers.subscribed(COMPLETE);
			const before = await mark(sb());
			const sale = await widgetSale();
			await trigger.waitForCalls(1);
			const reads = (await since(sb(), before)).filter((e) => e.method === 'GET');
			const [[item]] = trigger.executions;
			const listed = (await sb().getAll('/widget-orders')).find((o) => o.id === sale.id);
			expect(item.json).toMatchObject({
				type: 'sale',
				channel: 'widget',
				orderId: String(sale.id),
				order: listed,
				orderUnavailable: null,
			});
			const order = item.json.order as IDataObject;
			expect(order).toMatchObject({
				status: 'paid',
				email: expect.stringContaining('@'),
				totalPrice: { amount: expect.any(Number), currency: 'EUR' },
			});
			expect((order.tickets as IDataObject[]).map((t) => t.barcode)).toEqual([
				expect.stringMatching(/^\d{13}$/),
				expect.stringMatching(/^\d{13}$/),
			]);
			expect(reads.map((e) => e.route)).toEqual(['/widget-orders']);
			expect(new URLSearchParams(reads[0].query).get('order[payAt]')).toBe('desc');
			expect(new URLSearchParams(reads[0].query).get('payAt[after]')).toMatch(/Z$/);
			// Answer times: the first delivery also requests a token; then one GET a delivery.
			for (let i = 0; i < 5; i++) await widgetSale(1);
			const calls = await trigger.waitForCalls(6);
			const ms = calls.map((c) => c.durationMs.toFixed(1));
			console.log(
				`answers with Fetch Full Order on widget sales (one GET /widget-orders each, the ` +
					`first after a token request): ${ms.join(', ')} ms`,
			);
			expect(trigger.executions.map(([one]) => one.json.orderUnavailable)).toEqual(
				Array(6).fill(null),
			);
		},
	);

	it(
		'a widget refund carries its refund (tickets, amount), read from the newest page of ' +
			'GET /widget-orders-refunds; an API refund carries the order with its refunded tickets',
		async () => {
			const { trigger } = await triggers.subscribed({ ...COMPLETE, events: ['refund'] });
			const sale = await widgetSale(1);
			await sb().advanceClock(1000);
			const before = await mark(sb());
			expect((await sb().admin('POST', `/widget-orders/${sale.id}/refund`)).status).toBe(201);
			await runs(trigger, 1);
			const reads = await readsSince(before);
			const refund = (await sb().getAll('/widget-orders-refunds')).find((r) => r.order === sale.id);
			expect(trigger.executions[0][0].json).toMatchObject({
				type: 'refund',
				channel: 'widget',
				orderId: String(sale.id),
				order: null,
				refund,
				orderUnavailable: expect.stringMatching(/widget refund/i),
			});
			expect(reads).toEqual(['GET /widget-orders-refunds']);

			const paid = await apiSale(2);
			const [first] = paid.tickets as IDataObject[];
			const path = `/orders/${String(paid.id)}/tickets/${String(first.ticketId)}/status`;
			expect((await sb().send('PUT', path, { toStatus: 'refund' })).status).toBe(200);
			await runs(trigger, 2);
			const order = (await sb().get(`/orders/${String(paid.id)}`)).body;
			expect(trigger.executions[1][0].json).toMatchObject({
				type: 'refund',
				channel: 'api',
				orderId: String(paid.id),
				order,
				orderUnavailable: null,
			});
		},
	);

	it(
		'Ledger Rows: the push rows of widget and API sales and refunds are the poll trigger rows ' +
			'of the same records; upserted by key in any order they leave one table, the API ledger',
		async () => {
			const { trigger } = await triggers.subscribed(ROWS);
			const poll = poller();
			expect((await poll.poll()).returnedNull).toBe(true);

			const sales = [await widgetSale(2), await apiSale(2), await widgetSale(1)];
			await trigger.waitForCalls(3);
			const polledSales = await poll.poll();
			expect(polledSales.error).toBeUndefined();

			await sb().advanceClock(1000);
			// One ticket of the widget order of two (a partial refund), one of the API order.
			const refundPath = `/widget-orders/${String(sales[0].id)}/refund`;
			expect((await sb().admin('POST', refundPath, { tickets: 1 })).status).toBe(201);
			const apiOrder = sales[1];
			const [ticket] = apiOrder.tickets as IDataObject[];
			const ticketPath = `/orders/${String(apiOrder.id)}/tickets/${String(ticket.ticketId)}/status`;
			expect((await sb().send('PUT', ticketPath, { toStatus: 'refund' })).status).toBe(200);
			await trigger.waitForCalls(5);
			await sb().advanceClock(1000);
			const polledRefunds = await poll.poll();
			expect(polledRefunds.error).toBeUndefined();

			const pushed = rowsOf(trigger);
			const polled = [...polledSales.items, ...polledRefunds.items].map((item) => item.json);
			const [widgetRefund] = (await sb().getAll('/widget-orders-refunds')).filter(
				(r) => r.order === sales[0].id,
			);
			const apiRefundKey = `refund:api:${String(apiOrder.id)}:${String(ticket.ticketId)}`;
			const listed = [
				`sale:widget:${String(sales[0].id)}`,
				`sale:api:${String(apiOrder.id)}`,
				`sale:widget:${String(sales[2].id)}`,
				`refund:widget:${String(widgetRefund.id)}`,
			];
			expect(polled.map((row) => row.key).sort()).toEqual([...listed].sort());
			expect(pushed.map((row) => row.key).sort()).toEqual([...listed, apiRefundKey].sort());
			// Every row the poll has, the push has, equal column by column.
			const byKey = new Map(pushed.map((row) => [String(row.key), row]));
			for (const row of polled) expect(row).toEqual(byKey.get(String(row.key)));
			expect(pushed.every((row) => typeof row.eventName === 'string')).toBe(true);
			// The API order's refund, which no poll lists: the refunded ticket's row, at its own time.
			const api = (await sb().get(`/orders/${String(apiOrder.id)}`)).body as IDataObject;
			const refunded = (api.tickets as IDataObject[]).find((t) => t.ticketId === ticket.ticketId)!;
			expect(byKey.get(apiRefundKey)).toEqual({
				key: apiRefundKey,
				type: 'refund',
				channel: 'api',
				orderId: String(apiOrder.id),
				eventPointId: String(apiOrder.eventPoint),
				eventName: expect.any(String),
				at: new Date(Date.parse(String(refunded.refundedAt))).toISOString(),
				tickets: 1,
				amount: -(ticket.discountPrice as IDataObject).amount!,
				currency: 'EUR',
				email: null,
				refundId: null,
				ticketIds: String(ticket.ticketId),
			});
			const schema = rowsSchema();
			expect(pushed.flatMap((row) => schemaErrors(row, schema))).toEqual([]);

			// Into one table as they come (sales pushed, then polled; refunds pushed, then polled) or
			// the other way round: no row changes, and the table is the API's ledger of these orders,
			// row by row and in total.
			const ofType = (rows: IDataObject[], type: string) => rows.filter((r) => r.type === type);
			const written = [
				...ofType(pushed, 'sale'),
				...ofType(polled, 'sale'),
				...ofType(pushed, 'refund'),
				...ofType(polled, 'refund'),
			];
			expect(rowsChanged(written)).toEqual([]);
			const table = upsertByKey(written);
			expect(upsertByKey([...written].reverse())).toEqual(table);
			const truth = apiLedger(sb());
			const keys = ledgerKeysOf(truth, [
				['widget', sales[0].id],
				['api', apiOrder.id],
				['widget', sales[2].id],
			]);
			expect(keys).toHaveLength(5);
			expect(ledgerMismatches([...table.values()], truth, keys)).toEqual([]);
			// Both orders with one ticket refunded stay paid, as the API says.
			const widgetOrder = (await sb().getAll('/widget-orders')).find((o) => o.id === sales[0].id);
			expect([widgetOrder.status, api.status]).toEqual(['paid', 'paid']);
			expect([statusOf(table, 'widget', sales[0].id), statusOf(table, 'api', apiOrder.id)]).toEqual(
				[widgetOrder.status, api.status],
			);
		},
	);
});

describe('Public Events Trigger, Ledger Rows: event names never stall a sale', () => {
	it('while the event list fails, the row has eventName null, the rest complete', async () => {
		const { trigger } = await triggers.subscribed(ROWS);
		await sb().admin('POST', '/faults', {
			kind: 'status',
			status: 503,
			method: 'GET',
			path: '/event-points',
			count: 0,
		});
		try {
			const sale = await widgetSale(1);
			await runs(trigger, 1);
			expect(trigger.executions[0][0].json).toMatchObject({
				key: `sale:widget:${String(sale.id)}`,
				type: 'sale',
				channel: 'widget',
				orderId: String(sale.id),
				eventName: null,
				amount: (sale.totalPrice as IDataObject).amount,
			});
			expect(trigger.executions[0][0].json).not.toHaveProperty('orderUnavailable');
			expect(schemaErrors(trigger.executions[0][0].json, rowsSchema())).toEqual([]);
		} finally {
			await sb().admin('DELETE', '/faults');
		}
	});
});

describe('Public Events Trigger: where Output is offered', () => {
	it('Options > Output shows with Fetch Full Order, and under Security None (always read)', () => {
		const { description } = new PublicEventsTrigger();
		const options = description.properties.find((p) => p.name === 'options')!;
		const output = (options.options as INodeProperties[]).find((o) => o.name === 'output')!;
		// What the editor does with saved parameters: defaults filled in, then the option shown or not.
		const shown = (typeVersion: number, saved: IDataObject) => {
			const node = {
				...buildNode({ nodeType: new PublicEventsTrigger(), type: TRIGGER_TYPE, typeVersion }),
				parameters: {},
			};
			const parameters = NodeHelpers.getNodeParameters(
				description.properties,
				saved as INodeParameters,
				true,
				false,
				node,
				description,
			)!;
			return NodeHelpers.displayParameterPath(parameters, output, 'options', node, description);
		};
		expect([
			shown(1.1, {}),
			shown(1.1, { fetchFullOrder: true }),
			shown(1.1, { authentication: 'headerToken', fetchFullOrder: true }),
			shown(1, {}),
		]).toEqual([false, true, true, true]);
	});
});

describe('Public Events Trigger, Fetch Full Order: a record a later read can find', () => {
	const claim = (orderId: number | string, extra: IDataObject = {}) =>
		JSON.stringify({
			id: `ntf_missing_${orderId}`,
			type: 'order.sale',
			occurredAt: new Date().toISOString(),
			data: { orderId, eventPointId: 1001, status: 'paid', source: 'widget', ...extra },
		});
	/** The shipped CRM example's trigger: a sale whose order is null goes to "Order Not Read". */
	const onSale = JSON.parse(
		readFileSync(join(__dirname, '../../../examples/push-sale-to-crm.json'), 'utf8'),
	).nodes.find((node: IDataObject) => node.name === 'On Sale') as {
		parameters: INodeParameters;
		typeVersion: number;
	};
	/** Every delivery answered 2xx started a run whose item carries its order. */
	const everyTwoHundredCarriesItsOrder = (trigger: WebhookTrigger) => {
		for (const call of trigger.calls.filter((c) => c.status === 200)) {
			const item = call.workflowData?.[0][0].json;
			expect(item).toMatchObject({ order: expect.objectContaining({ id: expect.any(Number) }) });
		}
	};

	it(
		`a widget sale not listed: looked for ${LISTING_WAITS_MS.length + 1} times on the ` +
			'newest page, then answered 503 and nothing starts',
		async () => {
			const trigger = await triggers.start(COMPLETE);
			const before = await mark(sb());
			const res = await postSigned(trigger.url, claim(899_001));
			expect(res.status).toBe(503);
			expect(trigger.executions).toEqual([]);
			expect(await readsSince(before)).toEqual(
				Array(LISTING_WAITS_MS.length + 1).fill('GET /widget-orders'),
			);
		},
	);

	it(
		'the CRM example: a widget sale listed 2 minutes late is answered 503 until the ' +
			"sender's retry finds it; every 2xx carries its order",
		async () => {
			await sb().setQuirks('late-visible=2m');
			const { trigger, subscription } = await triggers.subscribed(onSale.parameters, {
				typeVersion: onSale.typeVersion,
			});
			const sale = await widgetSale(1);
			const [first] = await trigger.waitForCalls(1);
			expect([first.status, trigger.executions]).toEqual([503, []]);
			await sb().advanceClock(3 * MINUTE);
			await runs(trigger, 1);
			const [delivery] = await deliveriesOf(sb(), subscription.id);
			expect(delivery.attempts.map((a: IDataObject) => a.status)).toEqual([503, 200]);
			expect(trigger.executions[0][0].json).toMatchObject({ order: { id: sale.id } });
			everyTwoHundredCarriesItsOrder(trigger);
			// Signed times stay within the Replay Window for the tests that follow.
			await sb().advanceClock(-3 * MINUTE);
		},
		30_000,
	);

	it(
		'the CRM example: an API order read while the API answers 503 (3 times: past the ' +
			"read's retries) is answered 503; the sender's retry carries the order",
		async () => {
			const { trigger, subscription } = await triggers.subscribed(onSale.parameters, {
				typeVersion: onSale.typeVersion,
			});
			await sb().admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				method: 'GET',
				path: '/orders/{id}',
				count: 3,
			});
			try {
				const order = await apiSale(1);
				const [first] = await trigger.waitForCalls(1);
				expect([first.status, trigger.executions]).toEqual([503, []]);
				await sb().advanceClock(FIRST_RETRY);
				await runs(trigger, 1);
				const [delivery] = await deliveriesOf(sb(), subscription.id);
				expect(delivery.attempts.map((a: IDataObject) => a.status)).toEqual([503, 200]);
				expect(trigger.executions[0][0].json).toMatchObject({ order: { id: order.id } });
				everyTwoHundredCarriesItsOrder(trigger);
				await sb().advanceClock(-FIRST_RETRY);
			} finally {
				await sb().admin('DELETE', '/faults');
			}
		},
	);

	it(
		`a widget sale retried after ${WIDGET_PAGES * 100 + 50} more sales (n8n was down): found ` +
			'oldest first from its time, with one request more than the newest page',
		async () => {
			const trigger = await triggers.start(COMPLETE);
			const sale = await widgetSale(1);
			await sb().advanceClock(1000);
			for (let i = 0; i < WIDGET_PAGES * 100 + 50; i++) await widgetSale(1);
			const body = claim(Number(sale.id), { eventPointId: sale.eventPoint });
			const before = await mark(sb());
			expect((await postSigned(trigger.url, body)).status).toBe(200);
			const reads = (await since(sb(), before)).filter((e) => e.route === '/widget-orders');
			expect(reads.map((e) => new URLSearchParams(e.query).get('order[payAt]'))).toEqual([
				'desc',
				'asc',
			]);
			everyTwoHundredCarriesItsOrder(trigger);
			expect(trigger.executions[0][0].json).toMatchObject({ order: { id: sale.id } });
		},
		60_000,
	);

	it(
		'a record that can never be read starts its run saying why: no numeric order id; as ' +
			'rows, the row says why its columns are null',
		async () => {
			const trigger = await triggers.start(ROWS);
			const before = await mark(sb());
			expect((await postSigned(trigger.url, claim('W-17'))).status).toBe(200);
			expect(await readsSince(before)).toEqual(['GET /event-points']);
			const [[{ json: row }]] = trigger.executions;
			expect(row).toMatchObject({
				key: 'sale:widget:W-17',
				type: 'sale',
				channel: 'widget',
				orderId: 'W-17',
				eventPointId: '1001',
				at: null,
				tickets: null,
				amount: null,
				orderUnavailable: expect.stringMatching(/no numeric order ID \(got "W-17"\)/),
			});
			// Not the ledger's: a table checked against the row schema refuses it.
			expect(schemaErrors(row, rowsSchema())).toEqual(
				expect.arrayContaining([
					expect.stringMatching(/^\$\.key: /),
					expect.stringMatching(/^\$\.orderUnavailable: not in the schema/),
				]),
			);
		},
	);

	it('an API order the API answers 404 for starts its run with orderUnavailable', async () => {
		const trigger = await triggers.start(COMPLETE);
		const body = claim(700_999, { source: 'api' });
		expect((await postSigned(trigger.url, body)).status).toBe(200);
		expect(trigger.executions[0][0].json).toMatchObject({
			orderId: '700999',
			order: null,
			orderUnavailable: expect.stringMatching(/GET \/orders\/700999 answered 404/),
		});
	});

	it('a widget sale listed late is found by a second look', async () => {
		await sb().setQuirks({ lateVisibleMs: MINUTE });
		const { trigger } = await triggers.subscribed(COMPLETE);
		const before = await mark(sb());
		const sale = await widgetSale(1);
		// The first look finds nothing; the sandbox's time then passes the listing delay.
		await until(
			async () => (await readsSince(before)).includes('GET /widget-orders'),
			'the first look',
			5000,
			2,
		);
		await sb().advanceClock(MINUTE);
		await trigger.waitForCalls(1);
		expect(trigger.executions[0][0].json).toMatchObject({
			order: { id: sale.id },
			orderUnavailable: null,
		});
		const looks = (await readsSince(before)).filter((r) => r === 'GET /widget-orders');
		expect(looks.length).toBeGreaterThanOrEqual(2);
		expect(looks.length).toBeLessThanOrEqual(LISTING_WAITS_MS.length + 1);
	});
});

describe('Ledger Rows: an API order refunded ticket by ticket, upserted by key', () => {
	it(
		'each refund delivery carries the row of the ticket it names, timed by its ticket: a row ' +
			"never changes, and the table is the API's ledger whichever delivery is written last",
		async () => {
			const { trigger } = await triggers.subscribed(ROWS);
			const order = await apiSale(3);
			await runs(trigger, 1);
			// The first refund's run cannot be created: the sender delivers it again after the second.
			let failing = 1;
			trigger.createRun = async () => {
				if (failing-- > 0) throw new Error('database busy');
			};
			const tickets = order.tickets as IDataObject[];
			for (const [n, ticket] of tickets.slice(0, 2).entries()) {
				// A second apart: a row timed by the notification, not its ticket, would show it.
				await sb().advanceClock(1000);
				const path = `/orders/${String(order.id)}/tickets/${String(ticket.ticketId)}/status`;
				expect((await sb().send('PUT', path, { toStatus: 'refund' })).status).toBe(200);
				await trigger.waitForCalls(2 + n);
			}
			await sb().advanceClock(FIRST_RETRY);
			await runs(trigger, 3);
			// The sale delivered again, after the refunds, to another n8n process (which never saw it).
			const other = await triggers.start(ROWS);
			const sale = trigger.calls[0].raw;
			expect((await post(other.url, sale, { 'x-signature': signAt(SECRET, sale) })).status).toBe(
				200,
			);
			const [saleKey, first, second] = [
				`sale:api:${String(order.id)}`,
				...tickets.slice(0, 2).map((t) => `refund:api:${String(order.id)}:${String(t.ticketId)}`),
			];
			// The second refund's row, then the first's, sent again after it.
			expect(
				[...trigger.executions, ...other.executions].map((run) => run.map((item) => item.json.key)),
			).toEqual([[saleKey], [second], [first], [saleKey]]);
			const written = [...rowsOf(trigger), ...rowsOf(other)];
			expect(rowsChanged(written)).toEqual([]);

			const truth = apiLedger(sb());
			const keys = ledgerKeysOf(truth, [['api', order.id]]);
			expect(keys.sort()).toEqual([saleKey, first, second].sort());
			const api = (await sb().get(`/orders/${String(order.id)}`)).body as IDataObject;
			for (const rows of [written, [...written].reverse()]) {
				const table = upsertByKey(rows);
				expect(ledgerMismatches([...table.values()], truth, keys)).toEqual([]);
				// Two of three tickets back: paid, as the API says; the net takings the third ticket.
				expect([statusOf(table, 'api', order.id), api.status]).toEqual(['paid', 'paid']);
				const net = [...table.values()].reduce((sum, row) => sum + Number(row.amount), 0);
				expect(net).toBeCloseTo(Number((tickets[2].discountPrice as IDataObject).amount), 2);
			}
			await sb().advanceClock(-FIRST_RETRY);
		},
		30_000,
	);
});
