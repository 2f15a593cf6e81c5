import { PollContext, TriggersAndPollers } from 'n8n-core';
import type { IDataObject, INodeExecutionData, WorkflowActivateMode } from 'n8n-workflow';

import { buildAdditionalData, buildWorkflow, NODE_NAME, type NodeUnderTest } from './runtime';

export interface PollCall extends NodeUnderTest {
	/** The workflow's static data as n8n saved it (JSON text); undefined: never activated. */
	staticData?: string;
	/** 'trigger' for an active workflow's poll (default), 'manual' for "Fetch Test Event" in the editor. */
	mode?: 'trigger' | 'manual';
	activation?: WorkflowActivateMode;
}

export interface PollResult {
	/** The items of output 0; empty when the poll returned null (nothing new). */
	items: INodeExecutionData[];
	/** Whether `poll()` returned null, which n8n takes as "nothing new": no execution starts. */
	returnedNull: boolean;
	/** The workflow's static data after the poll, as n8n would save it (JSON text), also after an error. */
	staticData: string;
	/** Whether the node wrote its static data (n8n's ObservableObject flag). */
	changed: boolean;
	error?: Error;
}

/**
 * One poll as n8n runs it: a workflow holding only the trigger, n8n-core's PollContext, and
 * TriggersAndPollers.runPollFunction (what the poll scheduler and the editor's test button call).
 * Each call builds a fresh workflow from `staticData` (JSON), so consecutive calls are polls
 * across a restart: only what survived JSON serialisation is there.
 */
export async function runPoll(options: PollCall): Promise<PollResult> {
	const { workflow, node } = buildWorkflow(options, false);
	if (options.staticData !== undefined) workflow.overrideStaticData(JSON.parse(options.staticData) as IDataObject);
	workflow.staticData.__dataChanged = false;
	const mode = options.mode ?? 'trigger';
	const additionalData = buildAdditionalData(options.credentials, { mode });
	const refuse = () => {
		throw new Error('poll harness: the node must return its items, not emit them');
	};
	const context = new PollContext(workflow, node, additionalData, mode, options.activation ?? 'activate', refuse, refuse);
	const result: PollResult = { items: [], returnedNull: false, staticData: '', changed: false };
	try {
		const output = await new TriggersAndPollers().runPollFunction(workflow, node, context);
		result.returnedNull = output === null;
		result.items = output?.[0] ?? [];
	} catch (error) {
		result.error = error as Error;
	}
	// Read through a fresh type: TypeScript narrowed the flag to `false` at the reset above.
	result.changed = (workflow.staticData as IDataObject).__dataChanged === true;
	result.staticData = JSON.stringify(workflow.staticData);
	return result;
}

/** A trigger's life across polls: its static data kept as the JSON text n8n would store. */
export class PollSession {
	/** The static data after the last poll (JSON text). */
	staticData?: string;

	constructor(private readonly base: PollCall) {}

	async poll(extra: Partial<PollCall> = {}): Promise<PollResult> {
		const result = await runPoll({ ...this.base, ...extra, staticData: this.staticData });
		this.staticData = result.staticData;
		return result;
	}

	/** The node's own static data (getWorkflowStaticData('node')), parsed. */
	nodeData(name = this.base.name ?? NODE_NAME): IDataObject | undefined {
		if (this.staticData === undefined) return undefined;
		return (JSON.parse(this.staticData) as IDataObject)[`node:${name}`] as IDataObject | undefined;
	}
}
