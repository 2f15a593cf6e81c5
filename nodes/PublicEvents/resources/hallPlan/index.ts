import type { INodeProperties } from 'n8n-workflow';

import * as getPlaces from './getPlaces';
import * as getSectorPlaces from './getSectorPlaces';
import * as getSectors from './getSectors';

export const operations = { getPlaces, getSectorPlaces, getSectors };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['hallPlan'] } },
		options: [
			{
				name: 'Get Places',
				value: 'getPlaces',
				description:
					'List every place of an event with prices, price categories and availability, one item per place. The heaviest data: read it for one event when needed, not across the catalog.',
				action: 'Get places of an event',
			},
			{
				name: 'Get Sector Places',
				value: 'getSectorPlaces',
				description: 'List the places of one sector of an event',
				action: 'Get places of a sector',
			},
			{
				name: 'Get Sectors',
				value: 'getSectors',
				description: 'List the sectors of an event',
				action: 'Get sectors of an event',
			},
		],
		default: 'getPlaces',
	},
	...getPlaces.description,
	...getSectorPlaces.description,
	...getSectors.description,
];
