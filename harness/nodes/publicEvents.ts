import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import type { SandboxInit } from '../../sandbox';
import { CredentialStore, runNode, type RunNodeOptions } from '../engine';
import { TransportProbe } from '../engine/transportProbe';
import type { SandboxClient } from '../sandbox/client';
import { sandboxSuite } from '../sandbox/suite';

export const CREDENTIAL = 'publicEventsApi';

/** A credential store holding one Public Events credential pointing at the sandbox. */
export function credentialFor(sb: SandboxClient, data: IDataObject = {}) {
	const store = new CredentialStore([new PublicEventsApi()]);
	const { id } = store.add(CREDENTIAL, {
		environment: 'staging',
		baseUrl: sb.sandbox.baseUrl,
		apiKey: sb.keys.partner,
		...data,
	});
	return { store, id };
}

/** Runs the Public Events node through n8n-core's WorkflowExecute. */
export function runPublicEvents(
	store: CredentialStore,
	parameters: INodeParameters,
	extra: Partial<RunNodeOptions> = {},
) {
	return runNode({
		nodeType: new PublicEvents(),
		type: 'CUSTOM.publicEvents',
		parameters,
		credentials: store,
		...extra,
	});
}

/** The node's items as JSON for `parameters` (each input item a table row, say), or its error. */
export async function nodeRows(
	sb: SandboxClient,
	parameters: IDataObject,
	inputItems?: IDataObject[],
): Promise<{ rows: IDataObject[]; error?: Error }> {
	const { items, error } = await runPublicEvents(
		credentialFor(sb).store,
		parameters as INodeParameters,
		inputItems ? { inputItems } : {},
	);
	return { rows: items.map((item) => item.json), error: error as Error | undefined };
}

export interface LogEntry {
	seq: number;
	at: number;
	method: string;
	route: string;
	path: string;
	query: string;
	status?: number;
	fault?: string;
}

/** The sandbox's request log: `mark()` before, `since(mark)` after. */
export async function mark(sb: SandboxClient): Promise<number> {
	return (await sb.admin('GET', '/requests')).body.lastSeq;
}

export async function since(sb: SandboxClient, seq: number): Promise<LogEntry[]> {
	return (await sb.admin('GET', `/requests?since=${seq}`)).body.entries;
}

export const ids = (items: Array<{ json: IDataObject }>) =>
	items.map((item) => String(item.json.id));

/**
 * The record id of a poll trigger item: a sale's order, a refund's own id, a catalog event's id.
 */
export const pollItemId = (json: IDataObject) =>
	String(
		json.type === 'refund'
			? json.refundId
			: json.source === 'catalog'
				? json.eventPointId
				: json.orderId,
	);

/** A resource locator "By ID" as the editor stores it. */
export const byId = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });

export const query = (entry: LogEntry) => new URLSearchParams(entry.query);

export const routed = (log: LogEntry[], route: string) => log.filter((e) => e.route === route);

export interface SuiteSetup {
	/** Tokens fetched up front, so the sandbox's counters count the node's own requests alone. */
	tokens?: string[];
	/** Empties the request log (and its counters) before each test. */
	clearLog?: boolean;
	/** After each test: the array envelope again and no faults. */
	resetConfig?: boolean;
}

/**
 * One sandbox per suite (started in beforeAll, stopped in afterAll) and one credential for it.
 * Accessors read them lazily; `run` runs the Public Events node through n8n-core.
 */
export function publicEventsSuite(init: SandboxInit, setup: SuiteSetup = {}) {
	const sb = sandboxSuite(init);
	let store: CredentialStore;
	beforeAll(async () => {
		store = credentialFor(sb()).store;
		for (const company of setup.tokens ?? []) await sb().token(company);
	});
	if (setup.clearLog) beforeEach(() => sb().admin('DELETE', '/requests'));
	if (setup.resetConfig)
		afterEach(async () => {
			await sb().admin('PUT', '/config', { envelope: 'array' });
			await sb().admin('DELETE', '/faults');
		});
	return {
		sb,
		store: () => store,
		/** A new credential for the sandbox each call: its token not fetched yet. */
		credential: (data: IDataObject = {}) => credentialFor(sb(), data),
		run: (
			resource: string,
			operation: string,
			parameters: IDataObject = {},
			extra: Partial<RunNodeOptions> = {},
		) => runPublicEvents(store, { resource, operation, ...parameters } as INodeParameters, extra),
	};
}

/**
 * One small run first, so the credential holds a token and the requests after it are the test's.
 */
export const fetchToken = (store: CredentialStore) =>
	runPublicEvents(store, {
		resource: 'reference',
		operation: 'getManyCountries',
		returnAll: false,
		limit: 1,
	});

/**
 * Runs the transport probe with `parameters`, after one probe run for a token; returns the run
 * and the requests logged after that token run.
 */
export async function probeLogged(
	sb: SandboxClient,
	store: CredentialStore,
	parameters: RunNodeOptions['parameters'],
) {
	const probe = (parameters: RunNodeOptions['parameters']) =>
		runNode({
			nodeType: new TransportProbe(),
			type: 'CUSTOM.transportProbe',
			credentials: store,
			parameters,
		});
	await probe({ path: '/countries' });
	const before = await mark(sb);
	const result = await probe(parameters);
	return { ...result, log: await since(sb, before) };
}
