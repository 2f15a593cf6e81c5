import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { credentialFor, mark, runPublicEvents, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { onlyEvents } from '../../../harness/sandbox/suite';
import { rowsSchema, schemaErrors } from '../../../harness/engine/rowSchema';

/**
 * Output "Rows for a Table" on the action node's sales and refund lists: one flat row per sale
 * or refund, event names read once per run (the archive only for names still unknown), and
 * Full Records (the default) exactly as before, with no request more.
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

describe('Output: Rows for a Table', () => {
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
					orderId: String(sale.id),
					type: 'sale',
					status: 'paid',
					eventPointId: String(live[0].id),
					eventName: live[0].eventName,
					paidAt: iso(sale.payAt),
					tickets: 2,
					amount: total.amount,
					currency: total.currency,
					email: sale.email,
					source: 'widgetSales',
				},
				expect.objectContaining({
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
		'Widget > Get Many Refunds: a refund row per refund, its own ' +
			'time and amount columns; no archive read when all names are ' +
			'known',
		async () => {
			const refund = (await sb.admin('POST', `/widget-orders/${String(sales[0].id)}/refund`, {}))
				.body as IDataObject;
			const before = await mark(sb);
			const items = await run({ resource: 'widget', operation: 'getManyRefunds', ...rows });
			const amount = refund.amount as IDataObject;
			expect(items).toEqual([
				{
					orderId: String(sales[0].id),
					type: 'refund',
					status: 'refund',
					eventPointId: String(live[0].id),
					eventName: live[0].eventName,
					refundId: String(refund.id),
					refundedAt: iso(refund.refundedAt),
					refundedTickets: 2,
					refundedAmount: amount.amount,
					currency: amount.currency,
					source: 'widgetRefunds',
				},
			]);
			fitSchema(items);
			expect(await requestsSince(before)).toEqual([
				'GET /widget-orders-refunds',
				'GET /event-points',
			]);
		},
	);

	it(
		'Order > Get Many for Event: a partial refund leaves status ' +
			'paid and the amount the service states; names read once for ' +
			'all items',
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
			const row = {
				orderId: String(created.id),
				type: 'sale',
				status: 'paid',
				eventPointId: String(eventId),
				eventName: live[1].eventName,
				paidAt: iso(stored.payAt),
				tickets: stored.ticketsCount,
				amount: stored.totalPrice.amount,
				currency: stored.totalPrice.currency,
				email: null,
				source: 'eventOrders',
			};
			expect(items).toEqual([row, row]);
			expect(stored.totalPrice.amount).toBeLessThan(paid.totalPrice.amount);
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
		orderId: '7',
		type: 'sale',
		status: 'paid',
		eventPointId: '1001',
		eventName: null,
		paidAt: '2026-01-02T10:00:00.000Z',
		tickets: 1,
		amount: 70,
		currency: 'EUR',
		email: null,
		source: 'eventOrders',
	};

	it(
		'takes a row and refuses a record, a missing or extra key, a ' +
			'number id, a sale row marked as a refund',
		() => {
			const schema = rowsSchema();
			expect(schemaErrors(sale, schema)).toEqual([]);
			const missing = Object.fromEntries(Object.entries(sale).filter(([key]) => key !== 'email'));
			for (const bad of [
				{ id: 7, eventPoint: 1001, status: 'paid' },
				missing,
				{ ...sale, extra: 1 },
				{ ...sale, orderId: 7 },
				{ ...sale, type: 'refund' },
			]) {
				expect(schemaErrors(bad, schema)).not.toEqual([]);
			}
		},
	);
});
