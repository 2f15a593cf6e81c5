import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	eventLocator,
	optionsCollection,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../../shared/commonFields';
import { idParameter, pageSettings } from '../../../shared/readFields';
import { Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { apiRequestAllItems } from '../../../shared/transport';

export const option = {
	name: 'Get Sectors',
	value: 'getSectors',
	description: 'List the sectors of an event',
	action: 'Get sectors of an event',
};

export const kind = 'read';

export const toolText =
	'List the sectors of one event (event ID from the event search): their ids narrow the place ' +
	'list to one sector.';

export const properties: INodeProperties[] = [
	eventLocator,
	...returnAllAndLimit,
	optionsCollection([pagesInFlightOption]),
];

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const eventId = idParameter.call(this, i, new Inputs(this.getNode(), i), eventLocator);
	return await apiRequestAllItems.call(this, path`/event-points/${eventId}/sectors`, {}, settings);
}
