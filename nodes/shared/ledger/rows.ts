import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime, eventOf } from '../changes';

/**
 * The sales ledger: one row per sale and one row per refund, whatever the channel, each keyed
 * by `key` and never changed by a later sale or refund. A sale row holds what the buyer paid
 * (every ticket, refunded ones too); a refund row holds what went back, as a negative amount. So
 * the sum of `amount` over an order, an event or a day is the net takings, and an order's status
 * is derived: refunded when its refund rows take back all its tickets.
 *
 * Keys name the channel, so a widget order and an API order of one number never meet:
 * - `sale:widget:<order>`, `sale:api:<order>`;
 * - `refund:widget:<refund>`: a widget refund is a record of the API with its own id, its tickets
 *   and its amount; one order can have several;
 * - `refund:api:<order>:<ticket>`: the API lists no refunds of its own orders, only each ticket's
 *   status, so a refund of an API order is one row per ticket taken back, whichever request or
 *   notification took it back (one ticket is refunded once). An order refunded whole whose tickets
 *   could not be read is `refund:api:<order>:all`.
 */
export type Channel = 'widget' | 'api';
export type RowType = 'sale' | 'refund';

export interface LedgerRow extends IDataObject {
	key: string;
	type: RowType;
	channel: Channel;
	orderId: string | null;
	eventPointId: string | null;
	eventName: string | null;
	/** When the sale was paid or the refund made (ISO); null when the service states no time. */
	at: string | null;
	/** Tickets sold, or taken back. */
	tickets: number | null;
	/** Paid (positive) or given back (negative). */
	amount: number | null;
	currency: string | null;
	/** The widget buyer's address (sale rows of widget orders). */
	email: string | null;
	/** A widget refund's own id. */
	refundId: string | null;
	/** The tickets a refund took back, comma-separated. */
	ticketIds: string | null;
}

/** Every column, in the order a spreadsheet shows them; the table's own columns are these. */
export const LEDGER_COLUMNS = [
	{ name: 'key', type: 'string' },
	{ name: 'type', type: 'string' },
	{ name: 'channel', type: 'string' },
	{ name: 'orderId', type: 'string' },
	{ name: 'eventPointId', type: 'string' },
	{ name: 'eventName', type: 'string' },
	{ name: 'at', type: 'date' },
	{ name: 'tickets', type: 'number' },
	{ name: 'amount', type: 'number' },
	{ name: 'currency', type: 'string' },
	{ name: 'email', type: 'string' },
	{ name: 'refundId', type: 'string' },
	{ name: 'ticketIds', type: 'string' },
] as const;

export type Column = (typeof LEDGER_COLUMNS)[number]['name'];

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) =>
	typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
const iso = (value: unknown) => {
	const ms = changeTime(value);
	return ms === undefined ? null : new Date(ms).toISOString();
};
const number = (value: unknown) => {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof n === 'number' && Number.isFinite(n) ? n : null;
};
/** Money in cents' precision: sums of prices stay exact (0.1 + 0.2 is 0.3). */
const cents = (n: number) => Math.round(n * 100) / 100;

/**
 * An amount as the service gives it: a number, numeric text, or `{ amount, currency }` (the spec
 * shows no type for an order's totals; event prices are objects). Null when there is none.
 */
export function moneyOf(value: unknown): { amount: number | null; currency: string | null } {
	if (isObject(value)) return { amount: number(value.amount), currency: text(value.currency) };
	return { amount: number(value), currency: null };
}

/** The order's own tickets as objects. */
export const ticketsOf = (order: IDataObject): IDataObject[] =>
	(Array.isArray(order.tickets) ? (order.tickets as unknown[]) : []).filter(isObject);

const REFUNDED = new Set(['refund', 'refunded', 'returned', 'cancelled', 'canceled']);
export const isRefunded = (ticket: IDataObject) =>
	REFUNDED.has(String(ticket.status ?? '').toLowerCase());

/** What one ticket cost the buyer: its discounted price, else its price. */
const priceOf = (ticket: IDataObject) => {
	const discounted = moneyOf(ticket.discountPrice);
	return discounted.amount === null ? moneyOf(ticket.price) : discounted;
};

/** What the tickets cost together, with their currency; null when one has no price. */
function sumOf(tickets: IDataObject[]): { amount: number | null; currency: string | null } {
	const prices = tickets.map(priceOf);
	if (prices.length === 0 || prices.some((p) => p.amount === null))
		return { amount: null, currency: null };
	const amount = cents(prices.reduce((sum, p) => sum + (p.amount ?? 0), 0));
	return { amount, currency: prices.find((p) => p.currency)?.currency ?? null };
}

const orderCurrency = (order: IDataObject) =>
	moneyOf(order.totalPrice).currency ?? text(order.currency);

export function saleKey(channel: Channel, orderId: string | null): string {
	return `sale:${channel}:${orderId ?? ''}`;
}

export function refundKey(
	channel: Channel,
	parts: { refundId?: string | null; orderId?: string | null; ticketId?: string | null },
): string {
	if (channel === 'widget') return `refund:widget:${parts.refundId ?? ''}`;
	return `refund:api:${parts.orderId ?? ''}:${parts.ticketId ?? 'all'}`;
}

/**
 * The sale row of a paid order, widget or API. The amount is what every ticket cost (refunded
 * ones too: refunds are rows of their own), read from the tickets when the record has them and
 * each has a price; else the order's total. An order's total alone (an event's order list carries
 * no tickets) may already be less the refunds on some services: the reconcile, which reads the
 * order whole, sets it right.
 */
