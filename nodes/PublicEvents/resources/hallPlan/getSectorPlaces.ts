import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	eventLocator,
	optionsCollection,
	returnAllAndLimit,
	sectorLocator,
	pagesInFlightOption,
	onlyAvailableOption,
} from '../../../shared/commonFields';
import { Inputs } from '../../../shared/inputs';
import { idParameter } from '../../../shared/readFields';
import { path } from '../../../shared/path';
import { apiRequestAllItems } from '../../../shared/transport';
import { simplePlace, simplified, simplifyProperty } from '../../../shared/tool';
import { placeSettings } from './getPlaces';

export const option = {
	name: 'Get Sector Places',
	value: 'getSectorPlaces',
	description: 'List the places of one sector of an event',
	action: 'Get places of a sector',
};

export const kind = 'read';

export const toolText =
	'List the places of one sector of an event (event ID from the event search, sector ID from ' +
	'the sector list). Answers the same fields as the place list.';

export const properties: INodeProperties[] = [
	eventLocator,
	sectorLocator,
	...returnAllAndLimit,
	simplifyProperty,
	optionsCollection([pagesInFlightOption, onlyAvailableOption]),
];

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = placeSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const eventId = idParameter.call(this, i, inputs, eventLocator);
	const sectorId = idParameter.call(this, i, inputs, sectorLocator);
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
