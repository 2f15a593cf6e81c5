import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { PageSettings, RequestSettings } from '../transport';
import { Inputs } from './inputs';
import { retryPolicyFrom } from '../transport/retry';

export const eventLocator: INodeProperties = {
	displayName: 'Event',
	name: 'eventId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The event session (event point). A missing event is not linked to your company or has ended.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchEvents', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 1001 or /api/v2/event-points/1001',
		},
	],
};

/** A sector of the chosen event; the list follows the Event parameter. */
export const sectorLocator: INodeProperties = {
	displayName: 'Sector',
	name: 'sectorId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'A sector of the chosen event',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchSectors', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 2001 or /api/v2/event-points/1001/sectors/2001',
		},
	],
};

/**
 * The places of an order. One field for one place or many: the hall plan gives one item per
 * place, so a workflow either maps one place per item (`{{ $json.id }}`) or hands over a list
 * it aggregated (an array, or IDs separated by commas); the list mode serves hand-built runs.
 */
export const placeLocator: INodeProperties = {
	displayName: 'Places',
	name: 'places',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The places to reserve. Pick one from the list (sector · row · place, with availability), or give one or more IDs separated by commas, or an array of IDs by expression. All must share the chosen price category.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchPlaces', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 100234, 100235',
		},
	],
};

export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** Entries of every operation's Options collection: language and the retry bounds. */
export const requestOptions: INodeProperties[] = [
	{
		displayName: 'Language',
		name: 'language',
		type: 'string',
		default: '',
		placeholder: 'en',
		description:
			'Language code for names and descriptions, sent as X-API-Language. Overrides the credential\'s default language.',
	},
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 20 },
		default: 5,
		description:
			'How often to try again after 429 Too Many Requests, and after server errors or dropped connections on reads. Writes are never repeated after a server error.',
	},
	{
		displayName: 'Max Retry Wait (Seconds)',
		name: 'maxRetryWait',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 60,
		description: 'Upper bound on the total time spent waiting between retries of one request',
	},
];

export function optionsCollection(extra: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...extra, ...requestOptions].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

/** Request settings for item `i` from its Options collection. */
export function requestSettings(this: IExecuteFunctions, i: number): RequestSettings & { options: IDataObject } {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const bounds = [
		['maxRetries', 'Max Retries'],
		['maxRetryWait', 'Max Retry Wait (Seconds)'],
	] as const;
	for (const [name, field] of bounds) {
		if (options[name] !== undefined && !(Number(options[name]) >= 0)) {
			new Inputs(this.getNode(), i).fail(field, 'expected a number of at least 0');
		}
	}
	return {
		options,
		itemIndex: i,
		retry: retryPolicyFrom(options),
		language: typeof options.language === 'string' ? options.language : undefined,
	};
}

/** Request settings plus the Return All / Limit choice of item `i`. */
export function pageSettings(this: IExecuteFunctions, i: number): PageSettings & { options: IDataObject } {
	if (this.getNodeParameter('returnAll', i, false)) return { ...requestSettings.call(this, i), limit: undefined };
	const limit = Number(this.getNodeParameter('limit', i, 50));
	if (!Number.isInteger(limit) || limit < 1) new Inputs(this.getNode(), i).fail('Limit', 'expected a whole number of at least 1');
	return { ...requestSettings.call(this, i), limit };
}
