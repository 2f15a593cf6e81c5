import type { IDataObject } from 'n8n-workflow';

import { ledgerKeysOf, statusOf, upsertByKey } from '../../../harness/nodes/ledgerTable';
import { NONE, SIGNED, triggerSuite } from '../../../harness/nodes/webhookTrigger';
import { apiLedger, ledgerMismatches } from '../../../harness/sandbox/ledger';
import { FIRST_RETRY, paidApiOrder, until } from '../../../harness/sandbox/push';

/**
 * Invariant: Ledger Rows upserted by key end with the API's ledger.
 *
 * An API order of 3 tickets, paid, then one ticket refunded: the API says the order is `paid`
 * (2 tickets still valid). The push rows come in their natural order, sale then refund: the sale
 * row keeps every ticket paid for, the refund row takes back the one ticket, so the table's net
 * takings are the two tickets kept and the order reads paid, as the API says (an outside review
 * found the table said refund, when a refund row was upserted over its sale). Under Security None,
 * which passes on no time of the claim's and where the order has no refundedAt until every ticket
 * is refunded, the refund row's time is the ticket's own (it was null).
 */
const { sb, triggers } = triggerSuite(
	{ events: 4, placesPerEvent: 40, push: { retryBaseMs: FIRST_RETRY, maxAttempts: 5 } },
	async (sandbox) => await sandbox.setQuirks({}),
);

/** An order made through the API with `tickets` places, paid. */
const apiSale = async (tickets: number): Promise<IDataObject> => await paidApiOrder(sb(), tickets);

async function partialRefundRows(security: IDataObject) {
	const { trigger } = await triggers.subscribed({
		...security,
		fetchFullOrder: true,
		options: { output: 'rows' },
	});
	const order = await apiSale(3);
	await until(async () => trigger.executions.length >= 1, 'sale run');
	await sb().advanceClock(1000);
	const [ticket] = order.tickets as IDataObject[];
	const path = `/orders/${String(order.id)}/tickets/${String(ticket.ticketId)}/status`;
	expect((await sb().send('PUT', path, { toStatus: 'refund' })).status).toBe(200);
	await until(async () => trigger.executions.length >= 2, 'refund run');
	const rows = trigger.executions.flat().map((item) => item.json);
	const api = (await sb().get(`/orders/${String(order.id)}`)).body as IDataObject;
	const truth = apiLedger(sb());
	const keys = ledgerKeysOf(truth, [['api', order.id]]);
	expect(keys.sort()).toEqual(
		[
			`sale:api:${String(order.id)}`,
			`refund:api:${String(order.id)}:${String(ticket.ticketId)}`,
		].sort(),
	);
	return { order, rows, api, truth, keys };
}

it("Signature: sale then partial refund upserted by key leave the API's ledger, paid", async () => {
	const { order, rows, api, truth, keys } = await partialRefundRows(SIGNED);
	expect(rows.map((row) => row.type)).toEqual(['sale', 'refund']);
	const table = upsertByKey(rows);
	expect(ledgerMismatches([...table.values()], truth, keys)).toEqual([]);
	expect(api.status).toBe('paid');
	expect(statusOf(table, 'api', order.id)).toBe(api.status);
	// The net takings: the two tickets kept, what the API's total now says.
	const net = [...table.values()].reduce((sum, row) => sum + Number(row.amount), 0);
	expect(net).toBeCloseTo(Number((api.totalPrice as IDataObject).amount), 2);
});

it('Security None: a partial refund row carries when its ticket was refunded', async () => {
	const { rows, api, truth, keys } = await partialRefundRows(NONE);
	const refund = rows.find((r) => r.type === 'refund')!;
	const [ticket] = (api.tickets as IDataObject[]).filter((t) => t.status === 'refund');
	expect(api.refundedAt ?? null).toBeNull();
	expect(refund.at).toBe(new Date(Date.parse(String(ticket.refundedAt))).toISOString());
	expect(ledgerMismatches([...upsertByKey(rows).values()], truth, keys)).toEqual([]);
});
