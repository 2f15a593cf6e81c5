import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

/**
 * Stand-ins for n8n's own flow nodes (n8n-nodes-base is not installed here), enough for n8n-core's
 * engine to run the same graphs: a node feeding two branches, and Loop Over Items.
 */

const description = (
	name: string,
	outputs: number,
): INodeTypeDescription & { outputNames?: string[] } => ({
	displayName: name,
	name,
	group: ['transform'],
	version: 1,
	description: 'Engine harness flow node',
	defaults: { name },
	inputs: [NodeConnectionTypes.Main],
	outputs: Array.from({ length: outputs }, () => NodeConnectionTypes.Main),
	properties: [],
});

/** Its input items on both outputs, as they came: two branches that may meet again in one node. */
export class FanOut implements INodeType {
	description = description('fanOut', 2);

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		return [0, 1].map(() => items.map(({ json }) => ({ json: { ...json } })));
	}
}

/**
 * Loop Over Items (n8n's SplitInBatches 3) with a batch size of 1: output 0 ("done") gets every
 * item the loop sent back once all are through, output 1 ("loop") one item per run. Wire the last
 * node of the loop back into it.
 */
export class LoopOverItems implements INodeType {
	description = description('loopOverItems', 2);

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const state = this.getContext('node') as {
			left?: INodeExecutionData[];
			done?: INodeExecutionData[];
		};
		const input = this.getInputData().map(({ json }) => ({ json }));
		if (state.left === undefined) {
			state.left = input;
			state.done = [];
		} else {
			state.done!.push(...input);
		}
		const next = state.left.splice(0, 1);
		if (next.length > 0) return [[], next];
		const done = state.done!;
		state.left = undefined;
		state.done = undefined;
		return [done, []];
	}
}

export const FAN_OUT = 'engineHarness.fanOut';
export const LOOP_OVER_ITEMS = 'engineHarness.loopOverItems';
