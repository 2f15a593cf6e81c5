import type { INodeProperties } from 'n8n-workflow';

import * as exportForEvent from './exportForEvent';

export const operations = { exportForEvent };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['barcode'] } },
		options: [
			{
				name: 'Export for Event',
				value: 'exportForEvent',
				description:
					'Every barcode of an event your company organises, sold or unsold. As a partner, take barcodes from the paid order (Order > Get).',
				action: 'Export barcodes for an event',
			},
		],
		default: 'exportForEvent',
	},
	...exportForEvent.description,
];
