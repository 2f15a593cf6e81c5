import { z } from 'zod';

import type { Ctx } from '../context';
import { addPlaces, extendHold, openHold, removeTicket } from '../domain/holds';
import { refundTicket, setOrderStatus } from '../domain/sales';
import { badRequest, conflict, notFound, type Router } from '../http';
import type { Order, WidgetOrder } from '../model';
import { visibleYet } from '../quirks';
import { listedYet, withTicketPlaceIds } from '../readBackQuirks';
import { check, isoDayOrTime, numericId, sortDirection } from '../validate';
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

const ORDER_STATUSES = ['paid', 'refund', 'expired'] as const;
const TICKET_STATUSES = ['refund'];

function ownOrder(ctx: Ctx, params: Record<string, string>): Order {
	const id = idParam(params, 'id');
	const order = ctx.app.store.orders.get(id);
	if (!order || order.companyId !== ctx.company.id) throw notFound(`Order ${id}`);
	return order;
}

const full = (ctx: Ctx, order: Order) =>
	ctx.app.item(
		'Order',
		`/orders/${order.id}`,
		withTicketPlaceIds(ctx.app.quirks, ctx.app.serialize.order(order, true)),
	);

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
		const order = openHold(ctx.app, { ...body, companyId: ctx.company.id, event });
		return {
			status: 201,
			...ctx.app.item('Order', `/orders/${order.id}`, ctx.app.serialize.order(order, false)),
		};
	});

	router.add('GET', '/orders/{id}', (ctx, params) => full(ctx, ownOrder(ctx, params)));

	router.add('PUT', '/orders/{id}/add-place', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const body = check(addPlaceBody, ctx.body ?? {});
		addPlaces(ctx.app, order, body.places, body.priceCategory);
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/tickets/{ticketId}/remove', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const ticketId = idParam(params, 'ticketId');
		removeTicket(ctx.app, order, ticketId);
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/reserve', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const body = check(reserveBody, ctx.body ?? {});
		extendHold(ctx.app, order, body.reservedMinutes);
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/status', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const { toStatus } = check(statusBody, ctx.body ?? {});
		const status = ORDER_STATUSES.find((known) => known === toStatus);
		if (!status) throw badRequest('toStatus', `must be one of ${ORDER_STATUSES.join(', ')}`);
		setOrderStatus(ctx.app, order, status);
		return full(ctx, order);
	});

	router.add('PUT', '/orders/{id}/tickets/{ticketId}/status', (ctx, params) => {
		const order = ownOrder(ctx, params);
		const ticketId = idParam(params, 'ticketId');
		const { toStatus } = check(statusBody, ctx.body ?? {});
		if (!TICKET_STATUSES.includes(toStatus))
			throw badRequest('toStatus', `must be one of ${TICKET_STATUSES.join(', ')}`);
		refundTicket(ctx.app, order, ticketId);
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
		const live = order.tickets.filter((t) => t.status !== 'refund');
		const total = ctx.app.serialize.money(live.reduce((n, t) => n + t.discountPrice, 0));
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
		const orders = [...ctx.app.store.orders.values()].filter(
			(o) =>
				o.companyId === ctx.company.id &&
				o.eventPointId === event.id &&
				(!q['status[]'] || q['status[]'].includes(o.status)) &&
				(q['payAt[after]'] === undefined || (o.payAt !== null && o.payAt >= q['payAt[after]'])) &&
				visibleYet(ctx.app.quirks, o.payAt, now) &&
				listedYet(ctx.app.quirks, o.createdAt, now),
		);
		// The widget-in-event-lists quirk: the event's widget orders are listed here too.
		const widget = ctx.app.quirks.widgetInEventLists
			? ctx.app.store.widgetOrders.filter(
					(o) =>
						o.companyId === ctx.company.id &&
						o.eventPointId === event.id &&
						(!q['status[]'] || q['status[]'].includes(o.status)) &&
						(q['payAt[after]'] === undefined || o.payAt >= q['payAt[after]']) &&
						visibleYet(ctx.app.quirks, o.payAt, now),
				)
			: [];
		const listed = ordered<Order | WidgetOrder>(
			ctx,
			[...orders, ...widget],
			(o) => o.payAt,
			q['order[payAt]'],
		);
		const isApiOrder = (o: Order | WidgetOrder): o is Order => 'reservedToDate' in o;
		const serialize = (o: Order | WidgetOrder) =>
			isApiOrder(o) ? ctx.app.serialize.order(o, false) : ctx.app.serialize.widgetOrder(o, false);
		return ctx.app.page(ctx, listed, serialize, {
			path: `/event-points/${event.id}/orders`,
			type: 'Order',
			iri: (id) => `/api/v2/orders/${id}`,
			page: q.page,
			itemsPerPage: q.itemsPerPage,
		});
	});
}
