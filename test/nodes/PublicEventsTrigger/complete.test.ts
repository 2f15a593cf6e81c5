import {
	NodeHelpers,
	type IDataObject,
	type INodeParameters,
	type INodeProperties,
} from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession } from '../../../harness/engine';
import { buildNode } from '../../../harness/engine/runtime';
import { rowsSchema, schemaErrors } from '../../../harness/engine/rowSchema';
import { mark, since } from '../../../harness/nodes/publicEvents';
import { FIRST_RETRY, until } from '../../../harness/sandbox/push';
import {
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
 * no GET /widget-orders/{id}: the record is found in its list, newest first), and Output Rows for a
 * Table makes of it the poll trigger's row for the same record. Both triggers run here against
 * one sandbox, and what they emit for the same sales is compared.
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
async function apiSale(tickets = 2): Promise<IDataObject> {
	const events = (await sb().get('/event-points', { query: { itemsPerPage: 20 } })).body;
	const event = events.find((e: IDataObject) => Number(e.countAvailableTickets) >= tickets);
	const places = await sb().freePlaces(Number(event.id), tickets);
	const created = await sb().send('POST', '/orders', {
		eventPoint: String(event.id),
		places: places.ids,
		priceCategory: places.priceCategory,
	});
	expect(created.status).toBe(201);
	const paid = await sb().send('PUT', `/orders/${created.body.id}/status`, { toStatus: 'paid' });
	expect(paid.status).toBe(200);
	return paid.body;
}

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

/** A Data Table upsert keyed by orderId: the row's columns overwrite, the others stay. */
function upsert(rows: IDataObject[], table = new Map<string, IDataObject>()) {
	for (const row of rows)
		table.set(String(row.orderId), { ...table.get(String(row.orderId)), ...row });
	return table;
}

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
				orderId: String(paid.id),
				order,
				orderUnavailable: null,
			});
		},
	);

	it(
		'Rows for a Table: the push rows of widget and API sales are the poll trigger rows ' +
			'of the same records, and both upserted by orderId leave one table',
		async () => {
			const { trigger } = await triggers.subscribed(ROWS);
			const poll = poller();
			expect((await poll.poll()).returnedNull).toBe(true);

			const sales = [await widgetSale(2), await apiSale(2), await widgetSale(1)];
			await trigger.waitForCalls(3);
			const polledSales = await poll.poll();
			expect(polledSales.error).toBeUndefined();

			await sb().advanceClock(1000);
			expect(
				(await sb().admin('POST', `/widget-orders/${String(sales[0].id)}/refund`)).status,
			).toBe(201);
			const apiOrder = sales[1];
			const [ticket] = apiOrder.tickets as IDataObject[];
			const ticketPath = `/orders/${String(apiOrder.id)}/tickets/${String(ticket.ticketId)}/status`;
			expect((await sb().send('PUT', ticketPath, { toStatus: 'refund' })).status).toBe(200);
			await trigger.waitForCalls(5);
			await sb().advanceClock(1000);
			const polledRefunds = await poll.poll();
			expect(polledRefunds.error).toBeUndefined();

			const pushed = trigger.executions.map(([item]) => item.json);
			const polled = [...polledSales.items, ...polledRefunds.items].map((item) => item.json);
			const key = (row: IDataObject) => `${String(row.type)}:${String(row.orderId)}`;
			const byKey = new Map(polled.map((row) => [key(row), row]));
			// Every row the poll has, the push has, equal key by key and value by value.
			expect(polled.map(key).sort()).toEqual(
				[...sales.map((s) => `sale:${String(s.id)}`), `refund:${String(sales[0].id)}`].sort(),
			);
			for (const row of pushed.filter((r) => byKey.has(key(r))))
				expect(row).toEqual(byKey.get(key(row)));
			expect(pushed.every((row) => typeof row.eventName === 'string')).toBe(true);
			// The API order's refund, which no poll lists: a refund row of the order's ticket.
			expect(pushed.find((r) => key(r) === `refund:${String(apiOrder.id)}`)).toEqual({
				orderId: String(apiOrder.id),
				type: 'refund',
				status: 'refund',
				eventPointId: String(apiOrder.eventPoint),
				eventName: expect.any(String),
				refundId: null,
				refundedAt: expect.stringMatching(/Z$/),
				refundedTickets: 1,
				refundedAmount: (ticket.discountPrice as IDataObject).amount,
				currency: 'EUR',
				source: 'eventOrders',
			});
			const schema = rowsSchema();
			expect(pushed.flatMap((row) => schemaErrors(row, schema))).toEqual([]);

			// Into one table as they come (sales pushed, then polled; refunds pushed, then polled), the
			// poll's rows change nothing the push rows made.
			const ofType = (rows: IDataObject[], type: string) => rows.filter((r) => r.type === type);
			const mixed = upsert([
				...ofType(pushed, 'sale'),
				...ofType(polled, 'sale'),
				...ofType(pushed, 'refund'),
				...ofType(polled, 'refund'),
			]);
			expect(mixed).toEqual(upsert([...ofType(pushed, 'sale'), ...ofType(pushed, 'refund')]));
			expect([...mixed.values()].map((row) => row.status).sort()).toEqual([
				'paid',
				'refund',
				'refund',
			]);
		},
	);
});

