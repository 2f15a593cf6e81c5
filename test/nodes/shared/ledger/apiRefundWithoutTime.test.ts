import type { IDataObject } from 'n8n-workflow';

import { nodeRows } from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { apiLedger } from '../../../../harness/sandbox/ledger';
import { paidApiOrder } from '../../../../harness/sandbox/push';
import { onlyEvents } from '../../../../harness/sandbox/suite';
import { answersWithout } from '../../../../harness/sandbox/serviceShapes';

const DAY = 24 * 3_600_000;

/**
 * A service whose tickets carry no refund time (the spec shows none). A refund of an API order
 * paid before the Look Back window (within Refunds of API Orders Paid Up To) and refunded now is
 * dated when the read first sees it: Reconcile Table writes it, Get Rows Today lists it. (Outside
 * review: the read kept a refund without a time only when its sale was paid in the period, so it
 * never reached the table.)
 */
let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(2, 60));
	answersWithout(sb, 'ticket', ['refundedAt']);
});
afterAll(() => sb.stop());

const run = async (parameters: IDataObject, inputItems?: IDataObject[]) => {
	const { rows, error } = await nodeRows(sb, parameters, inputItems);
	if (error) throw error;
	return rows;
};

it(
	'a refund of an API order paid 3 days ago, with no refund time stated, is written by ' +
		'Reconcile (Look Back 1 day) and listed by Get Rows Today, dated when first seen',
	async () => {
		const order = await paidApiOrder(sb, 2);
		await sb.advanceClock(3 * DAY);
		sb.forgetTokens();
		const ticket = order.tickets[0].ticketId;
		expect(
			(await sb.send('PUT', `/orders/${order.id}/tickets/${ticket}/status`, { toStatus: 'refund' }))
				.status,
		).toBe(200);
		const refundKey = `refund:api:${String(order.id)}:${String(ticket)}`;
		expect(apiLedger(sb).has(refundKey)).toBe(true);
		// The partner's table already holds the sale (the push of 3 days ago).
		const saleRow = (
			await run({ resource: 'ledger', operation: 'getRows', period: 'lastDays', days: 7 })
		).find((r) => r.key === `sale:api:${String(order.id)}`)!;
		expect(saleRow).toBeDefined();
		const today = await run({ resource: 'ledger', operation: 'getRows', period: 'today' });
		const written = await run({ resource: 'ledger', operation: 'reconcile', lookBackDays: 1 }, [
			saleRow,
		]);
		expect({
			getRowsToday: today.map((r) => r.key),
			reconcileWrites: written.map((r) => r.key),
		}).toEqual({ getRowsToday: [refundKey], reconcileWrites: [refundKey] });
	},
);
