import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection, pageSettings, returnAllAndLimit } from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { apiRequestAllItems } from '../../transport';
import { eventFilters, eventQuery, sortOption } from './filters';

const properties: INodeProperties[] = [...returnAllAndLimit, eventFilters, optionsCollection([sortOption])];

export const description = updateDisplayOptions({ show: { resource: ['event'], operation: ['getMany'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const filters = this.getNodeParameter('filters', i, {});
	const qs = eventQuery(filters, settings.options, new Inputs(this.getNode(), i));
	return await apiRequestAllItems.call(this, '/event-points', qs, settings);
}