describe('Public Events Trigger, Rows for a Table: event names never stall a sale', () => {
	it('while the event list fails, the row comes with eventName null, the rest complete', async () => {
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
				orderId: String(sale.id),
				type: 'sale',
				eventName: null,
				amount: (sale.totalPrice as IDataObject).amount,
				source: 'widgetSales',
			});
			expect(trigger.executions[0][0].json).not.toHaveProperty('orderUnavailable');
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

describe('Public Events Trigger, Fetch Full Order: a record that cannot be read', () => {
	const sign = (body: IDataObject) => JSON.stringify(body);
	const claim = (orderId: number, extra: IDataObject = {}) =>
		sign({
			id: `ntf_missing_${orderId}`,
			type: 'order.sale',
			occurredAt: new Date().toISOString(),
			data: { orderId, eventPointId: 1001, status: 'paid', source: 'widget', ...extra },
		});

	it(
		`a widget sale not listed is looked for ${LISTING_WAITS_MS.length + 1} times on the ` +
			'first page, then its run starts saying what is missing and why',
		async () => {
			const trigger = await triggers.start(COMPLETE);
			const before = await mark(sb());
			const res = await postSigned(trigger.url, claim(899_001));
			expect(res.status).toBe(200);
			expect(trigger.executions).toHaveLength(1);
			expect(trigger.executions[0][0].json).toMatchObject({
				orderId: '899001',
				order: null,
				orderUnavailable: expect.stringMatching(
					/widget order 899001 is not listed in GET \/widget-orders .*looked 3 times/,
				),
			});
			expect(await readsSince(before)).toEqual(
				Array(LISTING_WAITS_MS.length + 1).fill('GET /widget-orders'),
			);
		},
	);

	it(
		`behind more sales than ${WIDGET_PAGES} pages hold, the look stops at ${WIDGET_PAGES} ` +
			'pages; as rows, the row says why its columns are null',
		async () => {
			for (let i = 0; i < WIDGET_PAGES * 100 + 5; i++) await widgetSale(1);
			const trigger = await triggers.start(ROWS);
			const before = await mark(sb());
			expect((await postSigned(trigger.url, claim(899_002))).status).toBe(200);
			const reads = (await since(sb(), before)).filter((e) => e.route === '/widget-orders');
			expect(reads.map((e) => new URLSearchParams(e.query).get('page'))).toEqual(['1', '2', '3']);
			const [[row]] = trigger.executions;
			expect(row.json).toMatchObject({
				orderId: '899002',
				type: 'sale',
				status: 'paid',
				amount: null,
				source: 'widgetSales',
				orderUnavailable: expect.stringMatching(/not among the newest records .*3 pages of 100/),
			});
		},
	);

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
