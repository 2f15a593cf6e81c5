import {
	Workflow,
	type ExecutionError,
	type IConnections,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IRun,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import type { CredentialStore } from './credentials';
import { executeFromStart } from './execute';
import { buildNode, NodeTypeRegistry, START_NODE_TYPE, type NodeUnderTest } from './runtime';

/** One node of a workflow under test: a node type, its name and its parameters as saved. */
export type WorkflowNode = Omit<NodeUnderTest, 'credentials' | 'name'> & { name: string };

/** A connection of a graph: main output `output` (0 by default) of `from` into `to`. */
export interface Link {
	from: string;
	to: string;
	output?: number;
}

export interface RunWorkflowOptions {
	/** Run as a chain: Start -> nodes[0] -> nodes[1] -> ... (main output 0 to main input 0). */
	nodes: WorkflowNode[];
	/** Instead of a chain, these connections ("Start" is the start node's name). */
	links?: Link[];
	credentials?: CredentialStore;
	/** Items the start node feeds into the first node. Default: one empty item. */
	inputItems?: IDataObject[];
	/** Default 'manual', as when clicking "Execute workflow". */
	mode?: WorkflowExecuteMode;
}

export interface RunWorkflowResult {
	/** Main output 0 of a node's first run; empty when it did not run or failed. */
	output(name: string): INodeExecutionData[];
	/**
	 * Every run of a node, in order: its main output 0, every main output (the error output is 1)
	 * and its error.
	 */
	runs(name: string): Array<{
		items: INodeExecutionData[];
		outputs: INodeExecutionData[][];
		error?: ExecutionError;
	}>;
	/** Names of the nodes that ran, in the order they ran (Start excluded). */
	executed: string[];
	/** The error that stopped the run, as n8n records it. */
	error?: ExecutionError;
	/** The whole run, as n8n would store it. */
	run: IRun;
}

/**
 * Runs a chain of nodes through n8n-core's `WorkflowExecute`, as `runNode` runs one: the start
 * node goes on the execution stack with the input items, and n8n does the rest (data between
 * nodes, pairedItem, expressions such as `$('Other node').item`, one credential for all).
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<RunWorkflowResult> {
	const mode = options.mode ?? 'manual';
	const start: INode = {
		id: 'start',
		name: 'Start',
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const nodes: INode[] = options.nodes.map((node, index) => ({
		...buildNode({ ...node, credentials: options.credentials }),
		id: `node-${index + 1}`,
		position: [200 * (index + 1), 0],
	}));
	const names = [start.name, ...nodes.map((node) => node.name)];
	if (new Set(names).size !== names.length)
		throw new Error(`runWorkflow: node names must be unique: ${names.join(', ')}`);
	const links = options.links ?? names.slice(1).map((to, i) => ({ from: names[i], to, output: 0 }));
	const connections: IConnections = {};
	for (const { from, to, output = 0 } of links) {
		const main = (connections[from] ??= { main: [] }).main;
		while (main.length <= output) main.push([]);
		main[output]!.push({ node: to, type: 'main', index: 0 });
	}
	const workflow = new Workflow({
		id: 'engine-harness-workflow',
		name: 'Engine harness workflow',
		nodes: [start, ...nodes],
		connections,
		active: false,
		nodeTypes: new NodeTypeRegistry(
			Object.fromEntries(options.nodes.map((node) => [node.type, node.nodeType])),
		),
		settings: { executionOrder: 'v1' },
	});

	const input = (options.inputItems ?? [{}]).map((json) => ({ json }));
	const run = await executeFromStart(
		workflow,
		workflow.getNode(start.name)!,
		input,
		options.credentials,
		mode,
	);
	const taskData = run.data.resultData.runData;
	const executed = Object.entries(taskData)
		.filter(([name]) => name !== start.name)
		.sort(([, a], [, b]) => (a[0]?.executionIndex ?? 0) - (b[0]?.executionIndex ?? 0))
		.map(([name]) => name);
	return {
		output: (name) => taskData[name]?.[0]?.data?.main?.[0] ?? [],
		runs: (name) =>
			(taskData[name] ?? []).map((task) => ({
				items: task.data?.main?.[0] ?? [],
				outputs: (task.data?.main ?? []).map((output) => output ?? []),
				error: task.error,
			})),
		executed,
		error: run.data.resultData.error,
		run,
	};
}
