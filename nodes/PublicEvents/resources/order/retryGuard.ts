import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * One run of the node in an execution, across the tries of n8n's Retry On Fail (node settings).
 * n8n runs the node again after it failed (or, with On Error: Continue, after its first item came
 * out an error item), with the very same execute data object: n8n-core's WorkflowExecute calls
 * runNode with it for every try, in 2.40 and 1.123 alike. Any other run of the node (the next
 * batch of Loop Over Items, a second branch into it, another execution) gets a new one. So that
 * object, which a node reads with getExecuteData(), tells a retry from a new run, whatever the
 * items hold.
 */
export interface NodeRun {
	tries: number;
	/** What each input item's write ended in, by item index, when a retry must not send it again. */
	items: Map<number, Ended>;
}

/** Applied: its output, given again. Uncertain: its error, thrown again (the message as it was). */
type Ended = { output: IDataObject[] } | { error: Error; message: string };

const runs = new WeakMap<object, NodeRun>();

/** The node run this call belongs to (per try when n8n gives no execute data). */
export function nodeRunOf(context: IExecuteFunctions): NodeRun {
	const key = (context.getExecuteData?.() as object | undefined) ?? context;
	let run = runs.get(key);
	if (!run) runs.set(key, (run = { tries: 0, items: new Map() }));
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
