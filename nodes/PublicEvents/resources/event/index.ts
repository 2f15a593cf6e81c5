import type { INodeProperties } from 'n8n-workflow';

import * as get from './get';
import * as getMany from './getMany';
import * as getManyArchived from './getManyArchived';

export const operations = { get, getMany, getManyArchived };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['event'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get one event session by ID',
				action: 'Get an event',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the events open to your company whose sale has not ended',
				action: 'Get many events',
			},
			{
				name: 'Get Many Archived',
				value: 'getManyArchived',
				description: 'List the events whose sale has ended',
				action: 'Get many archived events',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
	...get.description,
	...getManyArchived.description,
];
