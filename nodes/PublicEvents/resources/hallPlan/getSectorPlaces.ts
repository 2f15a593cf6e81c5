import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	eventLocator,
	optionsCollection,
	returnAllAndLimit,
	sectorLocator,
	pagesInFlightOption,
} from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { path } from '../../shared/path';
import { apiRequestAllItems } from '../../transport';
import { simplePlace, simplified, simplifyProperty } from '../../shared/tool';
import { onlyAvailableOption, placeSettings } from './getPlaces';

const properties: INodeProperties[] = [
	eventLocator,
	sectorLocator,
	...returnAllAndLimit,
	simplifyProperty,
	optionsCollection([pagesInFlightOption, onlyAvailableOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['hallPlan'], operation: ['getSectorPlaces'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = placeSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const eventId = inputs.id(
		this.getNodeParameter('eventId', i, '', { extractValue: true }),
		'Event',
	);
	const sectorId = inputs.id(
		this.getNodeParameter('sectorId', i, '', { extractValue: true }),
		'Sector',
	);
	return simplified.call(
		this,
		i,
		await apiRequestAllItems.call(
			this,
			path`/event-points/${eventId}/sectors/${sectorId}/places`,
			{},
			settings,
		),
		simplePlace,
	);
}
