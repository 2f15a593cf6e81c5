import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { eventLocator, optionsCollection } from '../../../shared/commonFields';
import { Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { idParameter, requestSettings } from '../../../shared/readFields';
import { apiRequest } from '../../../shared/transport';

export const option = {
	name: 'Get',
	value: 'get',
	description: 'Get one event session by ID',
	action: 'Get an event',
};

export const kind = 'read' as const;

export const toolText =
	'Get one event by its ID (the id from the event search): its full record, with description ' +
	'and media.';

export const properties: INodeProperties[] = [eventLocator, optionsCollection()];

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = requestSettings.call(this, i);
	const eventId = idParameter.call(this, i, new Inputs(this.getNode(), i), eventLocator);
	return (await apiRequest.call(
		this,
		'GET',
		path`/event-points/${eventId}`,
		{},
		settings,
	)) as IDataObject;
}
