import { PollContext, TriggersAndPollers } from 'n8n-core';
import type { IDataObject, INodeExecutionData, WorkflowActivateMode } from 'n8n-workflow';

import { expectNoLeak } from '../secrets';
import { buildAdditionalData, buildWorkflow, NODE_NAME, type NodeUnderTest } from './runtime';

export interface PollCall extends NodeUnderTest {
	/** The workflow's static data the poll starts from (JSON text); undefined: never activated. */
	staticData?: string;
	/**
	 * 'trigger' for an active workflow's poll (default), 'manual' for "Fetch Test Event" in the
	 * editor.
	 */
	mode?: 'trigger' | 'manual';
	/** Default: 'manual' in manual mode (as WorkflowExecute.executePollNode), else 'activate'. */
	activation?: WorkflowActivateMode;
	/**
	 * What IPollFunctions.getPollBudgetMs answers; n8n-core's default (5 minutes, the default
	 * scheduling) when absent. DurablePollSession sets it as n8n's durable scheduler does.
	 */
	pollBudgetMs?: number;
}

export interface PollResult {
	/** The items of output 0; empty when the poll returned null (nothing new). */
	items: INodeExecutionData[];
	/** Whether `poll()` returned null, which n8n takes as "nothing new": no execution starts. */
	returnedNull: boolean;
	/**
	 * The workflow's static data after the poll, as the node left it in memory (JSON text), also
	 * after an error.
	 */
	staticData: string;
	/** Whether the node wrote its static data (n8n's ObservableObject flag). */
	changed: boolean;
	error?: Error;
	/** DurablePollSession with a timeout: the poll outlasted it and n8n dropped it. */
	abandoned?: boolean;
}

/**
 * One poll as n8n runs it: a workflow holding only the trigger, built from `staticData` (JSON),
 * n8n-core's PollContext, and TriggersAndPollers.runPollFunction (what n8n's poll executor
 * calls; the editor's Fetch Test Event calls poll() on a PollContext in 'manual' mode directly).
 */
export async function runPoll(options: PollCall): Promise<PollResult> {
	const { workflow, node } = buildWorkflow(options, false);
	if (options.staticData !== undefined)
		workflow.overrideStaticData(JSON.parse(options.staticData) as IDataObject);
	workflow.staticData.__dataChanged = false;
	const mode = options.mode ?? 'trigger';
	const additionalData = buildAdditionalData(options.credentials, { mode });
	const refuse = () => {
		throw new Error('poll harness: the node must return its items, not emit them');
	};
	const activation = options.activation ?? (mode === 'manual' ? 'manual' : 'activate');
	const budget = options.pollBudgetMs;
	const context = new PollContext(
		workflow,
		node,
		additionalData,
		mode,
		activation,
		refuse,
		refuse,
		undefined,
		undefined,
		undefined,
		budget === undefined ? undefined : () => budget,
	);
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
	// Items, the error and the static data n8n would save: none may carry a key or token.
	expectNoLeak('a poll', [result], options.credentials?.secrets());
	return result;
}

/**
 * A trigger's life across polls, with its static data where n8n 2.40 keeps it (the default poll
 * scheduling; read in n8n-core poll-trigger-executor.ts and active-workflow-triggers.ts, and the
 * cli's active-workflow-manager.ts and trigger-execution-context.factory.ts):
 * - The active workflow stays in memory between polls, with whatever the node wrote (`staticData`).
 * - The database copy (`saved`) is written after the activation poll (activation saves static
 *   data once its triggers are added) and by each poll that returns items (`__emit` saves before
 *   starting the execution). A poll that returns null writes nothing to the database (its cursor
 *   commit concerns durable cursors only, off by default); nor does one that throws. A failed
 *   activation poll fails the activation: its workflow is dropped.
 * - `restart()` is n8n starting again: memory is the database copy, the next poll an activation.
 * - Manual runs (Fetch Test Event) run on a workflow of their own and save nothing.
 */
export class PollSession {
	/** The static data in the running n8n's memory (JSON text); undefined before activation. */
	staticData?: string;
	/** The static data in n8n's database (JSON text). */
	saved?: string;
	/** Polls run so far (manual ones included). */
	polls = 0;
	private activating = true;
	private restarted = false;

	constructor(private base: PollCall) {}

	async poll(extra: Partial<PollCall> = {}): Promise<PollResult> {
		this.polls++;
		const call = { ...this.base, ...extra, staticData: this.staticData };
		if (this.restarted) call.activation ??= 'init';
		const result = await runPoll(call);
		if ((call.mode ?? 'trigger') === 'manual') return result;
		if (this.activating && result.error) {
			this.staticData = this.saved;
			return result;
		}
		this.staticData = result.staticData;
		if (this.activating || (!result.error && !result.returnedNull)) this.saved = result.staticData;
		this.activating = false;
		return result;
	}

	/** n8n restarts: what it had only in memory is gone. */
	restart() {
		this.staticData = this.saved;
		this.activating = true;
		this.restarted = true;
	}

	/**
	 * The trigger renamed in the editor and the workflow published again: n8n keeps the static data
	 * under `node:<old name>` (Workflow.renameNode does not move it), loads the workflow from its
	 * database and runs the activation poll of the new version.
	 */
	rename(name: string) {
		this.base = { ...this.base, name };
		this.staticData = this.saved;
		this.activating = true;
	}

