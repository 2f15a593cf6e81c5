import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection, pageSettings, returnAllAndLimit } from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { apiRequestAllItems } from '../../transport';

// The spec names no filters for the widget lists. These follow the API Platform style the API
// uses for events (`dateStarted[after]`, `order[dateStarted]`); each description says so.
/** Get Many Orders and Get Many Refunds differ in the path, the record's time field and the words. */
export function widgetList(operation: string, path: string, time: string, records: string, verb: string) {
	const properties: INodeProperties[] = [
		...returnAllAndLimit,
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			options: [
				{
					displayName: `${verb} After`,
					name: 'after',
					type: 'dateTime',
					default: '',
					description: `${records} ${verb.toLowerCase()} at or after this time, sent as ${time}[after] (ISO 8601). Not named by the API spec: a service that ignores it returns the whole list.`,
				},
			],
		},
		optionsCollection([
			{
				displayName: `Sort by ${verb} Time`,
				name: 'sort',
				type: 'options',
				options: [
					{ name: 'Service Default', value: '' },
					{ name: 'Oldest First', value: 'asc' },
					{ name: 'Newest First', value: 'desc' },
				],
				default: '',
				description: `Sent as order[${time}]. Not named by the API spec: a service that ignores it keeps its own order.`,
			},
		]),
	];
	return {
		description: updateDisplayOptions({ show: { resource: ['widget'], operation: [operation] } }, properties),
		async execute(this: IExecuteFunctions, i: number) {
			const settings = pageSettings.call(this, i);
			const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
			const inputs = new Inputs(this.getNode(), i);
			const qs: IDataObject = {};
			if (filters.after !== undefined && filters.after !== null && filters.after !== '') {
				qs[`${time}[after]`] = inputs.time(filters.after, `${verb} After`);
			}
			const sort = settings.options.sort;
			if (sort !== undefined && sort !== '') {
				if (sort !== 'asc' && sort !== 'desc') inputs.fail(`Sort by ${verb} Time`, 'expected "asc" or "desc"');
				qs[`order[${time}]`] = sort;
			}
			return await apiRequestAllItems.call(this, path, qs, settings);
		},
	};
}

export const { description, execute } = widgetList('getManyOrders', '/widget-orders', 'payAt', 'Orders', 'Paid');
