import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { CredentialStore, runNode, type RunNodeOptions } from '../engine';
import type { SandboxClient } from '../sandbox/client';

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
