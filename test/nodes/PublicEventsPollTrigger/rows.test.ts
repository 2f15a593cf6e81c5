import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession } from '../../../harness/engine';
import { credentialFor, mark, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { onlyEvents } from '../../../harness/sandbox/suite';
import { rowsSchema, schemaErrors } from '../../../harness/engine/rowSchema';
import { ledgerKeysOf, statusOf, upsertByKey } from '../../../harness/nodes/ledgerTable';
import { apiLedger, ledgerMismatches } from '../../../harness/sandbox/ledger';
import { logPosition, logSince } from '../../../harness/engine/runtime';
import { MINUTE } from '../../../harness/time';

/**
 * The poll trigger's Output "Ledger Rows" (Sales and Refunds): the same sales and refunds as Full
 * Records, as the ledger's rows (one per sale, one per refund, keyed by channel), with event names
 * read once per poll; upserted by key into a table they leave the API's own ledger of those orders
 * (harness/sandbox/ledger.ts).
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
/** A widget refund: of `tickets` of the order's tickets still sold, or of all of them. */
const refund = async (id: unknown, tickets?: number) =>
	(await sb.admin('POST', `/widget-orders/${String(id)}/refund`, tickets ? { tickets } : {}))
		.body as IDataObject;
const nameReads = async (seq: number) =>
	(await since(sb, seq))
		.filter(
			(e) =>
				e.method === 'GET' && (e.route === '/event-points' || e.route === '/event-points-archived'),
		)
		.map((e) => e.route);

describe('Poll Trigger: Output Ledger Rows', () => {
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
					key: `sale:widget:${String(onArchived.id)}`,
					type: 'sale',
					channel: 'widget',
					orderId: String(onArchived.id),
					eventName: archived[0].eventName,
					tickets: 2,
					amount: (onArchived.totalPrice as IDataObject).amount,
					email: onArchived.email,
				}),
				{
					key: `sale:api:${String(order.id)}`,
					type: 'sale',
					channel: 'api',
					orderId: String(order.id),
					eventPointId: String(live[1].id),
					eventName: live[1].eventName,
					at: new Date(Date.parse(paid.payAt)).toISOString(),
					tickets: 1,
					amount: paid.totalPrice.amount,
					currency: paid.totalPrice.currency,
					email: null,
					refundId: null,
					ticketIds: null,
				},
				expect.objectContaining({
					key: `refund:widget:${String(refunded.id)}`,
					type: 'refund',
					channel: 'widget',
					orderId: String(onArchived.id),
					refundId: String(refunded.id),
					tickets: 2,
					amount: -Number((refunded.amount as IDataObject).amount),
					ticketIds: (refunded.tickets as unknown[]).join(','),
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
					key: `sale:widget:${String(sale.id)}`,
					channel: 'widget',
					orderId: String(sale.id),
					eventName: live[0].eventName,
				}),
			]);
			expect(schemaErrors(manual.items[0].json, rowsSchema())).toEqual([]);
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
		'upserted by key, the rows of any mix of sales, whole and partial refunds over several ' +
			"polls are the API's ledger of those orders, each row written once; an order reads " +
			'refunded exactly when the API says so',
		async () => {
			const node = trigger({
				include: ['widgetSales', 'widgetRefunds'],
				options: { output: 'rows' },
			});
			await node.poll();
			const written: IDataObject[] = [];
			const sold: IDataObject[] = [];
			// Sales and refunds interleaved across three polls, a refund sometimes in the same poll as
			// its sale: round 0 refunds a sale of one ticket whole; round 1 one ticket of its sale of
			// two; round 2 one of its sale of three, and the other ticket of round 1's sale.
			for (const round of [0, 1, 2]) {
				await sb.advanceClock(MINUTE);
				sold.push(await sell(live[2].id), await sell(live[round % 2].id, round + 1));
				await sb.advanceClock(MINUTE);
				if (round === 0) await refund(sold[0].id);
				else await refund(sold[sold.length - 1].id, 1);
				if (round === 2) await refund(sold[3].id, 1);
				const { items, error } = await node.poll();
				expect(error).toBeUndefined();
				written.push(...items.map((item) => item.json));
			}
			const table = upsertByKey(written);
			const truth = apiLedger(sb);
			const keys = ledgerKeysOf(
				truth,
				sold.map((sale) => ['widget', sale.id]),
			);
			// Six sales, four refunds (one of them whole): each a row, written once.
			expect([keys.length, written.length, table.size]).toEqual([10, 10, 10]);
			expect(ledgerMismatches([...table.values()], truth, keys)).toEqual([]);
			// What the table tells of each order's status is the API's: refunded when its refunds
			// take back all its tickets (round 0's, and round 1's in two refunds), else paid.
			const orders = new Map((await sb.getAll('/widget-orders')).map((o) => [o.id, o]));
			const statuses = sold.map((sale) => statusOf(table, 'widget', sale.id));
			expect(statuses).toEqual(sold.map((sale) => orders.get(sale.id).status));
			expect(statuses).toEqual(['refund', 'paid', 'paid', 'refund', 'paid', 'paid']);
		},
	);
});
