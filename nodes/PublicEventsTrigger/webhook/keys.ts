import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { changeId } from '../../shared/changes';
import { dedupeKey, eventFingerprint, stableJson } from '../../shared/dedupeKey';
import { isRefunded } from '../../shared/ledger/rows';
import { isWidget } from './fullOrder';
import type { Notification } from './normalize';
import type { Security } from './verify';

/**
 * Two names, for two jobs:
 * - a delivery's keys tell a copy of one delivery (a retry, a replay) from a new one, inside this
 *   process (dedupe.ts);
 * - an item's `dedupeKey` names the real change it reports, as the poll trigger names it, so a
 *   destination keyed by it holds each change once across retries, restarts, processes and both
 *   triggers.
 */

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const digest = (value: unknown) =>
	createHash('sha256').update(stableJson(value)).digest('base64url').slice(0, 22);

const text = (value: unknown) =>
	(typeof value === 'string' && value.trim() !== '') || typeof value === 'number'
		? String(value).trim()
		: undefined;

/**
 * What tells one delivery from another, from what the check vouches for only:
 * - the body, key order and spacing aside: a retry sends the same notification again;
 * - a delivery id the sender declares as one (`deliveryId` in the body; the header too under
 *   Header Token, where the token vouches for the whole request). Under Signature the header is
 *   outside the HMAC: anyone holding one signed delivery could send it under the id of a delivery
 *   still to come and have that one taken for a copy. A body's `id` is not one either: some
 *   senders put the order's or the event's id there, and then every refund of one order, every
 *   update of one event, would look alike.
 */
export function deliveryKeys(
	security: Security,
	notification: Notification,
	headerDeliveryId: string | undefined,
): string[] {
	const { payload, type } = notification;
	const declared =
		text(payload.deliveryId) ??
		text(payload.delivery_id) ??
		(security === 'headerToken' ? text(headerDeliveryId) : undefined);
	const keys = [`body:${digest(payload)}`];
	if (declared !== undefined) keys.push(`delivery:${type}:${declared}`);
	return keys;
}

function ticketIds(item: IDataObject, data: IDataObject): Array<string | number> | undefined {
	const named = data.ticketIds ?? data.ticket_ids ?? item.ticketIds;
	if (Array.isArray(named)) return named.map((id) => changeId(id) ?? String(id));
	const tickets = isObject(item.order) ? item.order.tickets : undefined;
	if (!Array.isArray(tickets)) return undefined;
	return tickets
		.filter((ticket): ticket is IDataObject => isObject(ticket) && isRefunded(ticket))
		.map((ticket) => changeId(ticket.ticketId) ?? '');
}

/**
 * The item's `dedupeKey` (nodes/shared/dedupeKey.ts): `sale:<channel>:<order>`,
 * `refund:widget:<refund>` or `refund:api:<order>:<tickets>`, `newEvent:<event>`,
 * `eventUpdated:<event>:<fingerprint>`. The channel is the item's (the list its record was read
 * from), else the notification's `source`. An update
 * is fingerprinted by the notification itself (the event is not read here): its retries share the
 * key, two updates do not. A notification that names no record, or of a kind the node cannot map,
 * is keyed by its body.
 */
export function itemKey(notification: Notification, item: IDataObject): string {
	const { type, payload, orderId, eventPointId } = notification;
	const data = isObject(payload.data) ? payload.data : payload;
	const byBody = `${type}:#${digest(payload)}`;
	if (type === 'sale' || type === 'refund') {
		if (orderId === null) return byBody;
		const refund = isObject(item.refund) ? item.refund : {};
		const refundId = changeId(data.refundId ?? data.refund_id ?? refund.id ?? item.refundId);
		const channel = item.channel === 'widget' || item.channel === 'api' ? item.channel : undefined;
		return dedupeKey({
			type,
			channel: channel ?? (isWidget(payload) ? 'widget' : 'api'),
			orderId,
			refundId,
			ticketIds: ticketIds(item, data),
		});
	}
	if ((type === 'newEvent' || type === 'eventUpdated') && eventPointId !== null)
		return dedupeKey({ type, eventPointId, fingerprint: eventFingerprint(payload) });
	return byBody;
}
