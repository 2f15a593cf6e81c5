import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { filtersCollection, sortOption } from '../../../shared/commonFields';
import { sortQuery } from '../../../shared/readFields';
import { idField, numericId, type Inputs } from '../../../shared/inputs';
import { nameContains, searchText } from './search';

/** The catalog filters of GET /event-points, shared by the archive. */
export const eventFilters: INodeProperties = filtersCollection([
	idField(
		{
			displayName: 'Category Names or IDs',
			name: 'categoryIds',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getCategories' },
			default: [],
			description:
				'Events in any of these categories. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		['categories'],
	),
	{
		displayName: 'City',
		name: 'cityName',
		type: 'string',
		default: '',
		placeholder: 'e.g. Berlin',
		description:
			"Events in the city of this name, as the service's list of cities writes it in the " +
			'language used (case and accents do not matter; "Valencia, Spain" picks one of two). ' +
			'Several cities of the name: events in any of them. A name no city has gives no events.',
	},
	idField(
		{
			displayName: 'City Names or IDs',
			name: 'cityIds',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getCities' },
			default: [],
			description:
				'Events in any of these cities. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		['cities'],
	),
	idField(
		{
			displayName: 'Country Names or IDs',
			name: 'countryIds',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getCountries' },
			default: [],
			description:
				'Events in any of these countries. The API names no country parameter, so the node reads the list and keeps the events whose country matches: Limit counts matching events, and more pages may be read to find them. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		['countries'],
	),
	idField(
		{
			displayName: 'Genre Names or IDs',
			name: 'genreIds',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getGenres' },
			default: [],
			description:
				'Events in any of these genres. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		['genres'],
	),
	{
		displayName: 'Name Contains',
		name: 'nameContains',
		type: 'string',
		default: '',
		placeholder: 'e.g. Velvet Echo',
		description:
			'Events whose name contains this text (case, accents and punctuation do not matter). ' +
			'The API has no name search, so the node reads the list and keeps the matching events: ' +
			'Limit counts matching events, and more pages may be read to find them.',
	},
	{
		displayName: 'Starts On or After',
		name: 'dateStartedAfter',
		type: 'dateTime',
		default: '',
		description: 'Events starting on this day or later; only the day counts, not the time',
	},
	{
		displayName: 'Starts On or Before',
		name: 'dateStartedBefore',
		type: 'dateTime',
		default: '',
		description: 'Events starting on this day or earlier; only the day counts, not the time',
	},
	idField(
		{
			displayName: 'Venue Hall Name or ID',
			name: 'venueHallId',
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getVenueHalls' },
			default: '',
			description:
				'Events in this hall. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		['venue-halls', 'venue_halls'],
	),
]);

export const eventSort = sortOption(
	'Sort by Start',
	'Earliest First',
	'Latest First',
	'Order of the events by when they start',
);

/** A filter's definition by parameter name: its label names it in errors. */
function filterField(name: string): INodeProperties {
	const options = (eventFilters.options ?? []) as INodeProperties[];
	return (
		options.find((option) => option.name === name) ?? { ...eventFilters, name, displayName: name }
	);
}

/** The query string of the catalog list, checked before any request. */
export function eventQuery(
	filters: IDataObject,
	options: IDataObject,
	inputs: Inputs,
): IDataObject {
	const qs: IDataObject = {};
	const empty = (value: unknown) => value === undefined || value === null || value === '';
	if (!empty(filters.dateStartedAfter))
		qs['dateStarted[after]'] = inputs.day(filters.dateStartedAfter, 'Starts On or After');
	if (!empty(filters.dateStartedBefore)) {
		qs['dateStarted[before]'] = inputs.day(filters.dateStartedBefore, 'Starts On or Before');
	}
	const lists = [
		['city.id[]', 'cityIds'],
		['categories.id[]', 'categoryIds'],
		['genres.id[]', 'genreIds'],
	] as const;
	for (const [key, name] of lists) {
		const ids = inputs.ids(filters[name], filterField(name));
		if (ids.length > 0) qs[key] = ids;
	}
	if (!empty(filters.venueHallId))
		qs['venueHall.id'] = inputs.id(filters.venueHallId, filterField('venueHallId'));
	return { ...qs, ...sortQuery(options, 'order[dateStarted]', inputs, 'Sort by Start') };
}

/**
 * The Country filter, applied here: the spec names no country parameter. An event's `country` may
 * be a record (`{ id, name, code }`), a plain id or an IRI. Undefined when no country is chosen.
 */
export function countryFilter(
	filters: IDataObject,
	inputs: Inputs,
): ((event: IDataObject) => boolean) | undefined {
	const wanted = new Set(inputs.ids(filters.countryIds, filterField('countryIds')));
	if (wanted.size === 0) return undefined;
	return (event) => {
		const country = event.country as IDataObject | string | number | undefined;
		const id =
			country !== null && typeof country === 'object' ? (country.id ?? country['@id']) : country;
		return wanted.has(numericId(id) ?? '');
	};
}

/** City and Name Contains of the filters, checked before any request. */
export function searchFilters(
	filters: IDataObject,
	inputs: Inputs,
): { city?: string; name?: string; keep?: (event: IDataObject) => boolean } {
	const city = searchText(filters.cityName, filterField('cityName').displayName, inputs);
	const name = searchText(filters.nameContains, filterField('nameContains').displayName, inputs);
	return { city, name, keep: name === undefined ? undefined : nameContains(name) };
}
