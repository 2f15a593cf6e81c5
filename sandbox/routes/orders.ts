import { z } from 'zod';

import type { Ctx, SandboxApp } from '../app';
import { MINUTE } from '../clock';
import { badRequest, conflict, HttpError, notFound, type Router } from '../http';
import type { EventPoint, Order, Place } from '../model';
import { check, isoDayOrTime, numericId, sortDirection } from '../validate';
import { visibleYet } from '../quirks';
import { idParam, linkedEvent, listQuery, ordered } from './common';

const minutes = z
	.number({ invalid_type_error: 'must be a whole number of minutes' })
	.int('must be a whole number of minutes')
	.min(1, 'must be at least 1')
	.max(1440, 'must be at most 1440');
const placeList = z
	.array(numericId, { invalid_type_error: 'must be an array of numeric id strings' })
	.min(1, 'must name at least one place')
	.max(1000);

const createBody = z.object({
	eventPoint: numericId,
	places: placeList,
	priceCategory: numericId,
	reservedMinutes: minutes.optional(),
	promocode: z.string().min(1).max(64).optional(),
});
const addPlaceBody = z.object({ places: placeList, priceCategory: numericId });
const reserveBody = z.object({ reservedMinutes: minutes.optional() }).default({});
const statusBody = z.object({
	toStatus: z.string({ required_error: 'is required' }).min(1, 'is required'),
});

const ORDER_STATUSES = ['paid', 'refund', 'expired'];
const TICKET_STATUSES = ['refund'];

/** Holds whose time has passed become `expired` and free their places (the system's transition). */
export function releaseExpiredHolds(app: SandboxApp): void {
	const now = app.clock.now();
	for (const order of app.store.liveHolds)
		if (order.reservedToDate <= now) endHold(app, order, 'expired');
}

function endHold(app: SandboxApp, order: Order, status: 'expired' | 'paid'): void {
	app.store.liveHolds.delete(order);
	order.status = status;
	const event = app.store.eventIndex.get(order.eventPointId)!;
	for (const ticket of order.tickets) {
		const place = event.placeIndex.get(ticket.placeId)!;
		if (status === 'expired') app.store.setPlaceState(place, 'free');
	}
}

function ownOrder(ctx: Ctx, params: Record<string, string>): Order {
	const id = idParam(params, 'id');
	const order = ctx.app.store.orders.get(id);
	if (!order || order.companyId !== ctx.company.id) throw notFound(`Order ${id}`);
	return order;
}

function requireHold(order: Order): void {
	if (order.status !== 'reserved_to_time') {
		throw conflict(
			'order_not_reserved',
			`Order ${order.id} is ${order.status}; only an order in reserved_to_time can be changed this way`,
			{ status: order.status },
		);
	}
}

/** Validates the places and price category of a new or growing order, then enforces both limits. */
function takePlaces(
	ctx: Ctx,
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
	const { ticketsPerOrder, reservedPerAccount } = ctx.app.options.limits;
	const perOrder = alreadyInOrder + places.length;
	if (perOrder > ticketsPerOrder) {
		throw new HttpError(422, {
			code: 'tickets_per_order_limit',
			message: `An order may hold at most ${ticketsPerOrder} tickets; this one would hold ${perOrder}`,
			limit: ticketsPerOrder,
			current: perOrder,
		});
	}
	const held = ctx.app.store.heldTickets(ctx.company.id);
	if (held + places.length > reservedPerAccount) {
		throw new HttpError(422, {
			code: 'reserved_tickets_limit',
			message: `The account may hold at most ${reservedPerAccount} reserved tickets at once; ${held} are held and ${places.length} more were asked for. Release holds you no longer need.`,
			limit: reservedPerAccount,
			current: held,
			requested: places.length,
		});
	}
	const taken = places.filter((p) => p.state !== 'free');
	if (taken.length > 0) {
		throw conflict(
			'places_unavailable',
			`Places already held or sold: ${taken.map((p) => p.id).join(', ')}`,
			{ places: taken.map((p) => String(p.id)) },
		);
	}
	return places;
}

