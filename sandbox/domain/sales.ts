import { conflict, notFound } from '../http';
import type { Order } from '../model';
import type { ApiState } from '../state';
import { endHold } from './holds';

/**
 * An order's status changes: paid (tickets sold, barcodes issued), expired (the hold released),
 * refund (sold tickets back on sale under new barcodes); each sale or refund is pushed
 * (docs/architecture.md, "Orders and tickets", "Push notifications").
 */

/** Paid and expired end a live hold; refund takes back a paid order's sold tickets. */
export function setOrderStatus(
	app: ApiState,
	order: Order,
	toStatus: 'paid' | 'refund' | 'expired',
): void {
	const allowed =
		(toStatus === 'refund' && order.status === 'paid') ||
		(toStatus !== 'refund' && order.status === 'reserved_to_time');
	if (!allowed) {
		// A payment for a hold the partner released or the clock ended: the sale is lost.
		if (toStatus === 'paid' && order.status === 'expired') app.scenario.lostHoldPaid();
		throw conflict(
			'invalid_status_transition',
			`Order ${order.id} cannot go from ${order.status} to ${toStatus}`,
			{ from: order.status, to: toStatus },
		);
	}
	if (toStatus === 'paid') pay(app, order);
	else if (toStatus === 'expired') {
		endHold(app, order, 'expired');
		app.scenario.holdReleased(order);
	} else
		refundTickets(
			app,
			order,
			order.tickets.filter((t) => t.status === 'sold').map((t) => t.ticketId),
		);
}

/** One sold ticket back; the order is refunded once none is left sold. */
export function refundTicket(app: ApiState, order: Order, ticketId: number): void {
	const ticket = order.tickets.find((t) => t.ticketId === ticketId);
	if (!ticket) throw notFound(`Ticket ${ticketId} in order ${order.id}`);
	if (ticket.status !== 'sold')
		throw conflict(
			'invalid_status_transition',
			`Ticket ${ticketId} cannot go from ${ticket.status} to refund`,
			{ from: ticket.status, to: 'refund' },
		);
	refundTickets(app, order, [ticketId]);
}

function pay(app: ApiState, order: Order): void {
	endHold(app, order, 'paid');
	order.payAt = app.clock.now();
	const event = app.store.eventIndex.get(order.eventPointId)!;
	for (const ticket of order.tickets) {
		const place = event.placeIndex.get(ticket.placeId)!;
		app.store.setPlaceState(place, 'sold', order.id);
		ticket.status = 'sold';
		ticket.barcode = place.barcode;
	}
	app.push.publish([order.companyId], 'order.sale', {
		orderId: order.id,
		eventPointId: order.eventPointId,
		status: order.status,
		source: 'api',
	});
}

function refundTickets(app: ApiState, order: Order, ticketIds: number[]): void {
	const event = app.store.eventIndex.get(order.eventPointId)!;
	for (const ticket of order.tickets.filter((t) => ticketIds.includes(t.ticketId))) {
		ticket.status = 'refund';
		ticket.refundedAt = app.clock.now();
		const place = event.placeIndex.get(ticket.placeId)!;
		place.barcode = app.store.newBarcode(app.random); // a resold seat gets a new barcode
		app.store.setPlaceState(place, 'free');
	}
	if (order.tickets.every((t) => t.status === 'refund')) {
		order.status = 'refund';
		order.refundedAt = app.clock.now();
	}
	app.push.publish([order.companyId], 'order.refund', {
		orderId: order.id,
		eventPointId: order.eventPointId,
		status: order.status,
		ticketIds,
		source: 'api',
	});
}
