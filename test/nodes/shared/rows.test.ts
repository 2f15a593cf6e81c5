import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { credentialFor, mark, runPublicEvents, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { onlyEvents } from '../../../harness/sandbox/suite';
import { rowsSchema, schemaErrors } from '../../../harness/engine/rowSchema';

/**
 * Output "Ledger Rows" on the action node's sales and refund lists: the ledger's rows of each
 * record (nodes/shared/ledger/rows.ts: one per sale, one per refund, keyed by channel), event names
 * read once per run (the archive only for names still unknown), and Full Records (the default)
 * exactly as before, with no request more.
 */
let sb: SandboxClient;
let live: IDataObject[];
let archived: IDataObject[];
let hidden: IDataObject;

beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(4, 30, { privateEvents: 1, archivedEvents: 1 }));
	live = await sb.getAll('/event-points');
	archived = await sb.getAll('/event-points-archived');
	// An event only the organiser sees: in neither of the partner's lists.
	const seen = new Set([...live, ...archived].map((e) => e.id));
	hidden = (await sb.getAll('/event-points', { as: 'organiser' })).find((e) => !seen.has(e.id))!;
	expect([live.length > 1, archived.length, Boolean(hidden)]).toEqual([true, 1, true]);
});
afterAll(() => sb.stop());

const run = async (parameters: IDataObject, inputItems?: IDataObject[]) => {
	const { items, error } = await runPublicEvents(
		credentialFor(sb).store,
		parameters as INodeParameters,
		inputItems ? { inputItems } : {},
	);
	if (error) throw error;
	return items.map((item) => item.json);
};
const rows = { returnAll: true, options: { output: 'rows' } };
const iso = (text: unknown) => new Date(Date.parse(String(text))).toISOString();
const sell = async (eventPoint: unknown, tickets = 1) =>
	(await sb.admin('POST', '/widget-orders', { eventPoint, tickets })).body as IDataObject;
/** Requests other than token requests, as "METHOD route". */
const requestsSince = async (seq: number) =>
	(await since(sb, seq)).filter((e) => e.route !== '/token').map((e) => `${e.method} ${e.route}`);
const fitSchema = (items: IDataObject[]) =>
	expect(items.flatMap((item) => schemaErrors(item, rowsSchema()))).toEqual([]);

