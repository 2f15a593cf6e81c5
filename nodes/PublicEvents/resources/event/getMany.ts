import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection, pageSettings, returnAllAndLimit } from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { apiRequestAllItems } from '../../transport';
import { countryFilter, eventFilters, eventQuery, sortOption } from './filters';

/** Get Many and Get Many Archived differ only in the path and a word on the filters. */
export function eventList(operation: string, path: string, filtersNote?: string) {
	const properties: INodeProperties[] = [
		...returnAllAndLimit,
		filtersNote ? { ...eventFilters, description: filtersNote } : eventFilters,
		optionsCollection([sortOption]),
	];
	return {
		description: updateDisplayOptions({ show: { resource: ['event'], operation: [operation] } }, properties),
		async execute(this: IExecuteFunctions, i: number) {
			const settings = pageSettings.call(this, i);
			const filters = this.getNodeParameter('filters', i, {});
			const inputs = new Inputs(this.getNode(), i);
			const qs = eventQuery(filters, settings.options, inputs);
			return await apiRequestAllItems.call(this, path, qs, { ...settings, keep: countryFilter(filters, inputs) });
		},
	};
}

export const { description, execute } = eventList('getMany', '/event-points');
