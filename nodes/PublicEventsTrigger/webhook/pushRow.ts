import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { changeId, changeTime } from '../../shared/changes';
import { EventNames } from '../../shared/eventNames';
import { rowsOf } from '../../shared/ledger/output';
import { apiRefundRows, type LedgerRow } from '../../shared/ledger/rows';
import { FETCH_RETRY, namedTickets, type SaleRead } from './fullOrder';
import type { Notification } from './normalize';

/**
 * Output Ledger Rows: the rows the poll trigger, the node's lists and the reconcile make of the
 * same record (shared/ledger/rows.ts), so all of them feed one table upserted by key. A sale is its
 * sale row; a widget refund its refund row; a refund of an order made through the API is a row per
 * ticket the order shows refunded (all of them so far: a row written twice is one row), timed by
 * the ticket when the service states it, else by the notification. A row whose record can never be
 * read still comes, built from the notification, with `orderUnavailable` saying why: its null
 * columns are unknown, not zero, and it is not the ledger's (write it elsewhere, or not at all).
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

/**
 * A refund of an API order: the rows of the tickets the notification names (of every refunded one
 * when it names none), timed by the ticket's refund time, else the notification's, else now: a
 * later refund's delivery does not re-date an earlier one's rows.
 */
function rowsFor(notification: Notification, read: SaleRead): LedgerRow[] {
	const record = read.record ?? stated(notification, read);
	if (notification.type === 'refund' && read.source === 'eventOrders') {
		const at = changeTime(notification.occurredAt) ?? Date.now();
		const named = new Set(namedTickets(notification));
		const refunds = apiRefundRows(record, new Date(at).toISOString()).filter(
			(row) => named.size === 0 || named.has(String(row.ticketIds)),
		);
		return refunds.length > 0 ? refunds : rowsOf(record, read.source).slice(0, 1);
	}
	return rowsOf(record, read.source).slice(0, 1);
}

/** The rows of a sale or refund, with their event name (one read of the event list). */
export async function pushRows(
	this: IWebhookFunctions,
	notification: Notification,
	read: SaleRead,
): Promise<IDataObject[]> {
	const { rows, unreadable } = await new EventNames(this, {
		retry: FETCH_RETRY,
	}).fillWhatCanBeRead(rowsFor(notification, read));
	// The sale matters more than its event's name: the row goes without it.
	if (unreadable)
		this.logger.warn(
			`Public Events Trigger: the event name of order ${notification.orderId ?? '?'} ` +
				`could not be read; its row has eventName null: ${unreadable.message}`,
		);
	return read.record
		? rows
		: rows.map((row) => ({ ...row, orderUnavailable: read.missing ?? null }));
}
