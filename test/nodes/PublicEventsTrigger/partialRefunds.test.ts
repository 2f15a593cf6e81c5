import type { IDataObject } from 'n8n-workflow';

import { FIRST_RETRY, paidApiOrder, until } from '../../../harness/sandbox/push';
import { NONE, SIGNED, triggerSuite } from '../../../harness/nodes/webhookTrigger';

/**
 * Invariant: Rows for a Table upserted by orderId end with the API's truth.
 *
 * An API order of 3 tickets, paid, then one ticket refunded: the API says the order is `paid`
 * (2 tickets still valid). The push rows come in their natural order, sale then refund: the refund
 * row carries the order's status, so the table says paid, as the API does (an outside review found
 * it said refund). Under Security None, which passes on no time of the claim's and where the order
 * has no refundedAt until every ticket is refunded, the row's refundedAt is the time the refund
 * was confirmed (it was null).
 */
const { sb, triggers } = triggerSuite(
	{ events: 4, placesPerEvent: 40, push: { retryBaseMs: FIRST_RETRY, maxAttempts: 5 } },
	async (sandbox) => await sandbox.setQuirks({}),
);

/** An order made through the API with `tickets` places, paid. */
const apiSale = async (tickets: number): Promise<IDataObject> => await paidApiOrder(sb(), tickets);

function upsert(rows: IDataObject[], table = new Map<string, IDataObject>()) {
	for (const row of rows)
		table.set(String(row.orderId), { ...table.get(String(row.orderId)), ...row });
	return table;
}

async function partialRefundRows(security: IDataObject) {
	const { trigger } = await triggers.subscribed({
		...security,
		fetchFullOrder: true,
		options: { output: 'rows' },
	});
	const order = await apiSale(3);
	await until(async () => trigger.executions.length >= 1, 'sale run');
	const [ticket] = order.tickets as IDataObject[];
	const path = `/orders/${String(order.id)}/tickets/${String(ticket.ticketId)}/status`;
	expect((await sb().send('PUT', path, { toStatus: 'refund' })).status).toBe(200);
	await until(async () => trigger.executions.length >= 2, 'refund run');
	const rows = trigger.executions.map(([item]) => item.json);
	const api = (await sb().get(`/orders/${String(order.id)}`)).body as IDataObject;
	return { order, rows, api };
}

it('Signature: sale then partial refund upserted by orderId leaves the API status', async () => {
	const { order, rows, api } = await partialRefundRows(SIGNED);
	const row = upsert(rows).get(String(order.id))!;
	expect(api.status).toBe('paid');
	expect(row.status).toBe(api.status);
});

it('Security None: a partial refund row carries when the refund happened', async () => {
	const { rows } = await partialRefundRows(NONE);
	const refund = rows.find((r) => r.type === 'refund')!;
	expect(refund.refundedAt).not.toBeNull();
});
