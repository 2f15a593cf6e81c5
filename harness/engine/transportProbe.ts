import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { apiRequest, apiRequestAllItems, retryPolicyFrom } from '../../nodes/shared/transport';

/**
 * A test node that calls the transport directly, so tests and benchmarks reach what no
 * operation exposes yet (any method and path, the pages in flight) through n8n-core.
 */
export class TransportProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transport Probe',
		name: 'transportProbe',
		group: ['transform'],
		version: 1,
		description: 'Test node',
		defaults: { name: 'Transport Probe' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'publicEventsApi', required: true }],
		properties: [
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'Path', name: 'path', type: 'string', default: '/event-points' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '' },
			{ displayName: 'All Pages', name: 'allPages', type: 'boolean', default: false },
			{ displayName: 'Max Pages in Flight', name: 'maxPagesInFlight', type: 'number', default: 0 },
			{ displayName: 'Options', name: 'options', type: 'json', default: '{}' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const method = this.getNodeParameter('method', 0) as IHttpRequestMethods;
		const path = this.getNodeParameter('path', 0) as string;
		const body = this.getNodeParameter('body', 0) as IDataObject | string;
		const options = this.getNodeParameter('options', 0) as IDataObject | string;
		const maxPagesInFlight = (this.getNodeParameter('maxPagesInFlight', 0) as number) || undefined;
		const settings = {
			retry: retryPolicyFrom(typeof options === 'string' ? JSON.parse(options) : options),
			itemIndex: 0,
			maxPagesInFlight,
		};
		const result = this.getNodeParameter('allPages', 0)
			? await apiRequestAllItems.call(this, path, {}, settings)
			: await apiRequest.call(
					this,
					method,
					path,
					{ body: typeof body === 'string' && body ? JSON.parse(body) : body || undefined },
					settings,
				);
		return [
			(Array.isArray(result) ? result : [result]).map((json) => ({ json: json as IDataObject })),
		];
	}
}
