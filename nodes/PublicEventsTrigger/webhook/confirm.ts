import { sleep, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import { changeId, changeTime } from '../../shared/changes';
import { dedupeKey, eventFingerprint } from '../../shared/dedupeKey';
import { apiRequest } from '../../shared/transport';
import { readListPage } from '../../shared/transport/listEnvelope';
import { FETCH_RETRY, isWidget } from './fullOrder';
import type { Notification } from './normalize';

/**
 * Security None: anyone who finds the URL can post to it, so a delivery is a claim, checked
 * with the API before anything starts (one GET, with the Public Events API credential):
 * - sale: GET /orders/{id} is paid (or refunded since: it was sold);
 * - refund: GET /orders/{id} is refunded, or has refunded tickets;
 * - widget sale or refund: the record is on the latest page of /widget-orders or
 *   /widget-orders-refunds (GET /orders/{id} does not serve widget orders);
 * - new event, event update: GET /event-points/{id} answers.
 * The key that dedupes is the item's `dedupeKey`, made of what the API answered, never of the
 * sender's delivery id (a forger picks a new one for every post): a forged repeat of a confirmed
 * sale is a duplicate, and an update is fingerprinted without the fields that move with every
 * sale, so forged update claims start one run per real change of the event.
 */
export type Confirmation =
	| { status: 'confirmed'; key: string; order?: IDataObject }
	/** The API does not show it (yet): nothing starts. */
	| { status: 'unconfirmed'; reason: string }
	/** Nothing to check it with (no numeric ID, a kind the API cannot show): nothing starts. */
	| { status: 'uncheckable'; reason: string }
	/** No answer to judge by (network, 5xx, 429, the credential). */
	| { status: 'unavailable'; reason: string };

/**
 * A sale pushed at the moment of payment can be read while the order still says reserved_to_time,
 * a new record before it is listed: an unconfirmed claim is read again after these waits, within
 * RECHECK_MS of the first read. Every unconfirmed claim waits alike, so the time taken tells a
 * forger nothing either.
 */
export const RECHECK_WAITS_MS = [1_000, 2_000];
export const RECHECK_MS = 3_000;

/** Records a genuine widget delivery's time may trail the sender's `occurredAt` by, and lead it. */
const WIDGET_SLACK_MS = 5 * 60_000;

const unconfirmed = (reason: string): Confirmation => ({ status: 'unconfirmed', reason });
const uncheckable = (reason: string): Confirmation => ({ status: 'uncheckable', reason });
const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** `<time>[after]` as the API takes it: whole seconds, UTC. */
const afterParam = (ms: number) =>
	new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

function refundedTickets(order: IDataObject): string[] {
	const tickets = Array.isArray(order.tickets) ? (order.tickets as unknown[]) : [];
	return tickets
		.filter((ticket): ticket is IDataObject => isObject(ticket) && ticket.status === 'refund')
		.map((ticket) => String(changeId(ticket.ticketId) ?? ''))
		.sort();
}

async function confirmOrder(
	context: IWebhookFunctions,
	type: 'sale' | 'refund',
	orderId: string,
): Promise<Confirmation> {
	const order = await apiRequest.call(
		context,
		'GET',
		`/orders/${orderId}`,
		{},
		{ retry: FETCH_RETRY },
	);
	if (!isObject(order) || changeId(order.id) !== orderId)
		return unconfirmed(`GET /orders/${orderId} answered another record`);
	const status = String(order.status ?? '');
	if (type === 'sale') {
		if (status !== 'paid' && status !== 'refund')
			return unconfirmed(`order ${orderId} is ${status || 'without a status'}, not paid`);
		return { status: 'confirmed', key: dedupeKey({ type, orderId }), order };
	}
	// A partial refund leaves the order paid; each one refunds more tickets, so the set is the key.
	const refunded = refundedTickets(order);
	if (status !== 'refund' && refunded.length === 0)
		return unconfirmed(
			`order ${orderId} is ${status || 'without a status'} with no refunded ticket`,
		);
	return {
		status: 'confirmed',
		key: dedupeKey({ type, orderId, ticketIds: refunded }),
		order,
	};
}

async function confirmWidget(
	context: IWebhookFunctions,
	notification: Notification,
	data: IDataObject,
): Promise<Confirmation> {
	const sale = notification.type === 'sale';
	const [path, time] = sale
		? ['/widget-orders', 'payAt']
		: ['/widget-orders-refunds', 'refundedAt'];
	// Oldest first from a little before the claimed time, where the record sits near the top
	// whatever came after it; without a time, the newest page. A made-up time only finds nothing.
	const claimed = changeTime(notification.occurredAt ?? undefined);
	const qs: IDataObject =
		claimed === undefined
			? { [`order[${time}]`]: 'desc', page: 1, itemsPerPage: 100 }
			: {
					[`${time}[after]`]: afterParam(claimed - WIDGET_SLACK_MS),
					[`order[${time}]`]: 'asc',
					page: 1,
					itemsPerPage: 100,
				};
	const page = readListPage(
		await apiRequest.call(context, 'GET', path, { qs }, { retry: FETCH_RETRY }),
	);
	if (!page)
		return { status: 'unavailable', reason: `GET ${path} answered something that is not a list` };
	const orderId = notification.orderId;
	const refundId = changeId(data.refundId ?? data.refund_id);
	const record = sale
		? page.items.find((item) => changeId(item.id) === orderId)
		: page.items
				.filter(
					(item) =>
						changeId(item.order ?? item.orderId) === orderId &&
						(refundId === null || changeId(item.id) === refundId),
				)
				.pop();
	if (!record)
		return unconfirmed(`widget ${notification.type} of order ${orderId} is not in GET ${path}`);
	const key = sale
		? dedupeKey({ type: 'sale', orderId })
		: dedupeKey({ type: 'refund', orderId, refundId: changeId(record.id) });
	// The record found comes with the item: no second read.
	return { status: 'confirmed', key, order: record };
}

async function confirmEvent(
	context: IWebhookFunctions,
	notification: Notification,
): Promise<Confirmation> {
	const id = notification.eventPointId;
	if (id === null || !/^\d+$/.test(id))
		return uncheckable('the notification carries no numeric event ID');
	const event = await apiRequest.call(
		context,
		'GET',
		`/event-points/${id}`,
		{},
		{ retry: FETCH_RETRY },
	);
	if (!isObject(event) || changeId(event.id) !== id)
		return unconfirmed(`GET /event-points/${id} answered another record`);
	// An update is known by what the event now is: a repeat of it confirms the same key.
	return {
		status: 'confirmed',
		key: dedupeKey({
			type: notification.type === 'newEvent' ? 'newEvent' : 'eventUpdated',
			eventPointId: id,
			fingerprint: eventFingerprint(event),
		}),
	};
}

/** What the API says about the notification's claim. */
export async function confirm(
	this: IWebhookFunctions,
	notification: Notification,
): Promise<Confirmation> {
	const { type, orderId, payload } = notification;
	if (type === 'other')
		return uncheckable('a notification of an unrecognised type cannot be checked with the API');
	const data = isObject(payload.data) ? payload.data : {};
	try {
		if (type === 'newEvent' || type === 'eventUpdated')
			return await confirmEvent(this, notification);
		if (orderId === null || !/^\d+$/.test(orderId))
			return uncheckable('the notification carries no numeric order ID');
		if (isWidget(payload)) return await confirmWidget(this, notification, data);
		return await confirmOrder(this, type, orderId);
	} catch (error) {
		const status = Number((error as { httpCode?: string }).httpCode);
		// The record is not there, or not this key's: the claim is false.
		if ([400, 403, 404, 410, 422].includes(status))
			return unconfirmed(`the API answered ${status}`);
		return { status: 'unavailable', reason: (error as Error).message };
	}
}

/** What the API says about the claim, read again while it does not show it (RECHECK_WAITS_MS). */
export async function confirmClaim(
	this: IWebhookFunctions,
	notification: Notification,
): Promise<Confirmation> {
	const deadline = Date.now() + RECHECK_MS;
	let verdict = await confirm.call(this, notification);
	for (const wait of RECHECK_WAITS_MS) {
		if (verdict.status !== 'unconfirmed') break;
		const left = deadline - Date.now();
		if (left <= 0) break;
		await sleep(Math.min(wait, left));
		verdict = await confirm.call(this, notification);
	}
	return verdict;
}
