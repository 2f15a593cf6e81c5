import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { changeId } from '../../shared/changes';
import type { RowSource } from '../../shared/rows';
import { apiRequest } from '../../shared/transport';
import type { Notification } from './normalize';
import { findWidgetRecord } from './widgetRecord';

/**
 * The answer to the delivery waits for this read (so n8n records the execution before the
 * sender hears 200, and a crash cannot lose the sale): retries and each attempt are kept short,
 * so a hung read cannot hold the sender for n8n's default 5 minutes.
 */
export const FETCH_RETRY = { maxRetries: 2, maxWaitMs: 3_000, timeoutMs: 5_000 };

export const WIDGET_REFUND_NOTE =
	"A widget refund: the refund (its tickets and amount) is in refund; the order's own " +
	'record is in the Public Events node, Widget > Get Many Orders.';

/**
 * A sale or refund as the API lists it: `record` is the order (GET /orders/{id}, or the widget
 * order in GET /widget-orders) or, for a widget refund, the refund (GET /widget-orders-refunds).
 * `source` names the list as the poll trigger's items and rows do; `missing` says why there is no
 * record.
 */
export interface SaleRead {
	source: RowSource;
	record?: IDataObject;
	missing?: string;
}

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** Widget orders are numbered apart from API orders (the sandbox: 800001… against 700001…). */
export function isWidget(payload: IDataObject): boolean {
	const data = isObject(payload.data) ? payload.data : {};
	return (data.source ?? payload.source) === 'widget';
}

const widgetSource = (type: 'sale' | 'refund'): RowSource =>
	type === 'sale' ? 'widgetSales' : 'widgetRefunds';

/**
 * Where a sale or refund is listed, from the notification alone (a record read already, such as
 * the one Security None checks the delivery against, keeps it).
 */
export function sourceOf(notification: Notification): RowSource {
	const type = notification.type === 'refund' ? 'refund' : 'sale';
	return isWidget(notification.payload) ? widgetSource(type) : 'eventOrders';
}

async function readWidget(
	context: IWebhookFunctions,
	notification: Notification,
	type: 'sale' | 'refund',
	orderId: string,
	listingWaitsMs?: number[],
): Promise<SaleRead> {
	const data = isObject(notification.payload.data) ? notification.payload.data : {};
	const found = await findWidgetRecord.call(
		context,
		{
			type,
			orderId,
			refundId: changeId(data.refundId ?? data.refund_id ?? notification.payload.refundId),
			occurredAt: notification.occurredAt,
		},
		{ retry: FETCH_RETRY },
		listingWaitsMs,
	);
	return { source: widgetSource(type), ...found };
}

/**
 * The record of a sale or refund, read from the API. The delivery was genuine and starts its run
 * whatever happens here, so a failure is `missing`, not a failed webhook.
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
		// GET /orders/{id} answers 404 for a widget order, or, should the numbers meet, another order.
		if (source !== 'eventOrders') return await readWidget(this, notification, type, orderId);
		const order = await apiRequest
			.call(this, 'GET', `/orders/${orderId}`, {}, { retry: FETCH_RETRY })
			.catch(async (error: unknown) =>
				(error as { httpCode?: string }).httpCode === '404'
					? undefined
					: await Promise.reject(error),
			);
		if (order !== undefined) {
			if (!isObject(order) || changeId(order.id) !== orderId)
				return { source, missing: `GET /orders/${orderId} answered another record` };
			return { source, record: order };
		}
		// A sender that does not say "widget": a widget order is the other order this can be (one look:
		// most likely it is another company's order).
		const widget = await readWidget(this, notification, type, orderId, []);
		if (widget.record) return widget;
		return {
			source,
			missing:
				`GET /orders/${orderId} answered 404, and ${widget.missing ?? ''}: the order is not ` +
				`readable with this key (another company's order, or one not listed yet)`,
		};
	} catch (error) {
		return { source, missing: (error as Error).message };
	}
}

/**
 * The fields Full Records adds to a sale or refund: `order` (API and widget orders) or `refund`
 * (widget refunds), and `orderUnavailable`, null when the order is there, else why not.
 */
export function recordFields(read: SaleRead): IDataObject {
	if (read.source === 'widgetRefunds')
		return {
			order: null,
			refund: read.record ?? null,
			orderUnavailable: read.record ? WIDGET_REFUND_NOTE : read.missing,
		};
	return read.record
		? { order: read.record, orderUnavailable: null }
		: { order: null, orderUnavailable: read.missing ?? null };
}
