import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { changeId } from '../../shared/changes';
import { EventNames } from '../../shared/eventNames';
import { orderRefundRow, toRow, type Row } from '../../shared/tableRows';
import { FETCH_RETRY, type SaleRead } from './fullOrder';
import type { Notification } from './normalize';

/**
 * Output Rows for a Table: the row the poll trigger emits for the same record
 * (shared/tableRows.ts), so both triggers can feed one table upserted by orderId. A refund of an
 * order made through the API, which no poll can list, is a refund row of the order (source
 * eventOrders) with what the order shows refunded so far: upserted by orderId, the last row
 * written is right whichever refund of the order it came from. A row whose record can never be
 * read still comes, built from the notification, with `orderUnavailable` saying why: its null
 * columns are unknown, not zero.
 */
const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the notification itself tells of the record, for a row when the API could not be read. */
function stated(notification: Notification, read: SaleRead): IDataObject {
	const data = isObject(notification.payload.data) ? notification.payload.data : {};
	const eventPoint = notification.eventPointId;
	if (read.source === 'widgetRefunds')
		return {
			id: changeId(data.refundId ?? data.refund_id),
			order: notification.orderId,
			eventPoint,
		};
	return { id: notification.orderId, eventPoint, status: data.status ?? null };
}

function rowOf(notification: Notification, read: SaleRead): Row {
	const record = read.record ?? stated(notification, read);
	if (notification.type === 'refund' && read.source === 'eventOrders')
		return orderRefundRow(record, notification.occurredAt);
	return toRow(record, read.source);
}

/** The row of a sale or refund, with its event name (one read of the event list). */
export async function pushRow(
	this: IWebhookFunctions,
	notification: Notification,
	read: SaleRead,
): Promise<IDataObject> {
	const {
		rows: [row],
		unreadable,
	} = await new EventNames(this, { retry: FETCH_RETRY }).fillWhatCanBeRead([
		rowOf(notification, read),
	]);
	// The sale matters more than its event's name: the row goes without it.
	if (unreadable)
		this.logger.warn(
			`Public Events Trigger: the event name of order ${notification.orderId ?? '?'} ` +
				`could not be read; its row has eventName null: ${unreadable.message}`,
		);
	return read.record ? row : { ...row, orderUnavailable: read.missing ?? null };
}
