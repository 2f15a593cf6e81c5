import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection, pageSettings, returnAllAndLimit } from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { apiRequestAllItems } from '../../transport';
import { eventFilters, eventQuery, sortOption } from './filters';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		...eventFilters,
		description: 'The spec names these filters for the live catalog; the archive may ignore some of them',
	},
	optionsCollection([sortOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['event'], operation: ['getManyArchived'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const filters = this.getNodeParameter('filters', i, {});
	const qs = eventQuery(filters, settings.options, new Inputs(this.getNode(), i));
	return await apiRequestAllItems.call(this, '/event-points-archived', qs, settings);
}
