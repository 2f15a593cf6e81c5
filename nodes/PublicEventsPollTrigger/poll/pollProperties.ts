import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../shared/commonFields';
import { outputOption } from '../../shared/ledger/output';
import { startNotices } from './startNotices';

const sales = { source: ['salesAndRefunds'] };

export const pollProperties: INodeProperties[] = [
	{
		displayName: 'Source',
		name: 'source',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Sales and Refunds',
				value: 'salesAndRefunds',
				description: 'Sales and refunds in your widget, and paid orders of events',
			},
			{
				name: 'Catalog Changes',
				value: 'catalog',
				description: 'Events newly opened to your company, and changes to events',
			},
		],
		default: 'salesAndRefunds',
	},
	...startNotices,
	{
		displayName:
			'Widget refunds come, but not refunds of orders sold through the API (for ' +
			'example by the Public Events node, Order > Create): the service lists no refunds ' +
			'of those. They come by the Public Events Trigger (push), and Sales Ledger > ' +
			'Reconcile Table finds them for your table.',
		name: 'apiRefundsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: sales },
	},
	{
		displayName: 'Include',
		name: 'include',
		type: 'multiOptions',
		options: [
			{
				name: 'Event Orders',
				value: 'eventOrders',
				description:
					'Orders made through the API and paid (the orders of each event, by payment time)',
			},
			{
				name: 'Widget Refunds',
				value: 'widgetRefunds',
				description: 'Refunds of widget orders, by refund time',
			},
			{
				name: 'Widget Sales',
				value: 'widgetSales',
				description: 'Orders paid in the sales widget on your site, by payment time',
			},
		],
		default: ['widgetSales', 'widgetRefunds', 'eventOrders'],
		description:
			'Each poll costs one request per included feed, and one per watched event for Event Orders',
		displayOptions: { show: sales },
	},
	{
		displayName: 'Event Orders Of',
		name: 'eventScope',
		type: 'options',
		options: [
			{
				name: 'All Visible Events',
				value: 'all',
				description: 'Every event your key sees; the list is read again at most every 15 minutes',
			},
			{ name: 'Chosen Events', value: 'chosen' },
		],
		default: 'all',
		displayOptions: { show: { ...sales, include: ['eventOrders'] } },
	},
	{
		displayName: 'Event Names or IDs',
		name: 'eventIds',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getWatchableEvents' },
		default: [],
		description:
			'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		displayOptions: { show: { ...sales, include: ['eventOrders'], eventScope: ['chosen'] } },
	},
	{
		displayName: 'Fields to Ignore',
		name: 'fieldsToIgnore',
		type: 'string',
		default: 'countAvailableTickets',
		placeholder: 'countAvailableTickets, description',
		description:
			'Top-level event fields, separated by commas, whose changes ' +
			'do not count. countAvailableTickets changes with every sale.',
		displayOptions: { show: { source: ['catalog'] } },
	},
	optionsCollection([
		{ ...outputOption, displayOptions: { show: { '/source': ['salesAndRefunds'] } } },
		{
			displayName: 'Start From',
			name: 'startFrom',
			type: 'dateTime',
			default: '',
			description:
				'Emit sales and refunds from this time on at the first poll (a ' +
				'backfill). Empty: start from the moment the workflow is ' +
				'activated. Setting a different date later starts over from it.',
			displayOptions: { show: { '/source': ['salesAndRefunds'] } },
		},
		{
			displayName: 'Overlap Window (Minutes)',
			name: 'overlapMinutes',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 1440 },
			default: 5,
			description:
				'Each poll reads again this far back before the newest record it emitted, and ' +
				'skips what it emitted already: records that share a timestamp, arrive late or ' +
				'carry a skewed clock are not missed. Longer is safer; each poll then reads more.',
			displayOptions: { show: { '/source': ['salesAndRefunds'] } },
		},
		{
			displayName: 'Settlement Lag (Minutes)',
			name: 'settlementLagMinutes',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 1440, numberPrecision: 0 },
			default: 15,
			description:
				'How long after its payment or refund time a record may first appear in ' +
				"the service's lists (a payment still settling, a slow replica). Each poll " +
				"looks this far back from the service's current time and skips what it " +
				"emitted already. 15 is the service's default hold, within which a payment " +
				'completes. Longer catches later records; each poll then reads more.',
			displayOptions: { show: { '/source': ['salesAndRefunds'] } },
		},
	]),
];
