/**
 * Services the spec allows and the sandbox does not serve by itself, made by reshaping its answers
 * for one test: fields left out of a record, an event's list totals left after refunds.
 */
import type { SandboxClient } from './client';

type Shaped = 'ticket' | 'widgetRefund';

/** Records of `kind` answered without `fields` (a ticket's refundedAt, a refund's amount). */
export function answersWithout(sb: SandboxClient, kind: Shaped, fields: string[]): void {
	const serialize = sb.app.serialize;
	const drop = (json: Record<string, unknown>) =>
		Object.fromEntries(Object.entries(json).filter(([field]) => !fields.includes(field)));
	if (kind === 'ticket') {
		const ticket = serialize.ticket.bind(serialize);
		serialize.ticket = (record, eventPointId) => drop(ticket(record, eventPointId));
	} else {
		const refund = serialize.widgetRefund.bind(serialize);
		serialize.widgetRefund = (record) => drop(refund(record));
	}
}

/**
 * Widget orders in an event's list (the widget-in-event-lists quirk) with the total left after
 * refunds, as the sandbox gives API orders there; the widget list keeps the total paid.
 */
export async function eventListTotalsLeft(sb: SandboxClient): Promise<void> {
	await sb.setQuirks('widget-in-event-lists');
	const serialize = sb.app.serialize;
	const widgetOrder = serialize.widgetOrder.bind(serialize);
	serialize.widgetOrder = (order, withTickets = true) => {
		const json = widgetOrder(order, withTickets);
		if (withTickets) return json;
		const left = order.tickets.filter((t) => t.status !== 'refund');
		return { ...json, totalPrice: serialize.total(left.reduce((n, t) => n + t.discountPrice, 0)) };
	};
}
