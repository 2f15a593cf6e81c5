import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	filtersCollection,
	optionsCollection,
	returnAllAndLimit,
	sortOption,
	pagesInFlightOption,
	splitTicketsOption,
} from '../../../shared/commonFields';
import { pageSettings, sortQuery } from '../../../shared/readFields';
import { asRows } from '../../../shared/eventNames';
import { Inputs } from '../../../shared/inputs';
import { outputOption, wantsRows, type RowSource } from '../../../shared/tableRows';
import { orderOutput } from '../../../shared/tickets';
import { apiRequestAllItems } from '../../../shared/transport';
import type { OperationModule } from '../operation';

// The spec names no filters for the widget lists. These follow the API Platform style the API
// uses for events (`dateStarted[after]`, `order[dateStarted]`); each description says so.
/**
 * Get Many Orders and Get Many Refunds differ in the path, the record's time field and the words.
 */
export function widgetList(
	option: OperationModule['option'],
	path: string,
	time: string,
	records: string,
	verb: string,
	source: RowSource,
	withTickets = false,
): OperationModule {
	const sortField = `Sort by ${verb} Time`;
	const properties: INodeProperties[] = [
		...returnAllAndLimit,
		filtersCollection([
			{
				displayName: `${verb} After`,
				name: 'after',
				type: 'dateTime',
				default: '',
				description:
					`${records} ${verb.toLowerCase()} at or after this time, ` +
					`sent as ${time}[after] (ISO 8601). Not named by the API ` +
					`spec: a service that ignores it returns the whole list.`,
			},
		]),
		optionsCollection([
			outputOption,
			pagesInFlightOption,
			sortOption(
				sortField,
				'Oldest First',
				'Newest First',
				`Sent as order[${time}]. Not named by the API spec: ` +
					`a service that ignores it keeps its own order.`,
			),
			...(withTickets ? [splitTicketsOption] : []),
		]),
	];
	return {
		option,
		kind: 'read',
		properties,
		async execute(this: IExecuteFunctions, i: number) {
			const settings = pageSettings.call(this, i);
			const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
			const inputs = new Inputs(this.getNode(), i);
			const qs = sortQuery(settings.options, `order[${time}]`, inputs, sortField);
			if (filters.after !== undefined && filters.after !== null && filters.after !== '') {
				qs[`${time}[after]`] = inputs.time(filters.after, `${verb} After`);
			}
			const rows = wantsRows(settings.options, inputs);
			const list = await apiRequestAllItems.call(this, path, qs, settings);
			if (rows) return await asRows(this, settings, list, source);
			return settings.options.splitTickets === true
				? list.flatMap((order): IDataObject[] => [orderOutput(order, true)].flat())
				: list;
		},
	};
}

export const { option, kind, properties, execute } = widgetList(
	{
		name: 'Get Many Orders',
		value: 'getManyOrders',
		description: 'List the orders placed in the sales widget on your site',
		action: 'Get many widget orders',
	},
	'/widget-orders',
	'payAt',
	'Orders',
	'Paid',
	'widgetSales',
	true,
);
