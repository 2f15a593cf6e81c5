import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { publicEventsApiConnection } from '../shared/credentialTests';
import { loadOptions } from '../shared/methods/loadOptions';
import { searchEvents, searchPlaces, searchSectors } from '../shared/methods/listSearch';
import { operationProperties, resourceOptions } from './resources';
import { route } from './router';

export class PublicEvents implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Public Events',
		name: 'publicEvents',
		icon: { light: 'file:publicEvents.svg', dark: 'file:publicEvents.dark.svg' },
		group: ['transform'],
		version: 1,
		// Plain words on the canvas: "Order: Hold Best Available", not "holdBestAvailable: order".
		subtitle:
			'={{ [$parameter.resource, $parameter.operation].map((word) => word.charAt(0).toUpperCase() \
+ word.slice(1).replace(/([A-Z])/g, " $1")).join(": ") }}',
		description:
			'Sell tickets through the Public Events API: ' +
			'events, hall plans, orders, tickets and barcodes',
		defaults: { name: 'Public Events' },
		usableAsTool: true,
		// Read by n8n's AI workflow builder (n8n 2.x); older n8n ignores it.
		builderHint: {
			searchHint:
				'Public Events ticketing API: read events, hall plans and places, sell tickets, ' +
				'list sales and refunds. To sell: Order > Create holds the places for some ' +
				'minutes, then Order > Change Status to Paid reports that the buyer paid (a ' +
				'hold not paid in time expires). Barcode > Export for Event gives an organiser ' +
				'the barcodes of an event for entry control. Widget > Get Many Orders, Widget > ' +
				'Get Many Refunds and Order > Get Many for Event with Options > Output set to ' +
				'Ledger Rows give one flat row per sale and per refund; Sales Ledger > Get Rows ' +
				'gives every channel of a period (e.g. yesterday) and Reconcile Table what a table ' +
				'lacks: upsert them into a Data Table or Google Sheets by key. Event > Get Sales ' +
				'Summary totals an event. To react to new sales and refunds, start ' +
				'the workflow with Public Events Trigger (push) or Public Events Poll Trigger.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-public-events.publicEventsTrigger',
					relationHint: 'Starts a workflow on each sale, refund or event change the service pushes',
				},
				{
					nodeType: 'n8n-nodes-public-events.publicEventsPollTrigger',
					relationHint:
						'Starts a workflow on new sales and refunds by polling, when push is not enabled',
				},
				{
					nodeType: 'n8n-nodes-base.dataTable',
					relationHint: 'Keeps the Ledger Rows output, upserted by key',
				},
				{
					nodeType: 'n8n-nodes-base.googleSheets',
					relationHint: 'Keeps the Ledger Rows output in a sheet, appended or updated by key',
				},
			],
		},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'publicEventsApi', required: true, testedBy: 'publicEventsApiConnection' },
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: resourceOptions,
				default: 'event',
			},
			...operationProperties,
		],
	};

	methods = {
		listSearch: { searchEvents, searchPlaces, searchSectors },
		loadOptions,
		credentialTest: { publicEventsApiConnection },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this);
	}
}
