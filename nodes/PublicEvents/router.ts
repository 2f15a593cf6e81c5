import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';

import { operationOf } from './resources';
import type { OperationModule } from './resources/operation';
import { afterStoppedRun } from './resources/order/holdLedger';
import { onceAcrossTries, startTry } from './resources/order/retryGuard';
import { addRunHints } from './executionHints';
import { inOrder } from '../shared/transport';

/** Input items read at once: reads are independent; a write waits for the one before it. */
export const READS_IN_FLIGHT = 8;

/**
 * Runs the chosen operation once per input item, reads a few items at a time (the same adaptive
 * window as pages), output in input order; errors become error items under continueOnFail.
 */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	startTry(this);
	const items = this.getInputData();
	const chosen = operationOf(
		this.getNodeParameter('resource', 0, '') as string,
		this.getNodeParameter('operation', 0, '') as string,
	);
	if (chosen?.executeAll && items.length > 0) return [await runOnce.call(this, chosen)];
	// Item 0 alone, as page 1 of a list: a wrong credential or setting stops the run before more go
	// out.
	const output: INodeExecutionData[] = items.length > 0 ? await runItem.call(this, 0) : [];
	// Item 0 ran: the resource and operation are known (an unknown one threw, or is an error item).
	const resource = this.getNodeParameter('resource', 0, '') as string;
	const operation = operationOf(resource, this.getNodeParameter('operation', 0, '') as string);
	const atOnce = operation?.kind === 'write' ? 1 : READS_IN_FLIGHT;
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
	addRunHints(this, operation, items.length, output.length);
	return [output];
}

/** An operation over all input items at once: one run, one error. */
async function runOnce(
	this: IExecuteFunctions,
	operation: OperationModule,
): Promise<INodeExecutionData[]> {
	try {
		return await operation.executeAll!.call(this);
	} catch (error) {
		if (!this.continueOnFail())
			throw error instanceof NodeApiError || error instanceof NodeOperationError
				? error
				: new NodeOperationError(this.getNode(), error as Error);
		return [{ json: errorJson(error), pairedItem: { item: 0 } }];
	}
}

async function runItem(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const resource = this.getNodeParameter('resource', i) as string;
	const operation = this.getNodeParameter('operation', i) as string;
	try {
		const run = operationOf(resource, operation);
		if (!run)
			throw new NodeOperationError(
				this.getNode(),
				`Unsupported operation "${operation}" of "${resource}"`,
				{ itemIndex: i },
			);
		const execute = async () => {
			const result = await run.execute.call(this, i);
			return Array.isArray(result) ? result : [result];
		};
		// A write is sent once per node run, whatever n8n's Retry On Fail does (retryGuard.ts).
		const result = run.kind === 'write' ? await onceAcrossTries(this, i, execute) : await execute();
		return result.map((json) => ({
			json,
			pairedItem: { item: i },
		}));
	} catch (error) {
		if (!this.continueOnFail()) {
			// Both constructors hand back an error of their own class unchanged.
			const stopped =
				error instanceof NodeApiError
					? new NodeApiError(this.getNode(), error as unknown as JsonObject)
					: new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
			// Holds made by earlier items are released, or named, before the run stops.
			await afterStoppedRun(this, i, stopped);
			throw stopped;
		}
		const json = errorJson(error);
		// n8n sends an item down the error output (adding the input item's fields) only when its keys
		// are `error` and `message` (1.x; 2.x also takes `details`), and replaces the fields of an item
		// carrying an error object: there the description (request, HTTP status, what the service
		// said) is the message, and a write's outcome is in the words the error begins with.
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
	// A write's outcome (writeCheck.ts): applied, refused, notApplied or uncertain, with the order.
	if (e.context?.writeCheck !== undefined) json.writeCheck = e.context.writeCheck as IDataObject;
	return json;
}
