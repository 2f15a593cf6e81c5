import { randomUUID } from 'node:crypto';

/** The credential the package's workflows use (imported with the sandbox's URL and key). */
export const CREDENTIAL = { id: 'PeBenchApiCred01', name: 'Public Events sandbox (bench)' };

export type Envelope = 'array' | 'hydra';

export interface NodeJson {
	name: string;
	type: string;
	typeVersion: number;
	parameters: object;
	credentials?: object;
	webhookId?: string;
}

/** A chain of nodes, each feeding the next: the shape of every benchmark workflow. */
export function chain(id: string, name: string, nodes: NodeJson[]) {
	const connections: Record<string, object> = {};
	nodes.slice(0, -1).forEach((node, i) => {
		connections[node.name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	});
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: nodes.map((node, i) => ({ id: randomUUID(), position: [i * 220, 0], ...node })),
		connections,
	};
}

export const manualTrigger: NodeJson = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	parameters: {},
};

export function webhookTrigger(path: string): NodeJson {
	// Answers when the last node finished, with its first item: the caller waits for the whole run.
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'GET',
			path,
			responseMode: 'lastNode',
			responseData: 'firstEntryJson',
			options: {},
		},
	};
}

/** This package: Hall Plan > Get Places, Return All (or Limit). */
export function packageGetPlaces(eventId: number | string, limit?: number): NodeJson {
	return {
		name: 'Get Places',
		type: 'n8n-nodes-public-events.publicEvents',
		typeVersion: 1,
		parameters: {
			resource: 'hallPlan',
			operation: 'getPlaces',
			eventId: { __rl: true, mode: 'id', value: String(eventId) },
			returnAll: limit === undefined,
			...(limit === undefined ? {} : { limit }),
			options: {},
		},
		credentials: { publicEventsApi: CREDENTIAL },
	};
}

/**
 * The same job from n8n's HTTP Request node (4.2) as its docs teach: a token request, then the
 * list with Pagination > "Update a Parameter in Each Request" (query `page` = `{{ $pageCount + 1
 * }}`)
 * until an empty page, the token in the Authorization header. A plain-array page is one item per
 * place already, and "Response Is Empty" ends it; a hydra page is one object per page, so the
 * end is "Other" (an empty `hydra:member`) and a Split Out makes one item per place.
 */
export function httpRequestBuild(
	apiUrl: string,
	apiKey: string,
	eventId: number | string,
	envelope: Envelope,
): NodeJson[] {
	const token: NodeJson = {
		name: 'Token',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${apiUrl}/token`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: JSON.stringify({ apiKey }),
			options: {},
		},
	};
	const pagination = {
		paginationMode: 'updateAParameterInEachRequest',
		parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
		...(envelope === 'array'
			? { paginationCompleteWhen: 'responseIsEmpty' }
			: {
					paginationCompleteWhen: 'other',
					completeExpression: "={{ $response.body['hydra:member'].length === 0 }}",
				}),
	};
	const places: NodeJson = {
		name: 'Get Places (HTTP)',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			url: `${apiUrl}/event-points/${eventId}/places`,
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'itemsPerPage', value: '100' }] },
			sendHeaders: true,
			headerParameters: {
				parameters: [{ name: 'Authorization', value: "=Bearer {{ $('Token').item.json.token }}" }],
			},
			options: { pagination: { pagination } },
		},
	};
	if (envelope === 'array') return [token, places];
	const split: NodeJson = {
		name: 'Split Out',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		parameters: { fieldToSplitOut: 'hydra:member', options: {} },
	};
	return [token, places, split];
}
