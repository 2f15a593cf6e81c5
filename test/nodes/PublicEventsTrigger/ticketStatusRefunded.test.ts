import type { IDataObject } from 'n8n-workflow';

import { postSigned, SIGNED, triggerSuite } from '../../../harness/nodes/webhookTrigger';
import { paidApiOrder } from '../../../harness/sandbox/push';

/**
 * Ticket statuses are not shown by the spec: a ticket that reads `refunded` is refunded for the
 * push trigger as for the ledger. (Outside review: the push trigger took only `refund`, answered
 * every such partial refund "later" and never brought it.)
 */
const { sb, triggers } = triggerSuite({ events: 2, placesPerEvent: 40, widgetOrders: 0 });

beforeAll(() => {
	const serialize = sb().app.serialize;
	const original = serialize.ticket.bind(serialize);
	serialize.ticket = (ticket, eventPointId) => {
		const json = original(ticket, eventPointId);
		return json.status === 'refund' ? { ...json, status: 'refunded' } : json;
	};
});

it("a partial refund of an API order whose ticket reads 'refunded' gives its row", async () => {
	const trigger = await triggers.start({
		...SIGNED,
		events: ['sale', 'refund'],
		fetchFullOrder: true,
		options: { output: 'rows' },
	});
	const order = await paidApiOrder(sb(), 2);
	const ticket = order.tickets[0].ticketId;
	await sb().send('PUT', `/orders/${order.id}/tickets/${ticket}/status`, { toStatus: 'refund' });
	const now = (await sb().admin('GET', '/state')).body.now as string;
	const body = JSON.stringify({
		id: 'ntf_refund_1',
		type: 'order.refund',
		occurredAt: now,
		data: { orderId: order.id, eventPointId: order.eventPoint, ticketIds: [ticket], source: 'api' },
	});
	const res = await postSigned(trigger.url, body);
	const rows = trigger.executions.flatMap((run) => run.map((item) => item.json as IDataObject));
	expect({ status: res.status, keys: rows.map((r) => r.key) }).toEqual({
		status: 200,
		keys: [`refund:api:${String(order.id)}:${String(ticket)}`],
	});
});
