import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { changeId, eventOf } from '../../shared/changes';
import type { RecordSource } from '../../shared/ledger/output';
import { isRefunded, type Channel } from '../../shared/ledger/rows';
import { apiRequest } from '../../shared/transport';
import type { Notification } from './normalize';
import { findWidgetRecord, WIDGET_PAGES, type LookupBounds } from './widgetRecord';

/**
 * The answer to the delivery waits for this read (so n8n records the execution before the
 * sender hears 200, and a crash cannot lose the sale): retries and each attempt are kept short,
 * so a hung read cannot hold the sender for n8n's default 5 minutes.
 */
export const FETCH_RETRY = { maxRetries: 2, maxWaitMs: 3_000, timeoutMs: 5_000 };

/**
 * What the API answers when the record is not there or not this key's: no later read changes that.
 * Anything else (5xx, 429, the network, an answer that is not JSON, the credential) may pass.
 */
const FINAL_STATUSES = [400, 403, 404, 410, 422];
export const isFinalAnswer = (error: unknown) =>
	FINAL_STATUSES.includes(Number((error as { httpCode?: string }).httpCode));

export const WIDGET_REFUND_NOTE =
	"A widget refund: the refund (its tickets and amount) is in refund; the order's own " +
	'record is in the Public Events node, Widget > Get Many Orders.';

/**
 * A sale or refund as the API lists it: `record` is the order (GET /orders/{id}, or the widget
 * order in GET /widget-orders) or, for a widget refund, the refund (GET /widget-orders-refunds).
 * `source` names the list as the poll trigger's items and rows do; `missing` says why there is no
 * record, and `later` that a read later may find it (the sender is asked to deliver it again).
 */
export interface SaleRead {
	source: RecordSource;
	record?: IDataObject;
	missing?: string;
	later?: boolean;
}

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const dataOf = (notification: Notification) =>
	isObject(notification.payload.data) ? notification.payload.data : {};

/** Widget orders are numbered apart from API orders (the sandbox: 800001… against 700001…). */
export function isWidget(payload: IDataObject): boolean {
	const data = isObject(payload.data) ? payload.data : {};
	return (data.source ?? payload.source) === 'widget';
}

export const widgetSource = (type: 'sale' | 'refund'): RecordSource =>
	type === 'sale' ? 'widgetSales' : 'widgetRefunds';

/** Where a sale or refund is listed, from the notification alone. */
export function sourceOf(notification: Notification): RecordSource {
	const type = notification.type === 'refund' ? 'refund' : 'sale';
	return isWidget(notification.payload) ? widgetSource(type) : 'eventOrders';
}

/** The ticket ids a refund notification names, if any. */
export function namedTickets(notification: Notification): string[] {
	const data = dataOf(notification);
	const ids = data.ticketIds ?? data.ticket_ids ?? notification.payload.ticketIds;
	return (Array.isArray(ids) ? ids : [])
		.map((id) => changeId(id))
		.filter((id): id is string => id !== null);
}

const ticketsOf = (order: IDataObject) =>
	(Array.isArray(order.tickets) ? (order.tickets as unknown[]) : []).filter(isObject);

/**
 * Whether an order as read shows the sale or refund a notification reports. A sale: the order is
 * paid (or refunded since: it was sold). A refund: the tickets it names are refunded (ids the
 * order does not hold are not counted: a sender may name them otherwise), or, naming none, the
 * order has refunded tickets or is refunded. `tickets`: the refund's tickets, sorted.
 */
export function orderShows(
	type: 'sale' | 'refund',
	order: IDataObject,
	named: string[],
): { tickets: string[] } | { not: string } {
	const status = String(order.status ?? '') || 'without a status';
	const id = String(changeId(order.id) ?? '?');
	if (type === 'sale')
		return status === 'paid' || status === 'refund'
			? { tickets: [] }
			: { not: `order ${id} is ${status}, not paid` };
	const held = new Map(ticketsOf(order).map((t) => [changeId(t.ticketId) ?? '', isRefunded(t)]));
	const refunded = [...held].filter(([, back]) => back).map(([ticket]) => ticket);
	const known = named.filter((ticket) => held.has(ticket));
	if (known.length > 0) {
		const open = known.filter((ticket) => !held.get(ticket));
		return open.length === 0
			? { tickets: [...new Set(known)].sort() }
			: { not: `ticket ${open.join(', ')} of order ${id} is not refunded` };
	}
	return refunded.length > 0 || status === 'refund'
		? { tickets: refunded.sort() }
		: { not: `order ${id} is ${status} with no refunded ticket` };
}

