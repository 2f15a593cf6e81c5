import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * n8n's Retry On Fail (node settings) runs a node again, in the same execution, on the same items,
 * after it failed. A write that ended uncertain (its answer lost, it may have applied) must not be
 * sent again by such a retry: Create would be refused by the first try's own hold and say NOT
 * applied, Hold Best Available would hold other places, and the first try's order would be named
 * nowhere. So the uncertain error is kept per execution, node and input item (by content: a loop
 * feeding the node new items is not a retry) and thrown again by the retry, with no request.
 */
const kept = new Map<string, Error>();
const KEPT_AT_MOST = 1_000;

function keyOf(context: IExecuteFunctions, itemIndex: number): string | undefined {
	const execution = context.getExecutionId?.();
	if (!execution) return undefined;
	const node = context.getNode();
	const item = context.getInputData()[itemIndex]?.json ?? {};
	return createHash('sha256')
		.update(JSON.stringify([execution, node.id ?? node.name, itemIndex, item]))
		.digest('base64url');
}

const outcomeOf = (error: unknown) =>
	((error as { context?: IDataObject })?.context?.writeCheck as IDataObject | undefined)?.outcome;

/** The uncertain error an earlier try of this item in this execution ended with, if any. */
export function earlierUncertain(
	context: IExecuteFunctions,
	itemIndex: number | undefined,
): Error | undefined {
	const key = keyOf(context, itemIndex ?? 0);
	return key === undefined ? undefined : kept.get(key);
}

/** Keeps `error` when the write ended uncertain, for a retry of the same item to throw again. */
export function keepIfUncertain(
	context: IExecuteFunctions,
	itemIndex: number | undefined,
	error: unknown,
): void {
	if (outcomeOf(error) !== 'uncertain') return;
	const key = keyOf(context, itemIndex ?? 0);
	if (key === undefined) return;
	kept.set(key, error as Error);
	for (const oldest of kept.keys()) {
		if (kept.size <= KEPT_AT_MOST) break;
		kept.delete(oldest);
	}
}
