import { MINUTE } from '../clock';
import { badRequest, conflict, HttpError, notFound } from '../http';
import type { EventPoint, Order, Place } from '../model';
import type { ApiState } from '../state';

/**
 * Holds: places taken for a while (`reserved_to_time`) within the tickets-per-order and
 * reserved-tickets limits, ended by payment, release or expiry (docs/architecture.md,
 * "Holds and the reserved-tickets limit", "Hold expiry and the clock").
 */

const DEFAULT_HOLD_MINUTES = 15;

/** Holds whose time has passed become `expired` and free their places (the system's transition). */
export function releaseExpiredHolds(app: ApiState): void {
	const now = app.clock.now();
	for (const order of app.store.liveHolds)
		if (order.reservedToDate <= now) endHold(app, order, 'expired');
}

/** The hold stops counting against the limit; expired, its places are free again. */
export function endHold(app: ApiState, order: Order, status: 'expired' | 'paid'): void {
	app.store.liveHolds.delete(order);
	order.status = status;
	const event = app.store.eventIndex.get(order.eventPointId)!;
	for (const ticket of order.tickets) {
		const place = event.placeIndex.get(ticket.placeId)!;
		if (status === 'expired') app.store.setPlaceState(place, 'free');
	}
}

/** 409 unless the order is a live hold: only those change places or deadline. */
export function requireHold(order: Order): void {
	if (order.status !== 'reserved_to_time') {
		throw conflict(
			'order_not_reserved',
			`Order ${order.id} is ${order.status}; ` +
				'only an order in reserved_to_time can be changed this way',
			{ status: order.status },
		);
	}
}

export interface NewHold {
	companyId: number;
	event: EventPoint;
	places: string[];
	priceCategory: string;
	reservedMinutes?: number;
	promocode?: string;
}

/** A new order holding the places; the event must already be known to be on sale to the company. */
export function openHold(app: ApiState, hold: NewHold): Order {
	const discountPercent =
		hold.promocode === undefined ? 0 : promoDiscount(app, hold.companyId, hold.promocode);
	const places = takePlaces(app, hold.companyId, hold.event, hold.places, hold.priceCategory, 0);
	const now = app.clock.now();
	const order: Order = {
		id: app.store.nextId('order'),
		companyId: hold.companyId,
		eventPointId: hold.event.id,
		status: 'reserved_to_time',
		createdAt: now,
		reservedToDate: now + (hold.reservedMinutes ?? DEFAULT_HOLD_MINUTES) * MINUTE,
		payAt: null,
		refundedAt: null,
		promoCode: hold.promocode ?? null,
		discountPercent,
		tickets: [],
	};
	addTickets(app, order, places, hold.priceCategory);
	app.store.orders.set(order.id, order);
	app.store.liveHolds.add(order);
	app.scenario.holdOpened(order);
	return order;
}

function promoDiscount(app: ApiState, companyId: number, promocode: string): number {
	const now = app.clock.now();
	const code = app.store.promoCodes.find(
		(p) =>
			p.code === promocode && p.companyId === companyId && p.validFrom <= now && p.validTo > now,
	);
	if (!code) throw badRequest('promocode', 'is not a promo code available to your company now');
	return code.discountPercent;
}

/** More places in a live hold, within the same limits as a new one. */
export function addPlaces(
	app: ApiState,
	order: Order,
	placeIds: string[],
	priceCategory: string,
): void {
	requireHold(order);
	const event = app.store.eventIndex.get(order.eventPointId)!;
	addTickets(
		app,
		order,
		takePlaces(app, order.companyId, event, placeIds, priceCategory, order.tickets.length),
		priceCategory,
	);
}

/** A ticket out of a live hold; its place is free again. */
export function removeTicket(app: ApiState, order: Order, ticketId: number): void {
	requireHold(order);
	const index = order.tickets.findIndex((t) => t.ticketId === ticketId);
	if (index < 0) throw notFound(`Ticket ${ticketId} in order ${order.id}`);
	const [ticket] = order.tickets.splice(index, 1);
	app.store.setPlaceState(
		app.store.eventIndex.get(order.eventPointId)!.placeIndex.get(ticket.placeId)!,
		'free',
	);
}

/** A live hold's new deadline, counted from now. */
export function extendHold(app: ApiState, order: Order, reservedMinutes?: number): void {
	requireHold(order);
	order.reservedToDate = app.clock.now() + (reservedMinutes ?? DEFAULT_HOLD_MINUTES) * MINUTE;
}

/** Validates the places and price category of a new or growing order, then enforces both limits. */
function takePlaces(
	app: ApiState,
	companyId: number,
	event: EventPoint,
	placeIds: string[],
	priceCategory: string,
	alreadyInOrder: number,
): Place[] {
	if (new Set(placeIds).size !== placeIds.length)
		throw badRequest('places', 'names the same place twice');
	const places = placeIds.map((id, i) => {
		const place = event.placeIndex.get(Number(id));
		if (!place)
			throw badRequest(`places[${i}]`, `place ${id} is not a place of event point ${event.id}`);
		if (!place.priceCategories.some((c) => String(c.id) === priceCategory)) {
			throw badRequest(
				'priceCategory',
				`price category ${priceCategory} is not offered for place ${id}`,
			);
		}
		return place;
	});
	const { ticketsPerOrder, reservedPerAccount } = app.options.limits;
	const perOrder = alreadyInOrder + places.length;
	if (perOrder > ticketsPerOrder) {
		throw new HttpError(422, {
			code: 'tickets_per_order_limit',
			message:
				`An order may hold at most ${ticketsPerOrder} tickets; ` +
				`this one would hold ${perOrder}`,
			limit: ticketsPerOrder,
			current: perOrder,
		});
	}
	const held = app.store.heldTickets(companyId);
	if (held + places.length > reservedPerAccount) {
		app.scenario.limitRefused();
		throw new HttpError(422, {
			code: 'reserved_tickets_limit',
			message:
				`The account may hold at most ${reservedPerAccount} reserved tickets at once; ` +
				`${held} are held and ${places.length} more were asked for. ` +
				'Release holds you no longer need.',
			limit: reservedPerAccount,
			current: held,
			requested: places.length,
		});
	}
	const taken = places.filter((p) => p.state !== 'free');
	if (taken.length > 0) {
		app.scenario.placesTaken();
		throw conflict(
			'places_unavailable',
			`Places already held or sold: ${taken.map((p) => p.id).join(', ')}`,
			{ places: taken.map((p) => String(p.id)) },
		);
	}
	return places;
}

function addTickets(app: ApiState, order: Order, places: Place[], priceCategory: string): void {
	for (const place of places) {
		const category = place.priceCategories.find((c) => String(c.id) === priceCategory)!;
		const discountPrice = Math.round(category.price * (100 - order.discountPercent)) / 100;
		app.store.setPlaceState(place, 'held', order.id);
		order.tickets.push({
			ticketId: app.store.nextId('ticket'),
			placeId: place.id,
			priceCategoryId: category.id,
			price: category.price,
			discountPrice,
			status: 'reserved',
			barcode: null,
		});
	}
}