describe('Output: Ledger Rows', () => {
	let sales: IDataObject[];

	beforeAll(async () => {
		sales = [await sell(live[0].id, 2), await sell(archived[0].id), await sell(hidden.id)];
	});

	it(
		'Widget > Get Many Orders: a sale row per order, event names ' +
			'from the list, then the archive; unknown -> null',
		async () => {
			const before = await mark(sb);
			const items = await run({ resource: 'widget', operation: 'getManyOrders', ...rows });
			const [sale] = sales;
			const total = sale.totalPrice as IDataObject;
			expect(items).toEqual([
				{
					key: `sale:widget:${String(sale.id)}`,
					type: 'sale',
					channel: 'widget',
					orderId: String(sale.id),
					eventPointId: String(live[0].id),
					eventName: live[0].eventName,
					at: iso(sale.payAt),
					tickets: 2,
					amount: total.amount,
					currency: total.currency,
					email: sale.email,
					refundId: null,
					ticketIds: null,
				},
				expect.objectContaining({
					key: `sale:widget:${String(sales[1].id)}`,
					orderId: String(sales[1].id),
					eventPointId: String(archived[0].id),
					eventName: archived[0].eventName,
					tickets: 1,
				}),
				expect.objectContaining({
					orderId: String(sales[2].id),
					eventPointId: String(hidden.id),
					eventName: null,
				}),
			]);
			expect(typeof sale.email).toBe('string');
			fitSchema(items);
			// The orders, then the event list once and the archive once (each a single page here).
			expect(await requestsSince(before)).toEqual([
				'GET /widget-orders',
				'GET /event-points',
				'GET /event-points-archived',
			]);
		},
	);

	it(
		'Full Records (the default, or chosen) output the records as ' +
			'before, with no request for names',
		async () => {
			const records = await sb.getAll('/widget-orders');
			for (const options of [{}, { output: 'records' }]) {
				const before = await mark(sb);
				const items = await run({
					resource: 'widget',
					operation: 'getManyOrders',
					returnAll: true,
					options,
				});
				expect(items).toEqual(records);
				expect(await requestsSince(before)).toEqual(['GET /widget-orders']);
			}
			const before = await mark(sb);
			await run({ resource: 'widget', operation: 'getManyRefunds', returnAll: true });
			await run({
				resource: 'order',
				operation: 'getManyForEvent',
				eventId: { __rl: true, mode: 'id', value: String(live[0].id) },
				returnAll: true,
			});
			expect(
				(await requestsSince(before)).filter(
					(r) => r.startsWith('GET /event-points') && !r.endsWith('/orders'),
				),
			).toEqual([]);
		},
	);

	it(
		'Widget > Get Many Refunds: a refund row per refund, partial ones too, its own time, ' +
			'tickets and negative amount: the sale and its refunds sum to what the buyer kept; no ' +
			'archive read when all names are known',
		async () => {
			// The order of two tickets refunded one ticket at a time: two refunds, two rows.
			const refundPath = `/widget-orders/${String(sales[0].id)}/refund`;
			const first = (await sb.admin('POST', refundPath, { tickets: 1 })).body as IDataObject;
			const second = (await sb.admin('POST', refundPath, { tickets: 1 })).body as IDataObject;
			const before = await mark(sb);
			const items = await run({ resource: 'widget', operation: 'getManyRefunds', ...rows });
			const rowOf = (refund: IDataObject) => {
				const amount = refund.amount as IDataObject;
				return {
					key: `refund:widget:${String(refund.id)}`,
					type: 'refund',
					channel: 'widget',
					orderId: String(sales[0].id),
					eventPointId: String(live[0].id),
					eventName: live[0].eventName,
					at: iso(refund.refundedAt),
					tickets: 1,
					amount: -Number(amount.amount),
					currency: amount.currency,
					email: null,
					refundId: String(refund.id),
					ticketIds: (refund.tickets as unknown[]).map(String).join(','),
				};
			};
			expect(items).toEqual([rowOf(first), rowOf(second)]);
			expect(items[0].ticketIds).not.toBe(items[1].ticketIds);
			fitSchema(items);
			// Refunded whole, one ticket at a time: the sale's row and its refunds' rows sum to 0.
			const [saleRow] = await run({ resource: 'widget', operation: 'getManyOrders', ...rows });
			expect(saleRow.key).toBe(`sale:widget:${String(sales[0].id)}`);
			const net = [saleRow, ...items].reduce((sum, row) => sum + Number(row.amount), 0);
			expect([Number(saleRow.amount) > 0, Math.round(net * 100)]).toEqual([true, 0]);
			expect(await requestsSince(before)).toEqual([
				'GET /widget-orders-refunds',
				'GET /event-points',
				'GET /widget-orders',
				'GET /event-points',
				'GET /event-points-archived',
			]);
		},
	);

	it(
		'Order > Get Many for Event: each sold order read whole, its sale row (every ticket it ' +
			'sold, though the list states its total less a partial refund) and its refund row; names ' +
			'read once for all items',
		async () => {
			const eventId = Number(live[1].id);
			const free = await sb.freePlaces(eventId, 2);
			const created = (
				await sb.send('POST', '/orders', {
					eventPoint: String(eventId),
					places: free.ids,
					priceCategory: free.priceCategory,
				})
			).body;
			expect(
				(await sb.send('PUT', `/orders/${created.id}/status`, { toStatus: 'paid' })).status,
			).toBe(200);
			const paid = (await sb.get(`/orders/${created.id}`)).body;
			const ticket = paid.tickets[0].ticketId;
			expect(
				(
					await sb.send('PUT', `/orders/${created.id}/tickets/${ticket}/status`, {
						toStatus: 'refund',
					})
				).status,
			).toBe(200);
			const stored = (await sb.get(`/orders/${created.id}`)).body;

			const before = await mark(sb);
			// Two input items, one event each time: the names are read once for the run.
			const items = await run(
				{
					resource: 'order',
					operation: 'getManyForEvent',
					eventId: { __rl: true, mode: 'id', value: '={{ $json.event }}' },
					...rows,
				},
				[{ event: eventId }, { event: eventId }],
			);
			const sale = {
				key: `sale:api:${String(created.id)}`,
				type: 'sale',
				channel: 'api',
				orderId: String(created.id),
				eventPointId: String(eventId),
				eventName: live[1].eventName,
				at: iso(stored.payAt),
				tickets: 2,
				amount: paid.totalPrice.amount,
				currency: stored.totalPrice.currency,
				email: null,
				refundId: null,
				ticketIds: null,
			};
			const refundRow = {
				...sale,
				key: `refund:api:${String(created.id)}:${String(ticket)}`,
				type: 'refund',
				at: iso(stored.tickets[0].refundedAt),
				tickets: 1,
				amount: -(paid.totalPrice.amount - stored.totalPrice.amount),
				ticketIds: String(ticket),
			};
			expect(items).toEqual([sale, refundRow, sale, refundRow]);
			expect(stored.totalPrice.amount).toBeLessThan(paid.totalPrice.amount);
			expect((await requestsSince(before)).filter((r) => r === 'GET /orders/{id}')).toHaveLength(2);
			fitSchema(items);
			expect(
				(await requestsSince(before)).filter(
					(r) => r === 'GET /event-points' || r === 'GET /event-points-archived',
				),
			).toEqual(['GET /event-points']);
		},
	);

	it(
		'an Output other than the two offered fails naming the field, ' + 'before any request',
		async () => {
			const before = await mark(sb);
			const { error } = await runPublicEvents(credentialFor(sb).store, {
				resource: 'widget',
				operation: 'getManyRefunds',
				options: { output: 'table' },
			} as INodeParameters);
			expect(error?.message).toBe('Output: expected "records" or "rows", got "table"');
			expect(await requestsSince(before)).toEqual([]);
		},
	);
});

