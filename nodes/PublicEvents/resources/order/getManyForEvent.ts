import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	eventLocator,
	filtersCollection,
	optionsCollection,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../../shared/commonFields';
import { idParameter, pageSettings } from '../../../shared/readFields';
import { Inputs } from '../../../shared/inputs';
import { asRows, outputOption, wantsRows } from '../../../shared/ledger/output';
import { path } from '../../../shared/path';
import { apiRequestAllItems } from '../../../shared/transport';
import { changeTime } from '../../../shared/changes';
import { readWhole, withEvent } from '../../../shared/ledger/apiOrders';

export const option = {
	name: 'Get Many for Event',
	value: 'getManyForEvent',
	description: "List your company's orders for an event, without tickets",
	action: 'Get many orders for an event',
};

export const kind = 'read';

export const toolText =
	"List this account's orders for one event (event ID from the event search), without tickets.";

export const properties: INodeProperties[] = [
	{
		displayName:
			'Orders made through the API only: the widget sales of the event are in Widget > Get Many ' +
			'Orders (Filters > Event ID). Sales Ledger > Get Rows gives every channel.',
		name: 'apiChannelNotice',
		type: 'notice',
		default: '',
	},
	eventLocator,
	...returnAllAndLimit,
	filtersCollection([
		{
			displayName: 'Paid After',
			name: 'payAtAfter',
			type: 'dateTime',
			default: '',
			description: 'Only orders paid at or after this moment (payAt[after]); a day or a date-time',
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'multiOptions',
			// Named by the API description; other values by expression.
			options: [
				{
					name: 'Created',
					value: 'created',
					description: 'Status created: being set up, no places held yet',
				},
				{
					name: 'Expired',
					value: 'expired',
					description:
						'Status expired: the hold ended unpaid or was released; the places are free again',
				},
				{
					name: 'Held (Reserved to Time)',
					value: 'reserved_to_time',
					description:
						'Status reserved_to_time: the places are held, ' +
						'waiting for payment until reservedToDate',
				},
				{
					name: 'Paid',
					value: 'paid',
					description: 'Status paid: sold, the tickets carry barcodes',
				},
				{ name: 'Refund', value: 'refund', description: 'Status refund: paid, then refunded' },
			],
			default: [],
			description:
				'Only orders in any of these statuses: one is sent as status, several as status[]',
		},
	]),
	optionsCollection([outputOption, pagesInFlightOption]),
];

/**
 * The company's orders for one event, without tickets; as ledger rows, each sold order read whole
 * (one request each): its sale and its refunds.
 */
export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const rows = wantsRows(settings.options, inputs);
	const eventId = idParameter.call(this, i, inputs, eventLocator);
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const qs: IDataObject = {};
	// Several statuses by expression: an array, or text separated by commas.
	const status = Array.isArray(filters.status)
		? filters.status
		: typeof filters.status === 'string'
			? filters.status.split(',')
			: [filters.status ?? ''];
	const statuses = status
		.filter((s) => String(s).trim() !== '')
		.map((s) => inputs.text(s, 'Status'));
	// One status as the spec shows it; several in API Platform's array form, since a PHP service
	// keeps only the last of repeated plain keys.
	if (statuses.length === 1) qs.status = statuses[0];
	if (statuses.length > 1) qs['status[]'] = statuses;
	if (filters.payAtAfter !== undefined && filters.payAtAfter !== '')
		qs['payAt[after]'] = inputs.time(filters.payAtAfter, 'Paid After');
	const orders = await apiRequestAllItems.call(
		this,
		path`/event-points/${eventId}/orders`,
		qs,
		settings,
	);
	if (!rows) return orders;
	// The ledger's rows: sold orders only, each read whole (its list total may already be less its
	// refunds, and its refunds are rows of their own).
	const sold = orders
		.filter((order) => changeTime(order.payAt) !== undefined)
		.map((order) => withEvent(order, eventId));
	const { orders: whole } = await readWhole(this, sold, settings);
	return await asRows(this, settings, whole, 'eventOrders');
}
