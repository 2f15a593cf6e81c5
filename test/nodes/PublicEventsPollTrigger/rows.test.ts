import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession } from '../../../harness/engine';
import { credentialFor, mark, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { onlyEvents } from '../../../harness/sandbox/suite';
import { rowsSchema, schemaErrors } from '../../../harness/engine/rowSchema';
import { logPosition, logSince } from '../../../harness/engine/runtime';
import { MINUTE } from '../../../harness/time';

/**
 * The poll trigger's Output "Rows for a Table" (Sales and Refunds): the same sales and refunds as
 * Full Records, as flat rows, with event names read once per poll; upserted by orderId into a
 * table they leave one row per order that agrees with the service.
 */
let sb: SandboxClient;
let live: IDataObject[];
let archived: IDataObject[];

beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(4, 40, { archivedEvents: 1 }));
	await sb.token();
	// Most free places first: the tests sell a dozen tickets.
	live = (await sb.getAll('/event-points')).sort(
		(a, b) => Number(b.countAvailableTickets) - Number(a.countAvailableTickets),
	);
	archived = await sb.getAll('/event-points-archived');
});
afterAll(() => sb.stop());

const trigger = (parameters: IDataObject) =>
	new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters,
		credentials: credentialFor(sb).store,
	});
async function sell(eventPoint: unknown, tickets = 1): Promise<IDataObject> {
	const res = await sb.admin('POST', '/widget-orders', { eventPoint, tickets });
	expect([res.status, res.body]).toEqual([201, expect.anything()]);
	return res.body;
}
const refund = async (id: unknown) =>
	(await sb.admin('POST', `/widget-orders/${String(id)}/refund`, {})).body as IDataObject;
const nameReads = async (seq: number) =>
	(await since(sb, seq))
		.filter(
			(e) =>
				e.method === 'GET' && (e.route === '/event-points' || e.route === '/event-points-archived'),
		)
		.map((e) => e.route);

/**
 * A Data Table / Google Sheets upsert keyed by orderId: the row's columns overwrite, the others
 * stay.
 */
function upsert(table: Map<string, IDataObject>, rows: IDataObject[]) {
	for (const row of rows)
		table.set(String(row.orderId), { ...table.get(String(row.orderId)), ...row });
}

