import type { IExecuteFunctions } from 'n8n-workflow';

import type { OperationModule } from './resources/operation';

const EXECUTE_ONCE =
	"turn on Execute Once in the node's Settings (it then runs for the first item only)";

/**
 * Whether a parameter value holds an expression anywhere (a static one is the same for every item).
 */
const hasExpression = (value: unknown): boolean =>
	typeof value === 'string'
		? value.startsWith('=')
		: typeof value === 'object' && value !== null && Object.values(value).some(hasExpression);

/**
 * The parameters with expressions, as item `i` resolves them; undefined when one cannot be read (no
 * hint then).
 */
function resolvedFor(context: IExecuteFunctions, names: string[], i: number): string | undefined {
	try {
		return JSON.stringify(names.map((name) => context.getNodeParameter(name, i, null)));
	} catch {
		return undefined;
	}
}

/**
 * n8n runs the node once per input item, silently. A write fed several items makes several
 * changes (a Create after Get Places holds every place); a read fed items that all resolve to
 * the same request outputs copies (Get Places after Get Many with a fixed event). Both are said
 * in the output pane, the way n8n says it for its own nodes.
 */
export function addRunHints(
	context: IExecuteFunctions,
	operation: OperationModule | undefined,
	count: number,
	outputCount: number,
): void {
	if (count < 2 || operation === undefined) return;
	if (operation.kind === 'write') {
		const what = operation.eachRun ?? 'each item made its own change';
		context.addExecutionHints({
			message:
				`This node ran ${count} times, once for each input item: ${what}. If you meant one ` +
				`run, ${EXECUTE_ONCE}, or combine the items first (Aggregate; Places takes a list).`,
			location: 'outputPane',
			type: 'warning',
		});
		return;
	}
	// Nothing out, no copies.
	if (outputCount === 0) return;
	const { parameters } = context.getNode();
	const names = Object.keys(parameters)
		.filter((name) => hasExpression(parameters[name]))
		.sort();
	const keys = new Set<string>();
	for (let i = 0; i < count; i++) {
		const key = names.length === 0 ? '' : resolvedFor(context, names, i);
		if (key === undefined) return;
		keys.add(key);
	}
	if (keys.size === count) return;
	const same =
		keys.size === 1
			? `All ${count} input items asked for the same thing`
			: `The ${count} input items asked for only ${keys.size} different things`;
	context.addExecutionHints({
		message:
			`${same}, so the output repeats the same results ${count - keys.size} more ` +
			`time${count - keys.size === 1 ? '' : 's'}. To read it once, ${EXECUTE_ONCE}` +
			`, or remove the duplicates before this node (Remove Duplicates). To read ` +
			`one thing per item, map the field to the item's data, e.g. {{ $json.id }}.`,
		location: 'outputPane',
	});
}
