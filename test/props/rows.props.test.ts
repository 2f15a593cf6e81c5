/**
 * Invariant: over any interleaving of widget sales (on live or ended events), widget refunds,
 * paid API orders, polls and n8n restarts, upserting the Poll Trigger's "Rows for a Table" by
 * orderId (a Data Table / Google Sheets upsert: the row's columns overwrite, the others stay)
 * leaves exactly one row per order sold after activation, whose status, paid time, ticket count,
 * amount, refunded amount and event name are the sandbox's; and the action node's rows of the
 * same orders (Get Many Orders, Get Many Refunds, Get Many for Event) upsert to the same table.
 *
 * The expected values come from the sandbox's own lists after the case, not from what the test
 * made.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../harness/nodes/pollTrigger';
import { PollSession } from '../../harness/engine';
import { credentialFor, runPublicEvents } from '../../harness/nodes/publicEvents';
import { SandboxClient } from '../../harness/sandbox/client';
import { onlyEvents } from '../../harness/sandbox/suite';
import { checkProperty } from '../../harness/props/property';
import { MINUTE } from '../../harness/time';

type Step =
	| { kind: 'sale'; tickets: number; ended: boolean }
	| { kind: 'refund'; pick: number }
	| { kind: 'apiOrder'; event: number }
	| { kind: 'poll'; restart: boolean };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('sale' as const),
			tickets: fc.integer({ min: 1, max: 3 }),
			ended: fc.boolean(),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat() }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('apiOrder' as const), event: fc.nat() }) },
	{
		weight: 2,
		arbitrary: fc.record({ kind: fc.constant('poll' as const), restart: fc.boolean() }),
	},
);

let sb: SandboxClient;
let live: IDataObject[];
let ended: IDataObject;
let names: Map<string, unknown>;

beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(3, 400, { archivedEvents: 1 }));
	await sb.token();
	live = (await sb.getAll('/event-points')).filter((e) => e.countAvailableTickets > 100);
	[ended] = await sb.getAll('/event-points-archived');
	names = new Map([...live, ended].map((e) => [String(e.id), e.eventName]));
	expect(live.length).toBeGreaterThan(0);
});
afterAll(() => sb.stop());

type Table = Map<string, IDataObject>;
const upsert = (table: Table, rows: IDataObject[]) => {
	for (const row of rows)
		table.set(String(row.orderId), { ...table.get(String(row.orderId)), ...row });
};
const iso = (text: unknown) => new Date(Date.parse(String(text))).toISOString();

async function rowsOf(parameters: IDataObject): Promise<IDataObject[]> {
	const { items, error } = await runPublicEvents(credentialFor(sb).store, {
		returnAll: true,
		options: { output: 'rows' },
		...parameters,
	} as INodeParameters);
	if (error) throw error;
	return items.map((item) => item.json);
}

async function runCase(steps: Step[]): Promise<void> {
	const watched = live.map((e) => String(e.id));
	const node = new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: {
			include: ['widgetSales', 'widgetRefunds', 'eventOrders'],
			eventScope: 'chosen',
			eventIds: watched,
			options: { output: 'rows' },
		},
		credentials: credentialFor(sb).store,
	});
	expect((await node.poll()).error).toBeUndefined();
	const table: Table = new Map();
	const widget: number[] = [];
	const api: Array<{ id: number; event: string }> = [];
	const poll = async () => {
		const { items, error } = await node.poll();
		expect(error).toBeUndefined();
		upsert(
			table,
			items.map((item) => item.json),
		);
	};

	for (const step of [...steps, { kind: 'poll', restart: false } as const]) {
		await sb.advanceClock(MINUTE);
		if (step.kind === 'sale') {
			const eventPoint = step.ended ? ended.id : live[widget.length % live.length].id;
			const res = await sb.admin('POST', '/widget-orders', { eventPoint, tickets: step.tickets });
			expect(res.status).toBe(201);
			widget.push(res.body.id);
		} else if (step.kind === 'refund' && widget.length > 0) {
			// Refunding one refunded already answers 409 and changes nothing.
			await sb.admin('POST', `/widget-orders/${widget[step.pick % widget.length]}/refund`, {});
		} else if (step.kind === 'apiOrder') {
			const event = watched[step.event % watched.length];
			const place = await sb.freePlace(Number(event));
			const order = (
				await sb.send('POST', '/orders', {
					eventPoint: event,
					places: [place.id],
					priceCategory: place.priceCategory,
				})
			).body;
			expect(
				(await sb.send('PUT', `/orders/${order.id}/status`, { toStatus: 'paid' })).status,
			).toBe(200);
			api.push({ id: order.id, event });
		} else if (step.kind === 'poll') {
			if (step.restart) node.restart();
			await poll();
		}
	}

	// The sandbox's truth after the case.
	const mine = new Set([...widget, ...api.map((o) => o.id)].map(String));
	const orders = new Map(
		(await sb.getAll('/widget-orders'))
			.filter((o) => mine.has(String(o.id)))
			.map((o) => [String(o.id), o]),
	);
	for (const { id } of api) orders.set(String(id), (await sb.get(`/orders/${id}`)).body);
	const refunds = new Map(
		(await sb.getAll('/widget-orders-refunds'))
			.filter((r) => mine.has(String(r.order)))
			.map((r) => [String(r.order), r]),
	);

	expect([...table.keys()].sort()).toEqual([...mine].sort());
	for (const [orderId, row] of table) {
		const order = orders.get(orderId)!;
		const refund = refunds.get(orderId);
		const event = String(order.eventPoint);
		const expected = {
			status: order.status,
			paidAt: iso(order.payAt),
			tickets: order.ticketsCount ?? order.tickets.length,
			amount: order.totalPrice.amount,
			eventName: names.get(event),
			refundedAmount: refund ? refund.amount.amount : undefined,
			refundedTickets: refund ? refund.tickets.length : undefined,
		};
		const got = {
			status: row.status,
			paidAt: row.paidAt,
			tickets: row.tickets,
			amount: row.amount,
			eventName: row.eventName,
			refundedAmount: row.refundedAmount,
			refundedTickets: row.refundedTickets,
		};
		expect([orderId, got]).toEqual([orderId, expected]);
	}

	// The action node's rows of the same orders, upserted sales first, give the same table.
	const fromLists: Table = new Map();
	const listed = [
		...(await rowsOf({ resource: 'widget', operation: 'getManyOrders' })),
		...(
			await Promise.all(
				[...new Set(api.map((o) => o.event))].map((event) =>
					rowsOf({
						resource: 'order',
						operation: 'getManyForEvent',
						eventId: { __rl: true, mode: 'id', value: event },
					}),
				),
			)
		).flat(),
		...(await rowsOf({ resource: 'widget', operation: 'getManyRefunds' })),
	];
	upsert(
		fromLists,
		listed.filter((row) => mine.has(String(row.orderId))),
	);
	expect(Object.fromEntries(fromLists)).toEqual(Object.fromEntries(table));
}

it(
	'upserting the poll rows by orderId leaves one row per order ' +
		'that agrees with the sandbox and with the action node',
	async () => {
		await checkProperty(
			'rows upsert by orderId',
			fc.array(stepArb, { minLength: 1, maxLength: 8 }),
			runCase,
			12,
		);
	},
	300_000,
);