describe('Poll Trigger: Output Rows for a Table', () => {
	it(
		'emits one flat row per sale and refund from each feed, event ' +
			'names read once per poll (archive when needed)',
		async () => {
			const node = trigger({
				include: ['widgetSales', 'widgetRefunds', 'eventOrders'],
				eventScope: 'chosen',
				eventIds: [String(live[1].id)],
				options: { output: 'rows' },
			});
			expect((await node.poll()).returnedNull).toBe(true);

			await sb.advanceClock(MINUTE);
			const onArchived = await sell(archived[0].id, 2);
			const place = await sb.freePlace(Number(live[1].id));
			const order = (
				await sb.send('POST', '/orders', {
					eventPoint: String(live[1].id),
					places: [place.id],
					priceCategory: place.priceCategory,
				})
			).body;
			const paid = (await sb.send('PUT', `/orders/${order.id}/status`, { toStatus: 'paid' })).body;
			await sb.advanceClock(MINUTE);
			const refunded = await refund(onArchived.id);

			const before = await mark(sb);
			const { items, error } = await node.poll();
			expect(error).toBeUndefined();
			const rows = items.map((item) => item.json);
			expect(rows).toEqual([
				expect.objectContaining({
					type: 'sale',
					source: 'widgetSales',
					orderId: String(onArchived.id),
					eventName: archived[0].eventName,
					tickets: 2,
					email: onArchived.email,
				}),
				{
					orderId: String(order.id),
					type: 'sale',
					status: 'paid',
					eventPointId: String(live[1].id),
					eventName: live[1].eventName,
					paidAt: new Date(Date.parse(paid.payAt)).toISOString(),
					tickets: 1,
					amount: paid.totalPrice.amount,
					currency: paid.totalPrice.currency,
					email: null,
					source: 'eventOrders',
				},
				expect.objectContaining({
					type: 'refund',
					status: 'refund',
					source: 'widgetRefunds',
					orderId: String(onArchived.id),
					refundId: String(refunded.id),
					refundedTickets: 2,
					eventName: archived[0].eventName,
				}),
			]);
			expect(rows.flatMap((row) => schemaErrors(row, rowsSchema()))).toEqual([]);
			expect(await nameReads(before)).toEqual(['/event-points', '/event-points-archived']);

			// Nothing new: no rows, and no request for names.
			const quiet = await mark(sb);
			expect((await node.poll()).returnedNull).toBe(true);
			expect(await nameReads(quiet)).toEqual([]);
		},
	);

	it(
		'Full Records (the default) reads no event names; manual mode ' + 'gives its sample as a row',
		async () => {
			const node = trigger({ include: ['widgetSales', 'widgetRefunds'] });
			await node.poll();
			await sb.advanceClock(MINUTE);
			const sale = await sell(live[0].id);
			const before = await mark(sb);
			const { items } = await node.poll();
			expect(items.map((item) => item.json)).toEqual([
				expect.objectContaining({
					type: 'sale',
					orderId: String(sale.id),
					totalPrice: sale.totalPrice,
				}),
			]);
			expect(await nameReads(before)).toEqual([]);

			const manual = await trigger({ include: ['widgetSales'], options: { output: 'rows' } }).poll({
				mode: 'manual',
			});
			expect(manual.items.map((item) => item.json)).toEqual([
				expect.objectContaining({
					orderId: String(sale.id),
					eventName: live[0].eventName,
					source: 'widgetSales',
				}),
			]);
		},
	);

	it(
		'names never stall sales: while the archive or the event list cannot be read, ' +
			"the rows come with eventName null and a warning in n8n's log, and the feed moves on; " +
			'an archive refused (403) leaves names null without a warning',
		async () => {
			const node = trigger({
				include: ['widgetSales'],
				options: { output: 'rows', maxRetries: 0 },
			});
			await node.poll();
			await sb.advanceClock(MINUTE);
			const onLive = await sell(live[0].id);
			const ended = await sell(archived[0].id);
			const warnings = (from: number) => logSince(from).filter((line) => line.startsWith('warn:'));
			const fault = (path: string, status: number, count: number) =>
				sb.admin('POST', '/faults', { kind: 'status', status, method: 'GET', path, count });

			await fault('/event-points-archived', 503, 0);
			let logged = logPosition();
			const during = await node.poll();
			expect(during.error).toBeUndefined();
			expect(during.items.map((item) => item.json)).toEqual([
				expect.objectContaining({ orderId: String(onLive.id), eventName: live[0].eventName }),
				expect.objectContaining({ orderId: String(ended.id), eventName: null }),
			]);
			expect(warnings(logged)).toEqual([
				expect.stringMatching(/event names of 1 of 2 rows could not be read .*503/),
			]);
			// The place moved: the archive still failing holds nothing back.
			expect((await node.poll()).returnedNull).toBe(true);

			await sb.admin('DELETE', '/faults');
			await sb.advanceClock(MINUTE);
			const next = await sell(live[1].id);
			await fault('/event-points', 400, 1);
			logged = logPosition();
			const listFailed = await node.poll();
			expect(listFailed.error).toBeUndefined();
			expect(listFailed.items.map((item) => item.json)).toEqual([
				expect.objectContaining({ orderId: String(next.id), eventName: null }),
			]);
			expect(warnings(logged)).toEqual([expect.stringMatching(/of 1 of 1 rows .*400/)]);

			await sb.advanceClock(MINUTE);
			const refusedSale = await sell(archived[0].id);
			await fault('/event-points-archived', 403, 1);
			logged = logPosition();
			const refused = await node.poll();
			expect(refused.error).toBeUndefined();
			expect(refused.items.map((item) => item.json)).toEqual([
				expect.objectContaining({ orderId: String(refusedSale.id), eventName: null }),
			]);
			expect(warnings(logged)).toEqual([]);
			await sb.admin('DELETE', '/faults');
		},
	);

	it(
		'upserted by orderId, the rows of any mix of sales and ' +
			'refunds over several polls leave one row per order that ' +
			'agrees with the service',
		async () => {
			const node = trigger({
				include: ['widgetSales', 'widgetRefunds'],
				options: { output: 'rows' },
			});
			await node.poll();
			const table = new Map<string, IDataObject>();
			const sold: IDataObject[] = [];
			// Sales and refunds interleaved across three polls, a refund sometimes in the same poll as
			// its sale.
			for (const round of [0, 1, 2]) {
				await sb.advanceClock(MINUTE);
				sold.push(await sell(live[round % 2].id, round + 1), await sell(live[2].id));
				await sb.advanceClock(MINUTE);
				await refund(sold[sold.length - 1 - round].id);
				const { items, error } = await node.poll();
				expect(error).toBeUndefined();
				upsert(
					table,
					items.map((item) => item.json),
				);
			}
			const orders = new Map((await sb.getAll('/widget-orders')).map((o) => [String(o.id), o]));
			const refunds = new Map(
				(await sb.getAll('/widget-orders-refunds')).map((r) => [String(r.order), r]),
			);
			expect([...table.keys()].sort()).toEqual(sold.map((s) => String(s.id)).sort());
			for (const [orderId, row] of table) {
				const order = orders.get(orderId)!;
				const refundOf = refunds.get(orderId);
				expect([orderId, row.status, row.amount, row.paidAt]).toEqual([
					orderId,
					order.status,
					order.totalPrice.amount,
					new Date(Date.parse(order.payAt)).toISOString(),
				]);
				expect([orderId, row.refundedAmount ?? null]).toEqual([
					orderId,
					refundOf ? refundOf.amount.amount : null,
				]);
			}
			expect([...table.values()].filter((row) => row.status === 'refund')).toHaveLength(3);
		},
	);
});
