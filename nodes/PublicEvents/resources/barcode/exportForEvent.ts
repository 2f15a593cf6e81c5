import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	eventLocator,
	optionsCollection,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../../shared/commonFields';
import { Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { idParameter, pageSettings } from '../../../shared/readFields';
import { apiRequestAllItems } from '../../../shared/transport';

export const option = {
	name: 'Export for Event',
	value: 'exportForEvent',
	description:
		'Every barcode of an event your company organises, sold or unsold. As a partner, take ' +
		'barcodes from the paid order (Order > Get).',
	action: 'Export barcodes for an event',
};

export const kind = 'read';

const eventField: INodeProperties = {
	...eventLocator,
	description:
		'An event your company organises (the export answers 403 for events you sell as a ' +
		'partner). Archived events can be given by ID.',
};

export const properties: INodeProperties[] = [
	eventField,
	...returnAllAndLimit,
	optionsCollection([pagesInFlightOption]),
];

/**
 * One item per ticket of the event, sold or unsold; a 403 (not the organiser) gets its own message
 * in the transport.
 */
export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const eventId = idParameter.call(this, i, new Inputs(this.getNode(), i), eventField);
	return await apiRequestAllItems.call(this, path`/event-points/${eventId}/barcodes`, {}, settings);
}