export function saleRow(order: IDataObject, channel: Channel): LedgerRow {
	const tickets = ticketsOf(order);
	const fromTickets = sumOf(tickets);
	const total = moneyOf(order.totalPrice);
	const amount = fromTickets.amount ?? total.amount;
	const orderId = changeId(order.id);
	return {
		key: saleKey(channel, orderId),
		type: 'sale',
		channel,
		orderId,
		eventPointId: eventOf(order),
		eventName: null,
		at: iso(order.payAt ?? order.paidAt),
		tickets: tickets.length > 0 ? tickets.length : number(order.ticketsCount),
		amount,
		currency: total.currency ?? fromTickets.currency ?? text(order.currency),
		email: text(order.email),
		refundId: null,
		ticketIds: null,
	};
}

/** A widget refund as the API lists it: its own id, order, tickets and amount. */
export function widgetRefundRow(refund: IDataObject, order?: IDataObject): LedgerRow {
	const ticketIds = (Array.isArray(refund.tickets) ? refund.tickets : [])
		.map((ticket) => changeId(isObject(ticket) ? (ticket.ticketId ?? ticket.id) : ticket))
		.filter((id): id is string => id !== null);
	let money = moneyOf(refund.amount);
	if (money.amount === null && order) {
		const taken = ticketsOf(order).filter((t) => ticketIds.includes(String(changeId(t.ticketId))));
		money = sumOf(taken);
	}
	const refundId = changeId(refund.id);
	return {
		key: refundKey('widget', { refundId }),
		type: 'refund',
		channel: 'widget',
		orderId: changeId(refund.order ?? refund.orderId),
		eventPointId: eventOf(refund) ?? (order ? eventOf(order) : null),
		eventName: null,
		at: iso(refund.refundedAt),
		tickets: ticketIds.length > 0 ? ticketIds.length : number(refund.ticketsCount),
		amount: money.amount === null ? null : -Math.abs(money.amount),
		currency:
			money.currency ?? (order ? (orderCurrency(order) ?? sumOf(ticketsOf(order)).currency) : null),
		email: null,
		refundId,
		ticketIds: ticketIds.length > 0 ? ticketIds.join(',') : null,
	};
}

/**
 * The refund rows of an order made through the API, read whole (GET /orders/{id}): one per ticket
 * taken back, with the ticket's own time when the service states one (`refundedAt` on the ticket,
 * or the order's once refunded whole), else `at`: when the refund was noticed. An order refunded
 * whole whose tickets the answer lacks is one row of its total.
 */
export function apiRefundRows(order: IDataObject, at: string | null = null): LedgerRow[] {
	const orderId = changeId(order.id);
	const tickets = ticketsOf(order);
	const whole = String(order.status ?? '').toLowerCase() === 'refund';
	const base = {
		type: 'refund' as const,
		channel: 'api' as const,
		orderId,
		eventPointId: eventOf(order),
		eventName: null,
		email: null,
		refundId: null,
	};
	const orderTime = iso(order.refundedAt) ?? at;
	if (tickets.length === 0) {
		if (!whole) return [];
		const total = moneyOf(order.totalPrice);
		return [
			{
				...base,
				key: refundKey('api', { orderId }),
				at: orderTime,
				tickets: number(order.ticketsCount),
				amount: total.amount === null ? null : -Math.abs(total.amount),
				currency: orderCurrency(order),
				ticketIds: null,
			},
		];
	}
	return tickets
		.filter((ticket) => whole || isRefunded(ticket))
		.map((ticket) => {
			const ticketId = changeId(ticket.ticketId ?? ticket.id);
			const price = priceOf(ticket);
			return {
				...base,
				key: refundKey('api', { orderId, ticketId }),
				at: iso(ticket.refundedAt) ?? orderTime,
				tickets: 1,
				amount: price.amount === null ? null : -Math.abs(price.amount),
				currency: price.currency ?? orderCurrency(order),
				ticketIds: ticketId,
			};
		});
}

/** Every row an order read whole gives: its sale, and its refunds so far. */
export function apiOrderRows(order: IDataObject, at: string | null = null): LedgerRow[] {
	return [saleRow(order, 'api'), ...apiRefundRows(order, at)];
}

/**
 * The totals an event's list may show for a widget order: what was paid (as the widget lists it,
 * or what its tickets cost), or what is left after a partial refund (a list may show either). Not
 * 0 of an order refunded whole: two such orders of one number and second would be one sale.
 */
export function widgetTotals(widget: IDataObject): number[] {
	const tickets = ticketsOf(widget);
	const left = tickets.filter((ticket) => !isRefunded(ticket));
	const totals = [
		moneyOf(widget.totalPrice).amount,
		sumOf(tickets).amount,
		left.length > 0 && left.length < tickets.length ? sumOf(left).amount : null,
	];
	return [...new Set(totals.filter((amount): amount is number => amount !== null))];
}

/**
 * Whether an order of an event's list is the same sale as a widget order: same number, event,
 * payment time and total (widgetTotals). A service may list widget orders among the event's orders
 * too; one that does not, or whose numbers only meet, gives two sales.
 */
export function sameSale(widget: IDataObject, listed: IDataObject): boolean {
	const time = (o: IDataObject) => changeTime(o.payAt ?? o.paidAt);
	const totals = widgetTotals(widget);
	const listedTotal = moneyOf(listed.totalPrice).amount;
	return (
		changeId(widget.id) === changeId(listed.id) &&
		eventOf(widget) === eventOf(listed) &&
		time(widget) !== undefined &&
		time(widget) === time(listed) &&
		(listedTotal === null || totals.length === 0 || totals.includes(listedTotal))
	);
}
