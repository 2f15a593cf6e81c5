import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { createRunExecutionData, type IDataObject, type INodeParameters } from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { buildAdditionalData, buildWorkflow } from '../engine/runtime';
import type { SandboxClient } from '../sandbox/client';
import type { orderNodeSuite } from './orderNode';
import { credentialFor, mark, since, type LogEntry } from './publicEvents';

type Suite = ReturnType<typeof orderNodeSuite>;

/** How many of the logged requests went to `method route`. */
export const sent = (log: LogEntry[], method: string, route: string) =>
	log.filter((e) => e.method === method && e.route === route).length;

export const readBacks = (log: LogEntry[]) => sent(log, 'GET', '/orders/{id}');

/** Runs `write` and returns its outcome with the API requests it made, token requests left out. */
async function logged<T extends object>({ sb }: Suite, write: () => Promise<T>) {
	const before = await mark(sb());
	const result = await write();
	const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
	return { ...result, log };
}

/** Ends a hold a case left, so holds never pile up against the account's limit. */
const releaser =
	({ getOrder, setStatus }: Suite) =>
	async (id: number) => {
		if ((await getOrder(id)).body.status === 'reserved_to_time') await setStatus(id, 'expired');
	};

/**
 * Writes under fault rules (cleared after each test), on an event of their own with room for
 * every case (paid places stay sold).
 */
export function faultedWrites(suite: Suite) {
	const { sb, order, create } = suite;
	const fault = (rule: IDataObject) => sb().admin('POST', '/faults', rule);
	afterEach(() => sb().admin('DELETE', '/faults'));
	let eventId: number;
	beforeAll(async () => {
		const event = await sb().admin('POST', '/events', { name: 'Uncertain writes', places: 400 });
		eventId = event.body.id;
	});
	return {
		eventId: () => eventId,
		fault,
		/** Runs the node with the fault in place. */
		runWith: async (rule: IDataObject | undefined, operation: string, parameters: IDataObject) => {
			if (rule) await fault(rule);
			return logged(suite, () => order(operation, parameters));
		},
		held: async (count: number) => (await create(count, {}, eventId)).order,
		release: releaser(suite),
	};
}

/**
 * Writes against a broken or hostile service: fault rules and quirks, both cleared after each
 * test, and the node allowed one short retry.
 */
export function hostileWrites(suite: Suite) {
	const { sb, order } = suite;
	afterEach(async () => {
		await sb().admin('DELETE', '/faults');
		await sb().setQuirks({});
		await sb().clearOtherOrigin();
	});
	return {
		runWith: async (
			operation: string,
			parameters: IDataObject,
			setup: { quirks?: IDataObject; faults?: IDataObject[] } = {},
		) => {
			for (const rule of setup.faults ?? []) await sb().admin('POST', '/faults', rule);
			if (setup.quirks) await sb().setQuirks(setup.quirks as never);
			return logged(suite, async () => {
				const result = await order(operation, {
					...parameters,
					options: { maxRetries: 1, maxRetryWait: 2, ...(parameters.options as IDataObject) },
				});
				await sb().setQuirks({});
				return result;
			});
		},
		release: releaser(suite),
	};
}

/**
 * Waits (polling the sandbox's request log, not a clock) until `count` requests to `method route`
 * have arrived since `from`; their log entries.
 */
export async function arrived(
	sb: SandboxClient,
	from: number,
	method: string,
	route: string,
	count = 1,
): Promise<LogEntry[]> {
	for (let tries = 0; tries < 2000; tries++) {
		const seen = (await since(sb, from)).filter((e) => e.method === method && e.route === route);
		if (seen.length >= count) return seen;
		await new Promise((resolve) => setImmediate(resolve));
	}
	throw new Error(`${count} ${method} ${route} did not arrive`);
}

/**
 * One run of the Public Events node with `parameters` through WorkflowExecute, as n8n runs a
 * webhook's execution: its promise can be cancelled (a Stop, an execution timeout).
 */
export function stoppableRun(
	store: ReturnType<typeof credentialFor>['store'],
	parameters: INodeParameters,
	executionId: string,
) {
	const { workflow, start } = buildWorkflow(
		{ nodeType: new PublicEvents(), type: 'CUSTOM.publicEvents', parameters, credentials: store },
		true,
	);
	const hooks = new ExecutionLifecycleHooks('webhook', executionId, {
		id: workflow.id,
		name: workflow.name ?? '',
		active: false,
		activeVersionId: null,
		isArchived: false,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const additionalData = buildAdditionalData(store, { hooks, mode: 'webhook' });
	const runData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: start!, data: { main: [[{ json: {} }]] }, source: null }],
		},
	});
	return new WorkflowExecute(additionalData, 'webhook', runData).processRunExecutionData(workflow);
}

/** A hold's answer lost, and the event's orders unreadable: its outcome stays unknown. */
export async function loseTheHoldsAnswer(sb: SandboxClient): Promise<void> {
	await sb.admin('POST', '/faults', {
		kind: 'drop',
		phase: 'after',
		method: 'POST',
		path: '/orders',
	});
	await sb.admin('POST', '/faults', {
		kind: 'status',
		status: 500,
		method: 'GET',
		path: '/event-points/{id}/orders',
		count: 0,
	});
}
