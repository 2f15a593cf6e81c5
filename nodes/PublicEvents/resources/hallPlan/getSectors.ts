import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
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
import { apiRequestAllItems } from '../../transport';

const properties: INodeProperties[] = [
	eventLocator,
	...returnAllAndLimit,
	optionsCollection([pagesInFlightOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['hallPlan'], operation: ['getSectors'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const eventId = new Inputs(this.getNode(), i).id(
		this.getNodeParameter('eventId', i, '', { extractValue: true }),
		'Event',
	);
	return await apiRequestAllItems.call(this, path`/event-points/${eventId}/sectors`, {}, settings);
}
