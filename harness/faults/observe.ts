import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import type { LogEntry } from '../nodes/publicEvents';
import { SandboxClient } from '../sandbox/client';
import { RETRY_OPTIONS, TIMEOUT_S, type Fault, type RowId, type Target } from './matrix';

/** What one cell did, as the sandbox and the engine saw it; the test judges it against MATRIX. */
export interface Observation {
	/** Ids the operation handed to the workflow over the whole cell (all polls, all executions). */
	emitted: string[];
	/** Ids a fault-free read gives: what "complete" means for this cell. */
	truth: string[];
	/** The emitted ids must keep the truth's order (a list). */
	ordered?: boolean;
	/** The error the operation (or the first poll) ended with. */
	error?: { name: string; message: string };
	/** Every request at the faulted target, in order of arrival (sandbox log). */
	attempts: LogEntry[];
	/** A token was requested between the first and the second attempt (n8n's refresh after a 401). */
	refreshed: boolean;
	/**
	 * Writes, counted by the sandbox: requests that reached the API's handler, times applied, GETs
	 * after the write.
	 */
	write?: { reached: number; applied: number; readBacks: number; writeCheck?: IDataObject };
	/**
	 * Push trigger: executions started, the order read (its id) or why not, the delivery's final
	 * state and the answers to its attempts (a status, or 0 for none), and the answer to a broken
	 * delivery body.
	 */
	webhook?: {
		executions: number;
		fetched: string | null;
		unavailable: string | null;
		delivery: string;
		deliveryAttempts: number;
		answers: number[];
		badBody?: { status: number; started: boolean };
	};
	/** Poll: whether the failed poll left the saved state as it was. */
	stateHeld?: boolean;
}

/**
 * Starts a sandbox for one cell (cells run at once, faults are per sandbox) and stops it
 * afterwards.
 */
export async function withSandbox<T>(
	init: Parameters<typeof SandboxClient.start>[0],
	run: (sb: SandboxClient) => Promise<T>,
): Promise<T> {
	const sb = await SandboxClient.start({
		privateEvents: 0,
		archivedEvents: 0,
		widgetOrders: 0,
		...init,
	});
	try {
		return await run(sb);
	} finally {
		await sb.stop();
	}
}

export const injectFault = (sb: SandboxClient, fault: Fault, target: Target) =>
	sb.admin('POST', '/faults', fault.rules(target));

/**
 * The log entries aimed at the target (same method, path or route template, and query values), and
 * whether a token was requested between the first two.
 */
export function attemptsAt(
	log: LogEntry[],
	target: Target,
): Pick<Observation, 'attempts' | 'refreshed'> {
	const attempts = log.filter((e) => {
		if (e.method !== target.method || (e.path !== target.path && e.route !== target.path))
			return false;
		const query = new URLSearchParams(e.query);
		return Object.entries(target.query ?? {}).every(([key, value]) => query.get(key) === value);
	});
	const [first, second] = attempts;
	const refreshed =
		second !== undefined &&
		log.some((e) => e.route === '/token' && e.seq > first.seq && e.seq < second.seq);
	return { attempts, refreshed };
}

export const errorOf = (error: unknown) =>
	error
		? { name: String((error as Error).name), message: String((error as Error).message) }
		: undefined;

/**
 * The Timeout option of the operation `parameters` choose (or of a trigger), set to TIMEOUT_S:
 * looked up in the Options the editor shows for it, since a user can set only those. Throws
 * when there is none: the timeout column needs it.
 */
export function timeoutOption(node: INodeTypeDescription, parameters: IDataObject): IDataObject {
	const shown = (p: INodeProperties) =>
		Object.entries(p.displayOptions?.show ?? {}).every(([name, values]) =>
			(values ?? []).includes(parameters[name] as never),
		);
	const entries = node.properties
		.filter((p) => p.name === 'options' && shown(p))
		.flatMap((p) => (p.options ?? []) as INodeProperties[]);
	const option = entries.find((o) => /^timeout/i.test(String(o.displayName)));
	const operation = parameters.operation
		? ` (${String(parameters.resource)} > ${String(parameters.operation)})`
		: '';
	if (!option)
		throw new Error(
			`${node.displayName}${operation} has no Timeout option: a slow answer cannot be cut short`,
		);
	const millis = /milli|\(ms\)/i.test(`${option.displayName} ${option.description ?? ''}`);
	return { [option.name]: millis ? TIMEOUT_S * 1000 : TIMEOUT_S };
}

/**
 * The parameters with the cell's options: small retry bounds, and the node's Timeout for the
 * timeout column.
 */
export function withOptions(
	fault: Fault,
	node: INodeTypeDescription,
	parameters: IDataObject,
): IDataObject {
	const options =
		fault.id === 'timeout'
			? { ...RETRY_OPTIONS, ...timeoutOption(node, parameters) }
			: RETRY_OPTIONS;
	return { ...parameters, options };
}

/** A runner per operation class. */
export interface Row {
	id: RowId;
	/** Column header in the report. */
	label: string;
	/** What the row runs, for the report's legend. */
	title: string;
	/** Cells of this row must run one at a time. */
	exclusive?: boolean;
	run(fault: Fault): Promise<Observation>;
}
