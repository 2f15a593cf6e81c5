import {
	NodeConnectionTypes,
	type IHookFunctions,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { publicEventsApiConnection, webhookSecretForm } from '../shared/credentialTests';
import { triggerProperties, triggerSubtitle } from './webhook/pushProperties';
import { triggerPanel } from './webhook/testPanel';
import { receive } from './webhook/receive';

export class PublicEventsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Public Events Trigger',
		name: 'publicEventsTrigger',
		icon: { light: 'file:publicEvents.svg', dark: 'file:publicEvents.dark.svg' },
		group: ['trigger'],
		// 1.1: Security defaults to Signature. Workflows saved at 1 keep None, their stored default.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: triggerSubtitle,
		// n8n's waiting text says "Waiting for you to create an event in Public Events" otherwise:
		// an event is a concert here.
		eventTriggerDescription: 'Waiting for a sale, refund or event change from Public Events',
		// n8n's node creator shows the Public Events node and this trigger as one entry, with this
		// text (a trigger named like an action node plus "Trigger" lends it its description): so it
		// speaks for both.
		description:
			'Sell tickets through the Public Events API (events, hall plans, orders, barcodes) ' +
			'and start a workflow on each sale, refund or event change the service pushes',
		defaults: { name: 'Public Events Trigger' },
		// Read by n8n's AI workflow builder (n8n 2.x); older n8n ignores it.
		builderHint: {
			searchHint:
				'Starts a workflow when the Public Events service pushes a notification to this ' +
				"node's URL: a sale, a refund (API orders' refunds too), a new event or an " +
				"event update. The service's staff enable push for the URL; use Public Events " +
				'Poll Trigger when push is not enabled. Fetch Full Order adds the order with its ' +
				'amount and tickets (widget sales too); its Ledger Rows output gives the ' +
				"Poll Trigger's rows, for a Data Table or Google Sheets upserted by key. " +
				'Follow with the Public Events node to read or change the order.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-public-events.publicEventsPollTrigger',
					relationHint: 'The polling alternative when the service does not push to n8n',
				},
				{
					nodeType: 'n8n-nodes-public-events.publicEvents',
					relationHint: 'Reads the order or its event, changes an order after a notification',
				},
				{
					nodeType: 'n8n-nodes-base.dataTable',
					relationHint: 'Keeps sales and refunds as ledger rows, upserted by key',
				},
				{
					nodeType: 'n8n-nodes-base.googleSheets',
					relationHint: 'Keeps sales and refunds in a sheet',
				},
			],
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'publicEventsWebhookApi',
				required: true,
				testedBy: 'webhookSecretForm',
				displayOptions: { show: { authentication: ['headerToken', 'signature'] } },
			},
			{
				name: 'publicEventsApi',
				required: true,
				testedBy: 'publicEventsApiConnection',
				displayOptions: { show: { fetchFullOrder: [true] } },
			},
		],
		// noData: n8n answers a started execution with an empty 200; without it, with the text
		// "firstEntryJson".
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: 'noData',
				path: 'webhook',
			},
		],
		triggerPanel,
		properties: triggerProperties,
	};

	methods = {
		credentialTest: { webhookSecretForm, publicEventsApiConnection },
	};

	/**
	 * The service has no registration API: push delivery is enabled by its staff
	 * for a URL the partner gives them. So activation registers nothing remote: checkExists says
	 * nothing is registered by n8n, create and delete have nothing to call and succeed.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return false;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receive.call(this);
	}
}
