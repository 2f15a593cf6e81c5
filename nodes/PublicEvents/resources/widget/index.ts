import type { INodeProperties } from 'n8n-workflow';

import * as getManyOrders from './getManyOrders';
import * as getManyRefunds from './getManyRefunds';

export const operations = { getManyOrders, getManyRefunds };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['widget'] } },
		options: [
			{
				name: 'Get Many Orders',
				value: 'getManyOrders',
				description: 'List the orders placed in the sales widget on your site',
				action: 'Get many widget orders',
			},
			{
				name: 'Get Many Refunds',
				value: 'getManyRefunds',
				description: 'List the refunds of widget orders',
				action: 'Get many widget refunds',
			},
		],
		default: 'getManyOrders',
	},
	...getManyOrders.description,
	...getManyRefunds.description,
];
