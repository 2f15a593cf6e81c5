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
	{
		...eventLocator,
		description:
			'An event your company organises (the export answers 403 for events you sell as a partner). Archived events can be given by ID.',
	},
	...returnAllAndLimit,
	optionsCollection([pagesInFlightOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['barcode'], operation: ['exportForEvent'] } },
	properties,
);

/** One item per ticket of the event, sold or unsold; a 403 (not the organiser) gets its own message in the transport. */
export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const eventId = new Inputs(this.getNode(), i).id(
		this.getNodeParameter('eventId', i, '', { extractValue: true }),
		'Event',
	);
	return await apiRequestAllItems.call(this, path`/event-points/${eventId}/barcodes`, {}, settings);
}
