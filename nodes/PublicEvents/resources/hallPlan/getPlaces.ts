import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	eventLocator,
	optionsCollection,
	returnAllAndLimit,
	pagesInFlightOption,
	onlyAvailableOption,
} from '../../../shared/commonFields';
import { idParameter, pageSettings } from '../../../shared/readFields';
import { Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { simplePlace, simplified, simplifyProperty } from '../../../shared/tool';
import { apiRequestAllItems, type PageSettings } from '../../../shared/transport';

/** Return All / Limit, plus the availability filter the API lacks (decided by `availableCount`). */
export function placeSettings(this: IExecuteFunctions, i: number): PageSettings {
	const settings = pageSettings.call(this, i);
	if (settings.options.onlyAvailable !== true) return settings;
	return { ...settings, keep: (place: IDataObject) => Number(place.availableCount) > 0 };
}

export const option = {
	name: 'Get Places',
	value: 'getPlaces',
	description:
		'List every place of an event with prices, price categories and availability, one item ' +
		'per place. The heaviest data: read it for one event when needed, not across the catalog.',
	action: 'Get places of an event',
};

export const kind = 'read';

export const toolText =
	'List the places (seats) of one event, by the event ID from the event search. Each place: id ' +
	'(the place ID to hold), sectorName, rowName, placeName, availableCount (0 = sold or held: ' +
	'cannot be booked) and priceCategories (price category ID -> name and price). To hold places, ' +
	'pass their ids and one price category id that all of them offer.';

export const properties: INodeProperties[] = [
	eventLocator,
	...returnAllAndLimit,
	simplifyProperty,
	optionsCollection([pagesInFlightOption, onlyAvailableOption]),
];

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = placeSettings.call(this, i);
	const eventId = idParameter.call(this, i, new Inputs(this.getNode(), i), eventLocator);
	return simplified.call(
		this,
		i,
		await apiRequestAllItems.call(this, path`/event-points/${eventId}/places`, {}, settings),
		simplePlace,
	);
}
