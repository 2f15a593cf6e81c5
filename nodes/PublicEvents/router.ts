import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';

import { operations } from './resources';
import { addRunHints } from './runHints';
import { inOrder } from './transport/pages';

/** Input items read at once: reads are independent; a write waits for the one before it. */
export const READS_IN_FLIGHT = 8;

/** Operations that only read (by name: get..., export...); any other runs one item at a time, in order. */
const isRead = (operation: string) => /^(get|export)/.test(operation);

/**
 * Runs the chosen operation once per input item, reads a few items at a time (the same adaptive
 * window as pages), output in input order; errors become error items under continueOnFail.
 */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	// Item 0 alone, as page 1 of a list: a wrong credential or setting stops the run before more go out.
	const output: INodeExecutionData[] = items.length > 0 ? await runItem.call(this, 0) : [];
	const operation = this.getNodeParameter('operation', 0, '') as string;
	const read = isRead(operation);
	const atOnce = read ? READS_IN_FLIGHT : 1;
	await inOrder(
		async (i) => await runItem.call(this, i),
		1,
		items.length - 1,
		atOnce,
		(_, result) => {
			output.push(...result);
			return true;
		},
	);
	addRunHints(this, operation, read, items.length, output.length);
	return [output];
}

async function runItem(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const resource = this.getNodeParameter('resource', i) as string;
	const operation = this.getNodeParameter('operation', i) as string;
	try {
		const run = operations[resource]?.[operation];
		if (!run)
			throw new NodeOperationError(
				this.getNode(),
				`Unsupported operation "${operation}" of "${resource}"`,
				{ itemIndex: i },
			);
		const result = await run.execute.call(this, i);
		return (Array.isArray(result) ? result : [result]).map((json) => ({
			json,
			pairedItem: { item: i },
		}));
	} catch (error) {
		if (!this.continueOnFail()) {
			// Both constructors hand back an error of their own class unchanged.
			if (error instanceof NodeApiError)
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
		}
		const json = errorJson(error);
		// n8n sends an item down the error output (adding the input item's fields) only when
		// its keys are `error` and `message` (1.x; 2.x also takes `details`): there the
		// description (request, HTTP status, what the service said) is the message.
		const errorOutput = this.getNode().onError === 'continueErrorOutput';
		const errorItem = json.description
			? { error: json.error, message: json.description }
			: { error: json.error };
		return [{ json: errorOutput ? errorItem : json, pairedItem: { item: i } }];
	}
}

function errorJson(error: unknown): IDataObject {
	const e = error as {
		message?: string;
		description?: string;
		httpCode?: string;
		context?: JsonObject;
	};
	const json: IDataObject = { error: e.message ?? String(error) };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	if (e.context?.body !== undefined) json.body = e.context.body as IDataObject;
	return json;
}
