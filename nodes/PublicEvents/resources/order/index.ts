import type { INodeProperties } from 'n8n-workflow';

import * as addPlace from './addPlace';
import * as changeStatus from './changeStatus';
import * as changeTicketStatus from './changeTicketStatus';
import * as create from './create';
import * as extendHold from './extendHold';
import * as get from './get';
import * as getManyForEvent from './getManyForEvent';
import * as getPaymentData from './getPaymentData';
import * as removeTicket from './removeTicket';

export const operations = {
	addPlace,
	changeStatus,
	changeTicketStatus,
	create,
	extendHold,
	get,
	getManyForEvent,
	getPaymentData,
	removeTicket,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['order'] } },
		options: [
			{
				name: 'Add Place',
				value: 'addPlace',
				description: 'Add places to an order that is still held',
				action: 'Add places to an order',
			},
			{
				name: 'Change Status',
				value: 'changeStatus',
				description: 'Report payment (Paid), refund a paid order, or release a hold',
				action: 'Change the status of an order',
			},
			{
				name: 'Change Ticket Status',
				value: 'changeTicketStatus',
				description: 'Change the status of one ticket, e.g. refund it',
				action: 'Change the status of a ticket',
			},
			{
				name: 'Create',
				value: 'create',
				description: 'Create an order that holds places for a number of minutes',
				action: 'Create an order',
			},
			{
				name: 'Extend Hold',
				value: 'extendHold',
				description: 'Hold the places of an order longer',
				action: 'Extend the hold of an order',
			},
			{
				name: 'Get',
				value: 'get',
				description:
					'Get an order: totals, hold deadline and, once paid, the tickets with barcodes',
				action: 'Get an order',
			},
			{
				name: 'Get Many for Event',
				value: 'getManyForEvent',
				description: "List your company's orders for an event, without tickets",
				action: 'Get many orders for an event',
			},
			{
				name: 'Get Payment Data',
				value: 'getPaymentData',
				description:
					'Get the payment provider data of a held order (only when payment goes through the service)',
				action: 'Get payment data of an order',
			},
			{
				name: 'Remove Ticket',
				value: 'removeTicket',
				description: 'Remove a ticket from an order that is still held, freeing its place',
				action: 'Remove a ticket from an order',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...addPlace.description,
	...removeTicket.description,
	...extendHold.description,
	...changeStatus.description,
	...changeTicketStatus.description,
	...getPaymentData.description,
	...getManyForEvent.description,
];
