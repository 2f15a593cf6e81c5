import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { ChangeType } from './changes';
import { refundKey, saleKey, type Channel } from './ledger/rows';

/**
 * What one real change of a record is, as both triggers name it on every item (`dedupeKey`): the
 * same sale pushed twice, pushed and polled, or polled again after a restart has one key, so a
 * destination keyed by it (a Data Table upsert, a CRM's external id, n8n's Remove Duplicates)
 * holds it once. Two different changes never share one: a second partial refund of an order, a
 * second update of an event, a widget order and an API order of one number. A sale or refund is
 * keyed as its ledger row (ledger/rows.ts): one refund of several tickets of an API order names
 * them all, where the ledger has a row per ticket.
 */
export interface KeyParts {
	type: ChangeType;
	/** Sales and refunds: where the order was made. */
	channel?: Channel;
	orderId?: string | null;
	/** A refund's own id, when the service gives one (widget refunds). */
	refundId?: string | null;
	/** The tickets a refund without its own id took back (API orders: ticket by ticket). */
	ticketIds?: Array<string | number>;
	eventPointId?: string | null;
	/** An event's fields that count as an update (eventFingerprint). */
	fingerprint?: string;
}

/**
 * Event fields that move with every sale, not with an edit of the event: an update claim keyed on
 * them would be a new key after each sale, so a forged or repeated claim would start a run each.
 */
export const VOLATILE_EVENT_FIELDS = new Set(['countAvailableTickets', 'minPrice', 'maxPrice']);

/** JSON with object keys sorted, so a service that reorders keys changes nothing. */
export function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value && typeof value === 'object') {
		const entries = Object.entries(value as IDataObject).sort(([a], [b]) =>
			a < b ? -1 : a > b ? 1 : 0,
		);
		return `{${entries.map(([key, v]) => `${JSON.stringify(key)}:${stableJson(v)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/**
 * A short digest of an event's editable fields: all but VOLATILE_EVENT_FIELDS and JSON-LD's own
 * (`@id`, `@type`, `@context` differ between a list and a single read of one event).
 */
export function eventFingerprint(event: IDataObject): string {
	const kept = Object.fromEntries(
		Object.entries(event).filter(
			([field]) => !VOLATILE_EVENT_FIELDS.has(field) && !field.startsWith('@'),
		),
	);
	return createHash('sha256').update(stableJson(kept)).digest('base64url').slice(0, 16);
}

export function dedupeKey(parts: KeyParts): string {
	switch (parts.type) {
		case 'sale':
			return saleKey(parts.channel ?? 'api', parts.orderId ?? null);
		case 'refund': {
			const channel = parts.channel ?? 'api';
			const tickets = (parts.ticketIds ?? []).map(String).sort().join(',');
			if (channel === 'widget' && parts.refundId)
				return refundKey('widget', { refundId: parts.refundId });
			return `refund:${channel}:${parts.orderId ?? ''}:${tickets || 'all'}`;
		}
		case 'newEvent':
			return `newEvent:${parts.eventPointId ?? ''}`;
		case 'eventUpdated':
			return `eventUpdated:${parts.eventPointId ?? ''}:${parts.fingerprint ?? ''}`;
	}
}
