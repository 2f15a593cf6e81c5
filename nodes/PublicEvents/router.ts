import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';

import { operations } from './resources';

/** Runs the chosen operation once per input item; errors become error items under continueOnFail. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const output: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const resource = this.getNodeParameter('resource', i) as string;
		const operation = this.getNodeParameter('operation', i) as string;
		try {
			const run = operations[resource]?.[operation];
			if (!run) throw new NodeOperationError(this.getNode(), `Unsupported operation "${operation}" of "${resource}"`, { itemIndex: i });
			const result = await run.execute.call(this, i);
			for (const json of Array.isArray(result) ? result : [result]) output.push({ json, pairedItem: { item: i } });
		} catch (error) {
			if (!this.continueOnFail()) {
				// Both constructors hand back an error of their own class unchanged.
				if (error instanceof NodeApiError) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
			}
			const json = errorJson(error);
			// n8n sends an item down the error output (adding the input item's fields) only when
			// its keys are `error` and `message` (1.x; 2.x also takes `details`): there the
			// description (request, HTTP status, what the service said) is the message.
			const errorOutput = this.getNode().onError === 'continueErrorOutput';
			const errorItem = json.description ? { error: json.error, message: json.description } : { error: json.error };
			output.push({ json: errorOutput ? errorItem : json, pairedItem: { item: i } });
		}
	}
	return [output];
}

function errorJson(error: unknown): IDataObject {
	const e = error as { message?: string; description?: string; httpCode?: string; context?: JsonObject };
	const json: IDataObject = { error: e.message ?? String(error) };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	if (e.context?.body !== undefined) json.body = e.context.body as IDataObject;
	return json;
}