describe('the shipped row schema (nodes/PublicEvents/__schema__/rows.json)', () => {
	const sale = {
		key: 'sale:api:7',
		type: 'sale',
		channel: 'api',
		orderId: '7',
		eventPointId: '1001',
		eventName: null,
		at: '2026-01-02T10:00:00.000Z',
		tickets: 1,
		amount: 70,
		currency: 'EUR',
		email: null,
		refundId: null,
		ticketIds: null,
	};
	const refund = {
		...sale,
		key: 'refund:api:7:900001',
		type: 'refund',
		amount: -70,
		ticketIds: '900001',
	};

	it(
		'takes a sale and a refund row and refuses a record, a missing or extra key, a number ' +
			"id, a key without its channel, a channel it does not know, an old row's columns",
		() => {
			const schema = rowsSchema();
			expect([schemaErrors(sale, schema), schemaErrors(refund, schema)]).toEqual([[], []]);
			const missing = Object.fromEntries(Object.entries(sale).filter(([key]) => key !== 'email'));
			for (const bad of [
				{ id: 7, eventPoint: 1001, status: 'paid' },
				missing,
				{ ...sale, extra: 1 },
				{ ...sale, orderId: 7 },
				{ ...sale, key: 'sale:7' },
				{ ...refund, key: 'refund:7:900001' },
				{ ...sale, channel: 'shop' },
				{ ...sale, at: 'yesterday' },
				{ ...refund, ticketIds: '900001;900002' },
				{ ...sale, status: 'paid', source: 'eventOrders', paidAt: sale.at },
			]) {
				expect([bad, schemaErrors(bad, schema)]).not.toEqual([bad, []]);
			}
		},
	);
});
