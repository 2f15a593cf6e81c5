import type { INodeProperties } from 'n8n-workflow';

import { description as listProperties, operationOptions, operations } from './getMany';

export { operations };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['reference'] } },
		options: operationOptions,
		default: 'getManyCountries',
	},
	...listProperties,
];
