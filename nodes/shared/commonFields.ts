import type { INodeProperties } from 'n8n-workflow';

import { idField } from './inputs';
import { MAX_PAGES_IN_FLIGHT } from './transport';
import { TOOL_LIMIT } from './tool';

// Field definitions the operations and the poll trigger share; readFields.ts reads and checks them.

/**
 * A searchable list, or an ID by hand; the operation reduces an IRI to its number (Inputs.id), of
 * the collections idField declares for it.
 */
function locator(
	displayName: string,
	name: string,
	searchListMethod: string,
	placeholder: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder },
		],
	};
}

/** The IRI collections of an event session, current or archived (`/api/v2/event-points/1001`). */
export const EVENT_COLLECTIONS = ['event-points', 'event-points-archived'];

export const eventLocator = idField(
	locator(
		'Event',
		'eventId',
		'searchEvents',
		'e.g. 1001 or /api/v2/event-points/1001',
		'The event session (event point). A missing event is not linked to your company or has ended.',
	),
	EVENT_COLLECTIONS,
);

/** A sector of the chosen event; the list follows the Event parameter. */
export const sectorLocator = idField(
	locator(
		'Sector',
		'sectorId',
		'searchSectors',
		'e.g. 2001 or /api/v2/event-points/1001/sectors/2001',
		'A sector of the chosen event',
	),
	['sectors'],
);

/**
 * The places of an order. One field for one place or many: the hall plan gives one item per
 * place, so a workflow either maps one place per item (`{{ $json.id }}`) or hands over a list
 * it aggregated (an array, or IDs separated by commas); the list mode serves hand-built runs.
 */
export const placeLocator = idField(
	locator(
		'Places',
		'places',
		'searchPlaces',
		'e.g. 100234, 100235',
		'The places to reserve. Pick one from the list (sector · row · place, ' +
			'with availability), or give one or more IDs separated by commas, or an ' +
			'array of IDs by expression. All must share the chosen price category.',
	),
	['places'],
);

const limitProperty: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false], '@tool': [false] } },
};

export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	limitProperty,
	// The same Limit on the tool (`publicEventsTool`), smaller: every result goes into an agent's
	// context.
	{
		...limitProperty,
		default: TOOL_LIMIT,
		displayOptions: { show: { returnAll: [false], '@tool': [true] } },
	},
];

export function filtersCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options,
	};
}

/** A list's sort, sent as `order[<field>]` (API Platform style, as the spec's event list). */
export function sortOption(
	displayName: string,
	ascending: string,
	descending: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name: 'sort',
		type: 'options',
		options: [
			{ name: 'Service Default', value: '' },
			{ name: ascending, value: 'asc' },
			{ name: descending, value: 'desc' },
		],
		default: '',
		description,
	};
}

/** The Options entry retryPolicyFrom (transport) reads as `timeoutMs`. */
const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 3600 },
	default: 60,
	description:
		'How long to wait for the service to answer. A read that gets no ' +
		'answer in time is tried again; a change is never sent twice: ' +
		'the node reads the order back to report whether it was applied.',
};

/** Entries of every operation's Options collection: language, the retry bounds and the timeout. */
export const requestOptions: INodeProperties[] = [
	{
		displayName: 'Language',
		name: 'language',
		type: 'string',
		default: '',
		placeholder: 'e.g. en',
		description:
			'Language code such as en or pt-BR for names and descriptions. ' +
			"Overrides the credential's default language.",
	},
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 20 },
		default: 5,
		description:
			'How often to try again after 429 Too Many Requests, and after server errors or ' +
			'dropped connections on reads. Writes are never repeated after a server error.',
	},
	{
		displayName: 'Max Retry Wait (Seconds)',
		name: 'maxRetryWait',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 3600 },
		default: 60,
		description: 'Upper bound on the total time spent waiting between retries of one request',
	},
	timeoutOption,
];

/** Options entry of the operations that read a list page by page. */
export const pagesInFlightOption: INodeProperties = {
	// The name stays: saved workflows keep their value under it.
	displayName: 'Pages Read at Once',
	name: 'maxPagesInFlight',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 32 },
	default: MAX_PAGES_IN_FLIGHT,
	description:
		'At most how many pages of a long list are requested at the same time. ' +
		'The node starts with 2, adds more while pages answer, and halves when ' +
		'the service says it gets too many requests (429); over a slow network ' +
		'more at once finish sooner. 1 reads one page after the other.',
};

export function optionsCollection(extra: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...extra, ...requestOptions].sort((a, b) =>
			a.displayName.localeCompare(b.displayName),
		),
	};
}

/** Options entry of the place lists. */
export const onlyAvailableOption: INodeProperties = {
	displayName: 'Only Available',
	name: 'onlyAvailable',
	type: 'boolean',
	default: false,
	description:
		'Whether to keep only places that can still be booked ' +
		'(availableCount above 0). Sold-out and held places stay in the ' +
		'hall plan with availableCount 0. Limit counts the places kept.',
};

/** Options entry of every operation that answers with an order. */
export const splitTicketsOption: INodeProperties = {
	displayName: 'Split Tickets Into Items',
	name: 'splitTickets',
	type: 'boolean',
	default: false,
	description:
		'Whether to output one item per ticket (order ID, order status and totals ' +
		"plus the ticket's fields: one spreadsheet row per ticket) instead of one " +
		"item per order. An answer without tickets, such as Create's, stays one item.",
	// The output schema n8n previews before a run is the default's (one item per order).
	hint:
		'On: each item is one ticket (its fields plus orderId, orderStatus, totalPrice, ' +
		'totalDiscount, reservedToDate), not the order the preview before a run shows',
};
