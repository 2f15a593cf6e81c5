import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { numericId } from './inputs';

/**
 * The four kinds of change the API names (docs/architecture.md, "Changes the triggers report").
 * Both triggers emit items whose `type` is one of these values, so a workflow can switch from
 * polling to push without changing.
 */
export const CHANGE_TYPES = ['newEvent', 'eventUpdated', 'sale', 'refund'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export const changeTypeOptions: INodePropertyOptions[] = [
	{
		name: 'New Event',
		value: 'newEvent',
		description: 'An event session was opened to your company',
	},
	{
		name: 'Event Updated',
		value: 'eventUpdated',
		description: 'An event session changed (name, dates, venue…)',
	},
	{ name: 'Sale', value: 'sale', description: 'An order was paid' },
	{
		name: 'Refund',
		value: 'refund',
		description: 'An order, or some of its tickets, was refunded',
	},
];

/**
 * An id as both triggers emit it (`orderId`, `eventPointId`): the numeric string of a number, a
 * numeric string, an IRI (`/api/v2/orders/7`) or an object with an `id` / `@id`; other text as
 * given; null when there is none.
 */
export function changeId(value: unknown): string | null {
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		const object = value as Record<string, unknown>;
		return changeId(object.id ?? object['@id']);
	}
	const id = numericId(value);
	if (id !== undefined) return id;
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * A record or notification time as epoch ms: ISO text (without a zone: UTC, not the server's
 * local time), or a number of epoch seconds or milliseconds.
 */
/** The event a record names (`eventPoint`: an IRI, id or object; or `eventPointId`), as an id. */
export const eventOf = (record: IDataObject): string | null =>
	changeId(record.eventPoint ?? record.eventPointId ?? record.event_point);

export function changeTime(value: unknown): number | undefined {
	if (typeof value === 'number') {
		if (!Number.isFinite(value) || value <= 0) return undefined;
		return value < 1e11 ? value * 1000 : value; // 1e11 s is the year 5138; 1e11 ms is 1973
	}
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const text = value.trim().replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
	const zoneless = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(text);
	const ms = Date.parse(zoneless ? `${text}Z` : text);
	return Number.isNaN(ms) ? undefined : ms;
}
