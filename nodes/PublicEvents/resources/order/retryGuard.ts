import type { IDataObject, IExecuteData, IExecuteFunctions } from 'n8n-workflow';

/**
 * One run of the node in an execution, across the tries of n8n's Retry On Fail (node settings).
 * What n8n-core gives each try, in 2.40 and 1.123 alike:
 * - a node on the canvas (WorkflowExecute, and an AI Agent 3.x's tool run as its own stack entry):
 *   every try of one run gets the very same execute data object, whose `node` is this node
 *   (runNode passes it and its node to each try); any other run of the node (the next batch of
 *   Loop Over Items, a second branch into it, another execution) gets a new one;
 * - a tool called by an AI Agent 2.x, an AI Agent Tool's sub-agent or an MCP Server Trigger
 *   (get-input-connection-data.js, makeHandleToolInvocation): every call and every try gets the
 *   caller's execute data (its `node` is the caller) and a run index of its own, so neither tells
 *   a call from a try; the tries of one call share the arguments object the model's call was
 *   parsed into, which is the json of the one input item each try gets, and no other call has it.
 * So a node run is keyed by the execute data, the node and, for a tool call, that object: a retry
 * is told from a new run, or another tool call, whatever the items hold.
 */
export interface NodeRun {
	tries: number;
	/** What each input item's write ended in, by item index, when a retry must not send it again. */
	items: Map<number, Ended>;
}

/** Applied: its output, given again. Uncertain: its error, thrown again (the message as it was). */
type Ended = { output: IDataObject[] } | { error: Error; message: string };

/** Execute data -> node name -> the run of a node on the canvas, or of one tool call. */
const runs = new WeakMap<object, Map<string, WeakMap<object, NodeRun>>>();

/**
 * What stays the same across the tries of one node run and differs for any other: see NodeRun.
 * Without execute data (not n8n's engine), each try is a run of its own.
 */
function runKeyOf(context: IExecuteFunctions): [object, string, object] {
	const data = context.getExecuteData?.() as IExecuteData | undefined;
	const name = context.getNode().name;
	if (!data) return [context, name, context];
	if (data.node?.name === name) return [data, name, data];
	const call = context.getInputData()[0]?.json as object | undefined;
	return [data, name, typeof call === 'object' && call !== null ? call : context];
}

/** The node run this call belongs to. */
export function nodeRunOf(context: IExecuteFunctions): NodeRun {
	const [data, name, call] = runKeyOf(context);
	let nodes = runs.get(data);
	if (!nodes) runs.set(data, (nodes = new Map()));
	let calls = nodes.get(name);
	if (!calls) nodes.set(name, (calls = new WeakMap()));
	let run = calls.get(call);
	if (!run) calls.set(call, (run = { tries: 0, items: new Map() }));
	return run;
}

/** Called once per try, as the node starts. */
export function startTry(context: IExecuteFunctions): void {
	nodeRunOf(context).tries++;
}

/**
 * Whether n8n will run the node again if this try fails: Retry On Fail is on and tries are left
 * (n8n's count: Max Tries, 3 by default, from 2 to 5).
 */
export function triesLeft(context: IExecuteFunctions): boolean {
	const node = context.getNode();
	if (node.retryOnFail !== true) return false;
	const tries = Math.min(5, Math.max(2, Number(node.maxTries) || 3));
	return nodeRunOf(context).tries < tries;
}

const outcomeOf = (error: unknown) =>
	((error as { context?: IDataObject })?.context?.writeCheck as IDataObject | undefined)?.outcome;

/**
 * Item `i`'s write, once per node run: an earlier try's applied write is not sent again (its output
 * is given again, so no applied write is reported lost), nor is an uncertain one (its error is
 * thrown again: Create would be refused by its own hold and say NOT applied, Hold Best Available
 * would hold other places). A refused or not applied write is sent again: that is what the retry
 * is for.
 */
export async function onceAcrossTries(
	context: IExecuteFunctions,
	i: number,
	write: () => Promise<IDataObject[]>,
): Promise<IDataObject[]> {
	const { items } = nodeRunOf(context);
	const ended = items.get(i);
	if (ended && 'output' in ended) return ended.output;
	if (ended) {
		ended.error.message = ended.message;
		return await Promise.reject(ended.error);
	}
	return await write().then(
		(output) => {
			items.set(i, { output });
			return output;
		},
		async (error: unknown) => {
			if (outcomeOf(error) === 'uncertain')
				items.set(i, { error: error as Error, message: (error as Error).message });
			return await Promise.reject(error);
		},
	);
}
