import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { apiRequest } from '../../shared/transport';
import type { Notification } from './normalize';

/**
 * The answer to the delivery waits for this read (so n8n records the execution before the
 * sender hears 200, and a crash cannot lose the sale): retries and each attempt are kept short,
 * so a hung read cannot hold the sender for n8n's default 5 minutes.
 */
export const FETCH_RETRY = { maxRetries: 2, maxWaitMs: 3_000, timeoutMs: 5_000 };

export const WIDGET_NOTE =
	'A widget sale: GET /orders/{id} does not serve widget orders. Its tickets ' +
	'and barcodes are in the Public Events node, Widget > Get Many Orders.';

const unavailable = (reason: string): IDataObject => ({ order: null, orderUnavailable: reason });

/** Widget orders are numbered apart from API orders (the sandbox: 800001… against 700001…). */
export function isWidget(payload: IDataObject): boolean {
	const data = (
		typeof payload.data === 'object' && payload.data !== null ? payload.data : {}
	) as IDataObject;
	return (data.source ?? payload.source) === 'widget';
}

/** The order fields of an item whose order was read already (Security None confirms with it). */
export function orderFields(
	notification: Notification,
	order: IDataObject | undefined,
): IDataObject {
	if (notification.type !== 'sale' && notification.type !== 'refund') return {};
	return order ? { order, orderUnavailable: null } : unavailable(WIDGET_NOTE);
}

/**
 * The order of a sale or refund, with its tickets and barcodes. The delivery was genuine and
 * is answered 200 whatever happens here, so a failure is a field on the item, not a failed
 * webhook: the workflow can branch on `orderUnavailable`.
 */
export async function fullOrder(
	this: IWebhookFunctions,
	notification: Notification,
): Promise<IDataObject> {
	if (notification.type !== 'sale' && notification.type !== 'refund') return {};
	const { payload, orderId } = notification;
	// GET /orders/{id} answers 404 for a widget order, or, should the numbers meet, another order.
	if (isWidget(payload)) return unavailable(WIDGET_NOTE);
	if (orderId === null || !/^\d+$/.test(String(orderId))) {
		return unavailable(
			`The notification carries no numeric order ID` +
				`${orderId === null ? '' : ` (got "${orderId}")`}`,
		);
	}
	try {
		const order = await apiRequest.call(
			this,
			'GET',
			`/orders/${orderId}`,
			{},
			{ retry: FETCH_RETRY },
		);
		return { order: order as IDataObject, orderUnavailable: null };
	} catch (error) {
		const status = (error as { httpCode?: string }).httpCode;
		if (status === '404') {
			return unavailable(
				`GET /orders/${orderId} answered 404: the order is not readable ` +
					`with this key (a widget sale, or another company's order)`,
			);
		}
		return unavailable((error as Error).message);
	}
}
