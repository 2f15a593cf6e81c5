import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { eventLocator, optionsCollection, requestSettings } from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { path } from '../../shared/path';
import { apiRequest } from '../../transport';

const properties: INodeProperties[] = [eventLocator, optionsCollection()];

export const description = updateDisplayOptions(
	{ show: { resource: ['event'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = requestSettings.call(this, i);
	const eventId = new Inputs(this.getNode(), i).id(
		this.getNodeParameter('eventId', i, '', { extractValue: true }),
		'Event',
	);
	return (await apiRequest.call(
		this,
		'GET',
		path`/event-points/${eventId}`,
		{},
		settings,
	)) as IDataObject;
}