export async function readWidget(
	context: IWebhookFunctions,
	notification: Notification,
	type: 'sale' | 'refund',
	orderId: string,
	bounds?: LookupBounds,
): Promise<SaleRead> {
	const data = dataOf(notification);
	const found = await findWidgetRecord.call(
		context,
		{
			type,
			orderId,
			refundId: changeId(data.refundId ?? data.refund_id ?? notification.payload.refundId),
			ticketIds: namedTickets(notification),
			occurredAt: notification.occurredAt,
		},
		{ retry: FETCH_RETRY },
		bounds,
	);
	// Not listed yet: a later delivery may find it. Behind more records than one lookup reads: a
	// later one finds more in front of it, so the run starts now, saying so.
	return 'record' in found
		? { source: widgetSource(type), record: found.record }
		: { source: widgetSource(type), missing: found.missing, later: found.beyond !== true };
}

async function readOrder(
	context: IWebhookFunctions,
	notification: Notification,
	type: 'sale' | 'refund',
	orderId: string,
): Promise<SaleRead> {
	const source = 'eventOrders';
	const order = await apiRequest
		.call(context, 'GET', `/orders/${orderId}`, {}, { retry: FETCH_RETRY })
		.catch(async (error: unknown) =>
			(error as { httpCode?: string }).httpCode === '404' ? undefined : await Promise.reject(error),
		);
	// An API order of the same number in another event is not this sale: a widget order may be.
	const otherEvent =
		isObject(order) &&
		notification.eventPointId !== null &&
		eventOf(order) !== notification.eventPointId;
	if (order !== undefined && !otherEvent) {
		if (!isObject(order) || changeId(order.id) !== orderId)
			return { source, missing: `GET /orders/${orderId} answered another record` };
		// A read a moment after the payment or refund may not show it yet.
		const shown = orderShows(type, order, namedTickets(notification));
		if ('not' in shown) return { source, record: order, missing: shown.not, later: true };
		return { source, record: order };
	}
	// A sender that does not say "widget": a widget order is the other order this can be (one look,
	// not looked for again: most likely it is another company's order).
	const widget = await readWidget(context, notification, type, orderId, {
		pages: WIDGET_PAGES,
		waitsMs: [],
	});
	if (widget.record) return widget;
	return {
		source,
		missing:
			`GET /orders/${orderId} answered 404, and ${widget.missing ?? ''}: the order is not ` +
			`readable with this key (another company's order, or a widget order the notification ` +
			'does not say is one)',
	};
}

/**
 * The record of a sale or refund, read from the API. A record that can never be read (no numeric
 * id, a 404 or 403) is `missing` and the delivery starts its run saying so; one a later read may
 * find (the API failing, a widget record not listed yet, an order not showing the payment yet) is
 * `later` too, and the sender is asked to deliver it again.
 */
export async function readSale(
	this: IWebhookFunctions,
	notification: Notification,
): Promise<SaleRead> {
	const type = notification.type === 'refund' ? 'refund' : 'sale';
	const { orderId } = notification;
	const source = sourceOf(notification);
	if (orderId === null || !/^\d+$/.test(orderId)) {
		return {
			source,
			missing:
				`The notification carries no numeric order ID` +
				`${orderId === null ? '' : ` (got "${orderId}")`}`,
		};
	}
	try {
		// GET /orders/{id} answers 404 for a widget order, or, should the numbers meet, another order
		// (told by its event, when the notification names one).
		if (source !== 'eventOrders') return await readWidget(this, notification, type, orderId);
		return await readOrder(this, notification, type, orderId);
	} catch (error) {
		return { source, missing: (error as Error).message, later: !isFinalAnswer(error) };
	}
}

/** Where a sale or refund was made, by the list its record is in. */
export const channelOf = (source: RecordSource): Channel =>
	source === 'eventOrders' ? 'api' : 'widget';

/**
 * The fields Full Records adds to a sale or refund: `channel`, `order` (API and widget orders) or
 * `refund` (widget refunds), and `orderUnavailable`, null when the order is there, else why not.
 */
export function recordFields(read: SaleRead): IDataObject {
	const channel = channelOf(read.source);
	if (read.source === 'widgetRefunds')
		return {
			channel,
			order: null,
			refund: read.record ?? null,
			orderUnavailable: read.record ? WIDGET_REFUND_NOTE : read.missing,
		};
	return read.record
		? { channel, order: read.record, orderUnavailable: null }
		: { channel, order: null, orderUnavailable: read.missing ?? null };
}
