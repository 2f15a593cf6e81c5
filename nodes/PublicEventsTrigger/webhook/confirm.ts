import { sleep, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import { changeId, changeTime, eventOf } from '../../shared/changes';
import { dedupeKey, eventFingerprint } from '../../shared/dedupeKey';
import type { RecordSource } from '../../shared/ledger/output';
import { apiRequest } from '../../shared/transport';
import {
	FETCH_RETRY,
	isFinalAnswer,
	isWidget,
	namedTickets,
	readWidget,
	orderShows,
	widgetSource,
} from './fullOrder';
import type { Notification } from './normalize';

/**
 * Security None: anyone who finds the URL can post to it, so a delivery is a claim, checked
 * with the API before anything starts (one GET, with the Public Events API credential):
 * - sale: GET /orders/{id} is paid (or refunded since: it was sold);
 * - refund: GET /orders/{id} shows the tickets the claim names refunded (naming none: some
 *   refunded ticket, or the order refunded);
 * - widget sale or refund: the record is in /widget-orders or /widget-orders-refunds, looked for
 *   as Fetch Full Order does (widgetRecord.ts), once a check;
 * - new event, event update: GET /event-points/{id} answers.
 * What starts the run is what the API showed, never what the claim says: the record, its event,
 * its time, the refund's tickets; the claim's own ids, times and payload are left out.
 * The item's `dedupeKey` is made of it too, never of the sender's delivery id (a forger picks a new
 * one for every post): a forged repeat of a confirmed sale is a duplicate, and an update is
 * fingerprinted without the fields that move with every sale, so forged update claims start one
 * run per real change of the event. A refund of an API order is remembered ticket by ticket: a
 * claim whose tickets all started a run is a repeat, so each partial refund starts its own, in
 * whatever order they are confirmed, and forged claims start at most one per refunded ticket.
 */
export interface Shown {
	status: 'confirmed';
	/** The item's dedupeKey. */
	key: string;
	/** What the claim is remembered by; a claim all of whose keys ran is a repeat. */
	seen: string[];
	/** The sale's or refund's record as read, and its list. */
	read?: { source: RecordSource; record: IDataObject };
	eventPointId: string | null;
	/** The record's own time (ISO), when it has one. */
	occurredAt: string | null;
	/** A refund of an API order: the order and the refunded tickets the claim stands for. */
	refund?: { orderId: string; tickets: string[] };
}

const ticketKey = (orderId: string, ticket: string) => `refund:api:${orderId}:${ticket}`;

/**
 * A refund of an API order narrowed to the tickets no run of this process stood for yet
 * (`ran(key)`): a claim naming no ticket shows every refunded one, and keyed by all of them it
 * would name a change no delivery made (a second refund record of the first ticket). Undefined
 * when every ticket ran: a repeat.
 */
export function withoutRun(shown: Shown, ran: (key: string) => boolean): Shown | undefined {
	if (!shown.refund || shown.refund.tickets.length === 0) return shown;
	const { orderId, tickets } = shown.refund;
	const fresh = tickets.filter((ticket) => !ran(ticketKey(orderId, ticket)));
	if (fresh.length === 0) return undefined;
	if (fresh.length === tickets.length) return shown;
	return {
		...shown,
		key: dedupeKey({ type: 'refund', channel: 'api', orderId, ticketIds: fresh }),
		seen: fresh.map((ticket) => ticketKey(orderId, ticket)),
		refund: { orderId, tickets: fresh },
	};
}

export type Confirmation =
	| Shown
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

const unconfirmed = (reason: string): Confirmation => ({ status: 'unconfirmed', reason });
const uncheckable = (reason: string): Confirmation => ({ status: 'uncheckable', reason });
const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
const isoOf = (value: unknown) => {
	const ms = changeTime(value);
	return ms === undefined ? null : new Date(ms).toISOString();
};

async function confirmOrder(
	context: IWebhookFunctions,
	notification: Notification,
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
	const shown = orderShows(type, order, namedTickets(notification));
	if ('not' in shown) return unconfirmed(shown.not);
	const read = { source: 'eventOrders' as const, record: order };
	const eventPointId = eventOf(order);
	if (type === 'sale') {
		const key = dedupeKey({ type, channel: 'api', orderId });
		return {
			status: 'confirmed',
			key,
			seen: [key],
			read,
			eventPointId,
			occurredAt: isoOf(order.payAt),
		};
	}
	const key = dedupeKey({ type, channel: 'api', orderId, ticketIds: shown.tickets });
	const seen = shown.tickets.map((ticket) => ticketKey(orderId, ticket));
	return {
		status: 'confirmed',
		key,
		seen: seen.length > 0 ? seen : [key],
		read,
		eventPointId,
		// An order partly refunded has no refund time: the time it was confirmed stands for it.
		occurredAt: isoOf(order.refundedAt) ?? new Date().toISOString(),
		refund: { orderId, tickets: shown.tickets },
	};
}

async function confirmWidget(
	context: IWebhookFunctions,
	notification: Notification,
	type: 'sale' | 'refund',
	orderId: string,
): Promise<Confirmation> {
	// One page, no waits of its own: the claim is checked again after RECHECK_WAITS_MS.
	const { record, missing } = await readWidget(context, notification, type, orderId, {
		pages: 1,
		waitsMs: [],
	});
	if (!record) return unconfirmed(missing ?? `widget order ${orderId} was not found`);
	const key =
		type === 'sale'
			? dedupeKey({ type, channel: 'widget', orderId })
			: dedupeKey({ type, channel: 'widget', orderId, refundId: changeId(record.id) });
	return {
		status: 'confirmed',
		key,
		seen: [key],
		// The record found comes with the item: no second read.
		read: { source: widgetSource(type), record },
		eventPointId: eventOf(record),
		occurredAt: isoOf(type === 'sale' ? record.payAt : record.refundedAt),
	};
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
	const key = dedupeKey({
		type: notification.type === 'newEvent' ? 'newEvent' : 'eventUpdated',
		eventPointId: id,
		fingerprint: eventFingerprint(event),
	});
	return { status: 'confirmed', key, seen: [key], eventPointId: id, occurredAt: null };
}

/** What the API says about the notification's claim. */
export async function confirm(
	this: IWebhookFunctions,
	notification: Notification,
): Promise<Confirmation> {
	const { type, orderId, payload } = notification;
	if (type === 'other')
		return uncheckable('a notification of an unrecognised type cannot be checked with the API');
	try {
		if (type === 'newEvent' || type === 'eventUpdated')
			return await confirmEvent(this, notification);
		if (orderId === null || !/^\d+$/.test(orderId))
			return uncheckable('the notification carries no numeric order ID');
		if (isWidget(payload)) return await confirmWidget(this, notification, type, orderId);
		return await confirmOrder(this, notification, type, orderId);
	} catch (error) {
		// The record is not there, or not this key's: the claim is false.
		if (isFinalAnswer(error))
			return unconfirmed(`the API answered ${(error as { httpCode?: string }).httpCode}`);
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