	/** The trigger's name now (rename). */
	get name(): string {
		return this.base.name ?? NODE_NAME;
	}

	/** The node's own static data (getWorkflowStaticData('node')) in memory, parsed. */
	nodeData(name = this.base.name ?? NODE_NAME): IDataObject | undefined {
		if (this.staticData === undefined) return undefined;
		return (JSON.parse(this.staticData) as IDataObject)[`node:${name}`] as IDataObject | undefined;
	}
}

/**
 * n8n's durable scheduler around each scheduled poll (read in the cli's
 * scheduling/poll-trigger-node/poll-trigger-task-handler.ts and
 * trigger-execution-context.factory.ts):
 * a poll that outlasts N8N_SCHEDULER_POLL_TIMEOUT (45 s by default) is abandoned, its result
 * dropped, while it runs on; the node is told a budget below the timeout (getPollBudgetMs).
 */
export interface DurableTimeout {
	timeoutMs: number;
	/** N8N_SCHEDULER_LEASE_DURATION (60 s by default): the budget is cut to it too. */
	leaseMs?: number;
}

/** The budget n8n 2.40's durable scheduler gives a poll: the ceiling less a margin. */
export function durablePollBudgetMs({ timeoutMs, leaseMs = 60_000 }: DurableTimeout): number {
	const ceiling = Math.min(timeoutMs, leaseMs);
	return ceiling - Math.min(Math.max(0.2 * ceiling, 5_000), ceiling / 2);
}

/**
 * A trigger's life under n8n's durable poll cursors (opt-in from 2.36:
 * N8N_POLLER_DURABLE_CURSORS_ENABLED with the scheduler's flags; read in the cli's
 * scheduling/poll-trigger-node/poll-trigger-task-handler.ts, workflows/triggers/
 * trigger-execution-context.factory.ts and poll-cursor.service.ts, and n8n-core's
 * active-workflow-triggers.ts and poll-trigger-executor.ts):
 * - The node's static data is a row of its own (`cursor`), created by the first poll (the one at
 *   activation) from the node static data the workflow held then.
 * - The poll at activation is a test: what it writes to its node static data is dropped; the
 *   workflow's other static data (global) is saved once the triggers are added.
 * - Each scheduled poll runs on a workflow loaded from the database (`saved`) with the cursor as
 *   its node static data; a poll that returns items commits the cursor with its run (and saves the
 *   workflow's static data), one that returns null commits the cursor alone, one that throws
 *   neither.
 * - With a `timeout`, a scheduled poll that outlasts it is abandoned: nothing is committed and its
 *   result is dropped, while it runs on (`background`); the activation poll has no timeout.
 * - `restart()` keeps both (they are in the database); the jobs exist already, so no activation
 *   poll runs again.
 */
export class DurablePollSession {
	saved?: string;
	cursor?: IDataObject;
	/** Abandoned polls still running. */
	readonly background: Array<Promise<PollResult>> = [];
	private activating = true;

	constructor(
		private readonly base: PollCall,
		private readonly timeout?: DurableTimeout,
	) {}

	private get nodeKey() {
		return `node:${this.base.name ?? NODE_NAME}`;
	}

	async poll(extra: Partial<PollCall> = {}): Promise<PollResult> {
		const data = JSON.parse(this.saved ?? '{}') as IDataObject;
		this.cursor ??= (data[this.nodeKey] as IDataObject | undefined) ?? {};
		const staticData = JSON.stringify({ ...data, [this.nodeKey]: this.cursor });
		const manual = (extra.mode ?? this.base.mode ?? 'trigger') === 'manual';
		const timed = this.timeout && !manual && !this.activating;
		const budget = timed ? { pollBudgetMs: durablePollBudgetMs(this.timeout!) } : {};
		const running = runPoll({ ...this.base, ...budget, ...extra, staticData });
		const result = timed ? await this.withTimeout(running, this.timeout!.timeoutMs) : await running;
		if (manual || result.abandoned) return result;
		const after = JSON.parse(result.staticData) as IDataObject;
		if (this.activating) {
			this.activating = false;
			if (!result.error)
				this.saved = JSON.stringify({ ...after, [this.nodeKey]: data[this.nodeKey] });
			return result;
		}
		if (result.error) return result;
		this.cursor = after[this.nodeKey] as IDataObject;
		if (!result.returnedNull && result.changed)
			this.saved = JSON.stringify({ ...after, [this.nodeKey]: data[this.nodeKey] });
		return result;
	}

	/** n8n's race between the poll and its timeout (Promise.race, a timer). */
	private async withTimeout(running: Promise<PollResult>, timeoutMs: number) {
		let timer: NodeJS.Timeout | undefined;
		const abandoned = new Promise<PollResult>((resolve) => {
			timer = setTimeout(
				() =>
					resolve({
						items: [],
						returnedNull: false,
						staticData: '',
						changed: false,
						abandoned: true,
					}),
				timeoutMs,
			);
		});
		const result = await Promise.race([running, abandoned]);
		clearTimeout(timer);
		if (result.abandoned) this.background.push(running);
		return result;
	}

	/** Waits for the abandoned polls to end (their results go nowhere). */
	async settle() {
		await Promise.allSettled(this.background);
	}

	restart() {
		this.activating = false;
	}
}
