import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { apiRequestAllItems } from '../transport';

function label(record: IDataObject): string {
	const name = record.name ?? record.title ?? record.code ?? record.id;
	return String(name);
}

/** A reference list as dropdown options; the API recommends caching these, n8n asks when the panel opens. */
function referenceOptions(path: string, describe?: (record: IDataObject) => string | undefined) {
	return async function (this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
		const records = await apiRequestAllItems.call(this, path);
		return records
			.map((record) => ({ name: label(record), value: String(record.id), description: describe?.(record) }))
			.sort((a, b) => a.name.localeCompare(b.name));
	};
}

/** The `name` of a nested record such as `{ id, name }`. */
export const nameOf = (value: unknown) => (value && typeof value === 'object' ? (value as IDataObject).name : undefined) as string | undefined;

export const loadOptions = {
	getCategories: referenceOptions('/categories'),
	getCities: referenceOptions('/cities', (city) => nameOf(city.country)),
	getCountries: referenceOptions('/countries'),
	getGenres: referenceOptions('/genres'),
	getVenueHalls: referenceOptions('/venue-halls', (hall) => nameOf(hall.venue)),
	getVenues: referenceOptions('/venues', (venue) => nameOf(venue.city)),
};
