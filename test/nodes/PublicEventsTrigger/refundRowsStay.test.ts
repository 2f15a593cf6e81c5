import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { rowsChanged } from '../../../harness/nodes/ledgerTable';
import { credentialFor, runPublicEvents } from '../../../harness/nodes/publicEvents';
import { postSigned, SIGNED, triggerSuite } from '../../../harness/nodes/webhookTrigger';
import { paidApiOrder } from '../../../harness/sandbox/push';

const DAY = 24 * 3_600_000;

/**
 * A service whose tickets carry no refund time: a refund delivery of an API order gives the rows of
 * the tickets it names, dated by the notification (else when received), so a later refund leaves an
 * earlier one's row as written. (Outside review: each delivery rewrote every refunded ticket's row
 * with its own time, moving the first refund to the next day; a notification without a time gave
 * a row without one for good.)
 */
const { sb, triggers } = triggerSuite({ events: 2, placesPerEvent: 40, widgetOrders: 0 });

beforeAll(() => {
	const serialize = sb().app.serialize;
	const original = serialize.ticket.bind(serialize);
	serialize.ticket = (ticket, eventPointId) => {
		const { refundedAt, ...rest } = original(ticket, eventPointId);
		void refundedAt;
		return rest;
	};
});

it('no refund times: a second partial refund leaves the first one`s row as written', async () => {
	const trigger = await triggers.start({
		...SIGNED,
		events: ['sale', 'refund'],
		fetchFullOrder: true,
		options: { output: 'rows' },
	});
	const order = await paidApiOrder(sb(), 2);
	const notify = async (n: number, ticket: number) => {
		const clock = (await sb().admin('GET', '/state')).body.now as string;
		await sb().send('PUT', `/orders/${order.id}/tickets/${ticket}/status`, { toStatus: 'refund' });
		const body = JSON.stringify({
			id: `ntf_refund_${n}`,
			type: 'order.refund',
			occurredAt: clock,
			data: {
				orderId: order.id,
				eventPointId: order.eventPoint,
				ticketIds: [ticket],
				source: 'api',
			},
		});
		expect((await postSigned(trigger.url, body)).status).toBe(200);
	};
	await notify(1, order.tickets[0].ticketId);
	await sb().advanceClock(DAY);
	sb().forgetTokens();
	await notify(2, order.tickets[1].ticketId);
	const rows = trigger.executions.flatMap((run) => run.map((item) => item.json));
	expect(rows).toHaveLength(2);
	expect(rowsChanged(rows)).toEqual([]);
});

it('no refund times, a notification without one: the row is dated when received', async () => {
	const trigger = await triggers.start({
		...SIGNED,
		events: ['sale', 'refund'],
		fetchFullOrder: true,
		options: { output: 'rows' },
	});
	const order = await paidApiOrder(sb(), 2);
	const ticket = order.tickets[0].ticketId;
	await sb().send('PUT', `/orders/${order.id}/tickets/${ticket}/status`, { toStatus: 'refund' });
	const body = JSON.stringify({
		id: 'ntf_refund_untimed',
		type: 'order.refund',
		data: { orderId: order.id, eventPointId: order.eventPoint, ticketIds: [ticket], source: 'api' },
	});
	expect((await postSigned(trigger.url, body)).status).toBe(200);
	const pushed = trigger.executions.flatMap((run) => run.map((item) => item.json as IDataObject));
	const table = new Map(pushed.map((row) => [String(row.key), row]));
	const { items, error } = await runPublicEvents(
		credentialFor(sb()).store,
		{ resource: 'ledger', operation: 'reconcile', lookBackDays: 7 } as INodeParameters,
		{ inputItems: [...table.values()] },
	);
	expect(error).toBeUndefined();
	for (const { json } of items)
		table.set(String(json.key), { ...table.get(String(json.key)), ...json });
	expect(table.get(`refund:api:${String(order.id)}:${String(ticket)}`)?.at).not.toBeNull();
});
