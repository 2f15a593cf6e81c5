import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	eventLocator,
	optionsCollection,
	pageSettings,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { path } from '../../shared/path';
import { simplePlace, simplified, simplifyProperty } from '../../shared/tool';
import { apiRequestAllItems, type PageSettings } from '../../transport';

export const onlyAvailableOption: INodeProperties = {
	displayName: 'Only Available',
	name: 'onlyAvailable',
	type: 'boolean',
	default: false,
	description:
		'Whether to keep only places that can still be booked (availableCount above 0). Sold-out and held places stay in the hall plan with availableCount 0. Limit counts the places kept.',
};

/** Return All / Limit, plus the availability filter the API lacks (decided by `availableCount`). */
export function placeSettings(this: IExecuteFunctions, i: number): PageSettings {
	const settings = pageSettings.call(this, i);
	if (settings.options.onlyAvailable !== true) return settings;
	return { ...settings, keep: (place: IDataObject) => Number(place.availableCount) > 0 };
}

const properties: INodeProperties[] = [
	eventLocator,
	...returnAllAndLimit,
	simplifyProperty,
	optionsCollection([pagesInFlightOption, onlyAvailableOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['hallPlan'], operation: ['getPlaces'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = placeSettings.call(this, i);
	const eventId = new Inputs(this.getNode(), i).id(
		this.getNodeParameter('eventId', i, '', { extractValue: true }),
		'Event',
	);
	return simplified.call(
		this,
		i,
		await apiRequestAllItems.call(this, path`/event-points/${eventId}/places`, {}, settings),
		simplePlace,
	);
}
