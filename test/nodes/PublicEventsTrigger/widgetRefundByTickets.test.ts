import type { IDataObject } from 'n8n-workflow';

import { postSigned, SIGNED, triggerSuite } from '../../../harness/nodes/webhookTrigger';

/**
 * A widget refund notification naming the order and the tickets taken back, but no refund id: the
 * refund is the one of those tickets. (Outside review: the newest of the order's refunds was taken,
 * so a late delivery of refund 1 wrote refund 2.)
 */
const { sb, triggers } = triggerSuite({ events: 2, placesPerEvent: 40, widgetOrders: 0 });

it('widget refund 1 (its tickets, no refund id) delivered after refund 2 is refund 1', async () => {
	const trigger = await triggers.start({
		...SIGNED,
		events: ['sale', 'refund'],
		fetchFullOrder: true,
		options: { output: 'rows' },
	});
	const event = String((await sb().getAll('/event-points'))[0].id);
	const sold = (
		await sb().admin('POST', '/widget-orders', {
			company: 'partner',
			eventPoint: event,
			tickets: 3,
		})
	).body;
	const first = (await sb().admin('POST', `/widget-orders/${sold.id}/refund`, { tickets: 1 })).body;
	const now = (await sb().admin('GET', '/state')).body.now as string;
	await sb().advanceClock(60_000);
	await sb().admin('POST', `/widget-orders/${sold.id}/refund`, { tickets: 1 });
	const body = JSON.stringify({
		id: 'ntf_widget_refund_1',
		type: 'order.refund',
		occurredAt: now,
		data: { orderId: sold.id, eventPointId: event, ticketIds: first.tickets, source: 'widget' },
	});
	expect((await postSigned(trigger.url, body)).status).toBe(200);
	const rows = trigger.executions.flatMap((run) => run.map((item) => item.json as IDataObject));
	expect(rows.map((r) => r.key)).toEqual([`refund:widget:${String(first.id)}`]);
});