function addTickets(ctx: Ctx, order: Order, places: Place[], priceCategory: string): void {
	for (const place of places) {
		const category = place.priceCategories.find((c) => String(c.id) === priceCategory)!;
		const discountPrice = Math.round(category.price * (100 - order.discountPercent)) / 100;
		ctx.app.store.setPlaceState(place, 'held', order.id);
		order.tickets.push({
			ticketId: ctx.app.store.nextId('ticket'),
			placeId: place.id,
			priceCategoryId: category.id,
			price: category.price,
			discountPrice,
			status: 'reserved',
			barcode: null,
		});
	}
}

function refundTickets(app: SandboxApp, order: Order, ticketIds: number[]): void {
	const event = app.store.eventIndex.get(order.eventPointId)!;
	for (const ticket of order.tickets.filter((t) => ticketIds.includes(t.ticketId))) {
		ticket.status = 'refund';
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

const full = (ctx: Ctx, order: Order) =>
	ctx.app.item('Order', `/orders/${order.id}`, ctx.app.serialize.order(order, true));

export function registerOrders(router: Router<Ctx>): void {
	router.add('POST', '/orders', (ctx) => {
		const body = check(createBody, ctx.body ?? {});
		const eventId = Number(body.eventPoint);
		const event = ctx.app.store.eventIndex.get(eventId);
		if (
			!event ||
			!event.companyIds.has(ctx.company.id) ||
			event.dateEndOfSale <= ctx.app.clock.now()
		) {
			throw badRequest('eventPoint', `event point ${eventId} is not on sale for your company`);
		}
		let discountPercent = 0;
		if (body.promocode !== undefined) {
			const now = ctx.app.clock.now();
			const code = ctx.app.store.promoCodes.find(
				(p) =>
					p.code === body.promocode &&
					p.companyId === ctx.company.id &&
					p.validFrom <= now &&
					p.validTo > now,
			);
			if (!code) throw badRequest('promocode', 'is not a promo code available to your company now');
			discountPercent = code.discountPercent;
		}
		const places = takePlaces(ctx, event, body.places, body.priceCategory, 0);
		const now = ctx.app.clock.now();
		const order: Order = {
			id: ctx.app.store.nextId('order'),
			companyId: ctx.company.id,
			eventPointId: event.id,
			status: 'reserved_to_time',
			createdAt: now,
			reservedToDate: now + (body.reservedMinutes ?? 15) * MINUTE,
			payAt: null,
			refundedAt: null,
			promoCode: body.promocode ?? null,
			discountPercent,
			tickets: [],
		};
		addTickets(ctx, order, places, body.priceCategory);
		ctx.app.store.orders.set(order.id, order);
		ctx.app.store.liveHolds.add(order);
		return {
			status: 201,
			...ctx.app.item('Order', `/orders/${order.id}`, ctx.app.serialize.order(order, false)),
		};
	});

	router.add('GET', '/orders/{id}', (ctx, params) => full(ctx, ownOrder(ctx, params)));

	router.add('PUT', '/orders/{id}/add-place', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const body = check(addPlaceBody, ctx.body ?? {});
		requireHold(order);
		const event = ctx.app.store.eventIndex.get(order.eventPointId)!;
		addTickets(
			ctx,
			order,
			takePlaces(ctx, event, body.places, body.priceCategory, order.tickets.length),
			body.priceCategory,
		);
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/tickets/{ticketId}/remove', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const ticketId = idParam(params, 'ticketId');
		requireHold(order);
		const index = order.tickets.findIndex((t) => t.ticketId === ticketId);
		if (index < 0) throw notFound(`Ticket ${ticketId} in order ${order.id}`);
		const [ticket] = order.tickets.splice(index, 1);
		ctx.app.store.setPlaceState(
			ctx.app.store.eventIndex.get(order.eventPointId)!.placeIndex.get(ticket.placeId)!,
			'free',
		);
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/reserve', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const body = check(reserveBody, ctx.body ?? {});
		requireHold(order);
		order.reservedToDate = ctx.app.clock.now() + (body.reservedMinutes ?? 15) * MINUTE;
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/status', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const { toStatus } = check(statusBody, ctx.body ?? {});
		if (!ORDER_STATUSES.includes(toStatus))
			throw badRequest('toStatus', `must be one of ${ORDER_STATUSES.join(', ')}`);
		const allowed =
			(toStatus === 'refund' && order.status === 'paid') ||
			(toStatus !== 'refund' && order.status === 'reserved_to_time');
		if (!allowed)
			throw conflict(
				'invalid_status_transition',
				`Order ${order.id} cannot go from ${order.status} to ${toStatus}`,
				{ from: order.status, to: toStatus },
			);
		const app = ctx.app;
		if (toStatus === 'paid') {
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
		} else if (toStatus === 'expired') {
			endHold(app, order, 'expired');
		} else {
			refundTickets(
				app,
				order,
				order.tickets.filter((t) => t.status === 'sold').map((t) => t.ticketId),
			);
		}
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/tickets/{ticketId}/status', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const ticketId = idParam(params, 'ticketId');
		const { toStatus } = check(statusBody, ctx.body ?? {});
		if (!TICKET_STATUSES.includes(toStatus))
			throw badRequest('toStatus', `must be one of ${TICKET_STATUSES.join(', ')}`);
		const ticket = order.tickets.find((t) => t.ticketId === ticketId);
		if (!ticket) throw notFound(`Ticket ${ticketId} in order ${order.id}`);
		if (ticket.status !== 'sold')
			throw conflict(
				'invalid_status_transition',
				`Ticket ${ticketId} cannot go from ${ticket.status} to ${toStatus}`,
				{ from: ticket.status, to: toStatus },
			);
		refundTickets(ctx.app, order, [ticketId]);
		return full(ctx, order);
	});

	router.add('GET', '/orders/{id}/payment-data', (ctx, params) => {
		const order = ownOrder(ctx, params);
		if (order.status !== 'reserved_to_time')
			throw conflict(
				'order_not_payable',
				`Order ${order.id} is ${order.status}; payment data exists only for a live hold`,
				{ status: order.status },
			);
		const summary = ctx.app.serialize.order(order, false);
		const total = summary.totalPrice as { amount: number; currency: string };
		return {
			body: {
				type: 'redirect_form',
				url: 'https://pay.sandbox.invalid/checkout',
				method: 'POST',
				fields: {
					merchant: `company-${ctx.company.id}`,
					orderId: String(order.id),
					amount: total.amount.toFixed(2),
					currency: total.currency,
					expiresAt: summary.reservedToDate,
				},
			},
		};
	});

	router.add('GET', '/event-points/{id}/orders', (ctx, params) => {
		const event = linkedEvent(ctx, idParam(params, 'id'), { includeArchived: true });
		const q = listQuery(
			ctx,
			{
				'status[]': z.array(z.string()).optional(),
				'payAt[after]': isoDayOrTime.optional(),
				'order[payAt]': sortDirection.optional(),
			},
			['status'],
		);
		const now = ctx.app.clock.now();
		let orders = [...ctx.app.store.orders.values()].filter(
			(o) =>
				o.companyId === ctx.company.id &&
				o.eventPointId === event.id &&
				(!q['status[]'] || q['status[]'].includes(o.status)) &&
				(q['payAt[after]'] === undefined || (o.payAt !== null && o.payAt >= q['payAt[after]'])) &&
				visibleYet(ctx.app.quirks, o.payAt, now),
		);
		orders = ordered(ctx, orders, (o) => o.payAt, q['order[payAt]']);
		return ctx.app.page(ctx, orders, (o) => ctx.app.serialize.order(o, false), {
			path: `/event-points/${event.id}/orders`,
			type: 'Order',
			iri: (id) => `/api/v2/orders/${id}`,
			page: q.page,
			itemsPerPage: q.itemsPerPage,
		});
	});
}
