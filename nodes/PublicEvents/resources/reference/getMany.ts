import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	optionsCollection,
	pageSettings,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../shared/descriptions';
import { apiRequestAllItems } from '../../transport';

/** The seven reference lists: same parameters, same output, one path each. */
const lists = [
	{
		value: 'getManyCategories',
		noun: 'Categories',
		path: '/categories',
		description: 'List the event categories',
	},
	{ value: 'getManyCities', noun: 'Cities', path: '/cities', description: 'List the cities' },
	{
		value: 'getManyCountries',
		noun: 'Countries',
		path: '/countries',
		description: 'List the countries',
	},
	{ value: 'getManyGenres', noun: 'Genres', path: '/genres', description: 'List the genres' },
	{
		value: 'getManyPromoCodes',
		noun: 'Promo Codes',
		path: '/promocodes',
		description: 'List the promo codes available to your company',
	},
	{
		value: 'getManyVenueHalls',
		noun: 'Venue Halls',
		path: '/venue-halls',
		description: 'List the halls of the venues',
	},
	{ value: 'getManyVenues', noun: 'Venues', path: '/venues', description: 'List the venues' },
] as const;

export const operationOptions: INodePropertyOptions[] = lists.map((list) => ({
	name: `Get Many ${list.noun}`,
	value: list.value,
	description: list.description,
	action: `Get many ${list.noun.toLowerCase()}`,
}));

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['reference'], operation: lists.map((list) => list.value) } },
	[...returnAllAndLimit, optionsCollection([pagesInFlightOption])],
);

/** One item per record; the service recommends caching these lists (once a day). */
export const operations = Object.fromEntries(
	lists.map((list) => [
		list.value,
		{
			async execute(this: IExecuteFunctions, i: number) {
				return await apiRequestAllItems.call(this, list.path, {}, pageSettings.call(this, i));
			},
		},
	]),
);
