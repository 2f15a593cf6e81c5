import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { eventOf } from '../../../shared/changes';
import {
	EVENT_COLLECTIONS,
	filtersCollection,
	optionsCollection,
	returnAllAndLimit,
	sortOption,
	pagesInFlightOption,
	splitTicketsOption,
} from '../../../shared/commonFields';
import { pageSettings, sortQuery } from '../../../shared/readFields';
import { idField, Inputs } from '../../../shared/inputs';
import { asRows, outputOption, wantsRows, type RecordSource } from '../../../shared/ledger/output';
import { orderOutput } from '../../../shared/tickets';
import { apiRequestAllItems } from '../../../shared/transport';
import type { OperationModule } from '../operation';

// The spec names no filters for the widget lists. These follow the API Platform style the API
// uses for events (`dateStarted[after]`, `order[dateStarted]`); each description says, in plain
// words, that the API description does not list it.
/** One widget list: Get Many Orders and Get Many Refunds differ only in these. */
interface WidgetList {
	option: OperationModule['option'];
	path: string;
	/** The record's time field: the `[after]` filter and the sort. */
	time: string;
	/** The records and what happened to them, in the parameters' words: "Orders", "Paid". */
	records: string;
	verb: string;
	/** What a row of this list is (Output: Rows for a Table). */
	source: RecordSource;
	withTickets?: boolean;
}

/** The spec names no event filter for the widget lists: the node keeps the event's records. */
export const widgetEventFilter = idField<INodeProperties>(
	{
		displayName: 'Event ID',
		name: 'eventPoint',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1001',
		description: "Only this event's records (kept by the node: the whole list is read)",
	},
	EVENT_COLLECTIONS,
);

function widgetProperties({ records, verb, withTickets }: WidgetList): INodeProperties[] {
	return [
		...returnAllAndLimit,
		filtersCollection([
			widgetEventFilter,
			{
				displayName: `${verb} After`,
				name: 'after',
				type: 'dateTime',
				default: '',
				description:
					`${records} ${verb.toLowerCase()} at or after this time. The API description ` +
					`does not list this filter: a service without it returns the whole list.`,
			},
		]),
		optionsCollection([
			outputOption,
			pagesInFlightOption,
			sortOption(
				`Sort by ${verb} Time`,
				'Oldest First',
				'Newest First',
				'The API description does not list this sort: a service without it keeps its ' +
					'own order.',
			),
			...(withTickets ? [splitTicketsOption] : []),
		]),
	];
}

function widgetList(list: WidgetList): OperationModule {
	const { option, path, time, verb, source } = list;
	return {
		option,
		kind: 'read',
		properties: widgetProperties(list),
		async execute(this: IExecuteFunctions, i: number) {
			const settings = pageSettings.call(this, i);
			const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
			const inputs = new Inputs(this.getNode(), i);
			const qs = sortQuery(settings.options, `order[${time}]`, inputs, `Sort by ${verb} Time`);
			if (filters.after !== undefined && filters.after !== null && filters.after !== '') {
				qs[`${time}[after]`] = inputs.time(filters.after, `${verb} After`);
			}
			const rows = wantsRows(settings.options, inputs);
			const event = filters.eventPoint;
			if (event !== undefined && event !== null && event !== '') {
				const id = inputs.id(event, widgetEventFilter);
				settings.keep = (record) => eventOf(record) === id;
			}
			const found = await apiRequestAllItems.call(this, path, qs, settings);
			if (rows) return await asRows(this, settings, found, source);
			return settings.options.splitTickets === true
				? found.flatMap((order): IDataObject[] => [orderOutput(order, true)].flat())
				: found;
		},
	};
}

export const widgetLists: OperationModule[] = [
	{
		option: {
			name: 'Get Many Orders',
			value: 'getManyOrders',
			description: 'List the orders placed in the sales widget on your site',
			action: 'Get many widget orders',
		},
		path: '/widget-orders',
		time: 'payAt',
		records: 'Orders',
		verb: 'Paid',
		source: 'widgetSales' as const,
		withTickets: true,
	},
	{
		option: {
			name: 'Get Many Refunds',
			value: 'getManyRefunds',
			description: 'List the refunds of widget orders',
			action: 'Get many widget refunds',
		},
		path: '/widget-orders-refunds',
		time: 'refundedAt',
		records: 'Refunds',
		verb: 'Refunded',
		source: 'widgetRefunds' as const,
	},
].map(widgetList);
