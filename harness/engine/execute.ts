import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	type ExecutionError,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IRun,
	type Workflow,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { expectNoLeak } from '../secrets';
import type { CredentialStore } from './credentials';
import {
	buildAdditionalData,
	buildWorkflow,
	logPosition,
	logSince,
	type NodeUnderTest,
} from './runtime';

export interface RunNodeOptions extends NodeUnderTest {
	/** Items the start node feeds in: plain JSON or full items. Default: one empty item. */
	inputItems?: Array<IDataObject | INodeExecutionData>;
	/** Default 'manual', as when clicking "Execute workflow". */
	mode?: WorkflowExecuteMode;
}

export interface RunNodeResult {
	/** Main output 0 of the node under test (empty when it failed). */
	items: INodeExecutionData[];
	/** Every main output. */
	outputs: INodeExecutionData[][];
	/**
	 * The error the node threw, as n8n records it (a plain copy: name, message, httpCode...). With
	 * the default `onError: 'stopWorkflow'` the run stops and `items` is empty; with `continue*`
	 * n8n still records it, and outputs the node's input items unchanged.
	 */
	error?: ExecutionError;
	/** The whole run, as n8n would store it. */
	run: IRun;
}

const isItem = (value: IDataObject | INodeExecutionData): value is INodeExecutionData =>
	typeof value.json === 'object' && value.json !== null && !Array.isArray(value.json);

/**
 * Runs one node through n8n-core's `WorkflowExecute`, as n8n runs a workflow: Start -> node.
 * The start node is put on the execution stack with the input items (as n8n's own
 * NodeTestHarness does with the trigger's data), so the node under test gets them as its
 * input with n8n's pairing, parameter resolution and error handling.
 */
export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const mode = options.mode ?? 'manual';
	const { workflow, node, start } = buildWorkflow(options, true);
	const input = (options.inputItems ?? [{}]).map((item) => (isItem(item) ? item : { json: item }));

	const run = await executeFromStart(workflow, start!, input, options.credentials, mode);
	const task = run.data.resultData.runData[node.name]?.[0];
	const outputs = (task?.data?.main ?? []).map((output) => output ?? []);
	const error = task?.error ?? run.data.resultData.error;
	return { items: outputs[0] ?? [], outputs, error, run };
}

/**
 * Runs a built workflow through WorkflowExecute with `input` as the output of its start node, as
 * n8n starts a run from a trigger's data. Shared by runNode and runWorkflow.
 */
export async function executeFromStart(
	workflow: Workflow,
	start: INode,
	input: INodeExecutionData[],
	credentials: CredentialStore | undefined,
	mode: WorkflowExecuteMode,
): Promise<IRun> {
	const hooks = new ExecutionLifecycleHooks(mode, 'harness-execution', {
		id: workflow.id,
		name: workflow.name ?? 'Engine harness',
		active: false,
		activeVersionId: null,
		isArchived: false,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		createdAt: new Date(),
		updatedAt: new Date(),
	});
	const additionalData = buildAdditionalData(credentials, { hooks, mode });
	const runData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node: start, data: { main: [input] }, source: null }] },
	});
	const logStart = logPosition();
	let run: IRun;
	try {
		run = await new WorkflowExecute(additionalData, mode, runData).processRunExecutionData(
			workflow,
		);
	} catch (error) {
		expectNoLeak(
			'the error the run threw or what n8n logged',
			[error, logSince(logStart)],
			credentials?.secrets(),
		);
		throw error;
	}
	// Items, error items and the error as n8n records them, and what it logged: one scan per run.
	expectNoLeak(
		`the run of "${workflow.name ?? workflow.id}" or what n8n logged`,
		[run, logSince(logStart)],
		credentials?.secrets(),
	);
	return run;
}
