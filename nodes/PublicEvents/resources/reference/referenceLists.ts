import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	optionsCollection,
	pagesInFlightOption,
	returnAllAndLimit,
} from '../../../shared/commonFields';
import { pageSettings } from '../../../shared/readFields';
import { apiRequestAllItems } from '../../../shared/transport';
import type { OperationModule } from '../operation';

/** One reference list: the seven differ only in these. */
interface ReferenceList {
	value: string;
	/** The records, as the Operation list names them: "Venue Halls". */
	noun: string;
	path: string;
	what: string;
}

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	optionsCollection([pagesInFlightOption]),
];

/** One item per record (the service recommends caching these once a day). */
function referenceList(list: ReferenceList): OperationModule {
	return {
		option: {
			name: `Get Many ${list.noun}`,
			value: list.value,
			description: `List ${list.what}`,
			action: `Get many ${list.noun.toLowerCase()}`,
		},
		kind: 'read',
		properties,
		async execute(this: IExecuteFunctions, i: number) {
			return await apiRequestAllItems.call(this, list.path, {}, pageSettings.call(this, i));
		},
	};
}

export const referenceLists: OperationModule[] = [
	{
		value: 'getManyCategories',
		noun: 'Categories',
		path: '/categories',
		what: 'the event categories',
	},
	{ value: 'getManyCities', noun: 'Cities', path: '/cities', what: 'the cities' },
	{ value: 'getManyCountries', noun: 'Countries', path: '/countries', what: 'the countries' },
	{ value: 'getManyGenres', noun: 'Genres', path: '/genres', what: 'the genres' },
	{
		value: 'getManyPromoCodes',
		noun: 'Promo Codes',
		path: '/promocodes',
		what: 'the promo codes available to your company',
	},
	{
		value: 'getManyVenueHalls',
		noun: 'Venue Halls',
		path: '/venue-halls',
		what: 'the halls of the venues',
	},
	{ value: 'getManyVenues', noun: 'Venues', path: '/venues', what: 'the venues' },
].map(referenceList);
