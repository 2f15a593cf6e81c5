import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { loadOptions } from './methods/loadOptions';
import { searchEvents, searchPlaces, searchSectors } from './methods/listSearch';
import { resourceOptions, resourceProperties } from './resources';
import { route } from './router';

export class PublicEvents implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Public Events',
		name: 'publicEvents',
		icon: { light: 'file:publicEvents.svg', dark: 'file:publicEvents.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Sell tickets through the Public Events API: events, hall plans, orders, tickets and barcodes',
		defaults: { name: 'Public Events' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'publicEventsApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: resourceOptions,
				default: 'event',
			},
			...resourceProperties,
		],
	};

	methods = {
		listSearch: { searchEvents, searchPlaces, searchSectors },
		loadOptions,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this);
	}
}
