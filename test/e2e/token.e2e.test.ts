/**
 * Real n8n (2.40.7, or N8N_VERSION such as 1.123.81) runs the packed package against the
 * sandbox: the credential's token is fetched once and stored by n8n across executions, and
 * renewed by n8n after it expires (the 401 makes n8n call preAuthentication again and repeat
 * the request); after the credential's Base URL is edited, the stored token is not sent to the new
 * address: a /token request there comes first. In n8n's own HTTP Request node the credential adds
 * the token to the API's address only.
 */
import { randomUUID } from 'node:crypto';

import { Receiver } from '../../harness/net/receiver';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { SandboxClient } from '../../harness/sandbox/client';
import {
	apiCredential,
	N8nInstance,
	nodeOutput,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { n8nWithSandbox } from '../../harness/n8n/withSandbox';
import { HOUR } from '../../harness/time';
import { manualTrigger } from '../../harness/bench/workflows';

const CREDENTIAL = { id: 'PeE2eCredToken01', name: 'Public Events sandbox (e2e)' };
const WORKFLOW_ID = 'PeE2eWfToken0001';
const HTTP_WORKFLOW_ID = 'PeE2eWfTokenHttp';
const NODE = 'Public Events';

function workflow() {
	return {
		id: WORKFLOW_ID,
		name: 'e2e: all events',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: randomUUID(), position: [0, 0], ...manualTrigger },
			{
				id: randomUUID(),
				name: NODE,
				type: 'n8n-nodes-public-events.publicEvents',
				typeVersion: 1,
				position: [240, 0],
				parameters: { resource: 'event', operation: 'getMany', returnAll: true },
				credentials: { publicEventsApi: CREDENTIAL },
			},
		],
		connections: { Start: { main: [[{ node: NODE, type: 'main', index: 0 }]] } },
	};
}

describe('real n8n: token stored across executions and renewed on expiry', () => {
	let sandbox: SandboxClient;
	/** The address the credential's Base URL is edited to. */
	let other: SandboxClient | undefined;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	/** POST /token made by n8n: the sandbox's count minus the helper's own. */
	let n8nTokenRequests = 0;

	const tokenCount = async () => (await sandbox.counters())['POST /token'] ?? 0;

	/** Event ids the partner key sees, read straight from the API (the helper's token is its own). */
	async function visibleEventIds(): Promise<string[]> {
		sandbox.forgetTokens();
		const events = await sandbox.getAll('/event-points');
		return events.map((e: any) => String(e.id)).sort();
	}

	/** Runs the workflow; returns the node's output ids and the API requests n8n made. */
	async function runWorkflow(): Promise<{ ids: string[]; items: any[]; requests: string[] }> {
		const before = await tokenCount();
		const { lastSeq } = sandbox.app.log;
		const run = await n8n.execute(WORKFLOW_ID);
		n8nTokenRequests += (await tokenCount()) - before;
		expect(run.status).toBe('success');
		const items = nodeOutput(run, NODE);
		const requests = sandbox.app.log
			.since(lastSeq)
			.map((e) => `${e.method} ${e.route} ${e.status}`);
		return { ids: items.map((e) => String(e.id)).sort(), items, requests };
	}

	async function storedToken(): Promise<string> {
		const credential = (await n8n.exportCredentials()).find((c) => c.id === CREDENTIAL.id);
		return credential?.data?.token ?? '';
	}

	beforeAll(async () => {
		({ sandbox, packed, n8n } = await n8nWithSandbox());
		await n8n.importCredentials([
			apiCredential(CREDENTIAL, sandbox.sandbox.baseUrl, sandbox.keys.partner),
		]);
		await n8n.importWorkflow(workflow());
	});

	afterAll(async () => {
		n8n?.cleanup();
		packed?.cleanup();
		await sandbox?.stop();
		await other?.stop();
	});

	it('three executions return every visible event and share one token request', async () => {
		const expected = await visibleEventIds();
		expect(expected.length).toBeGreaterThan(0);

		const runs = [await runWorkflow()];
		while (runs.length < 3) runs.push(await runWorkflow());

		for (const run of runs) expect(run.ids).toEqual(expected);
		expect(n8nTokenRequests).toBe(1);
		expect(runs[0].requests[0]).toBe('POST /token 200');
		for (const run of runs.slice(1)) expect(run.requests).not.toContain('POST /token 200');
		expect(runs.flatMap((run) => run.requests).filter((r) => !r.endsWith(' 200'))).toEqual([]);
		expect(await storedToken()).not.toBe('');
	});

	it(
		'after the token expired (clock +25 h), n8n fetches a new one ' + 'and the run is complete',
		async () => {
			const oldToken = await storedToken();
			await sandbox.advanceClock(25 * HOUR);
			const expected = await visibleEventIds();

			const run = await runWorkflow();

			expect(run.ids).toEqual(expected);
			expect(n8nTokenRequests).toBe(2);
			// n8n itself renews: the stale token is refused once, then the request is repeated.
			expect(run.requests.slice(0, 3)).toEqual([
				'GET /event-points 401',
				'POST /token 200',
				'GET /event-points 200',
			]);
			expect(run.requests.filter((r) => !r.endsWith(' 200'))).toHaveLength(1);
			const newToken = await storedToken();
			expect(newToken).not.toBe('');
			expect(newToken).not.toBe(oldToken);
		},
	);

	it(
		"n8n's HTTP Request node with this credential: the API gets the token, another address " +
			"none (n8n hands the credential the node's { uri } options)",
		async () => {
			const elsewhere = await Receiver.start();
			try {
				const api = `${sandbox.sandbox.baseUrl.replace(/\/+$/, '')}/api/v2/event-points`;
				const request = (name: string, url: string) => ({
					id: randomUUID(),
					name,
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					position: [240, 0],
					parameters: {
						url,
						authentication: 'predefinedCredentialType',
						nodeCredentialType: 'publicEventsApi',
						options: {},
					},
					credentials: { publicEventsApi: CREDENTIAL },
				});
				const httpWorkflow = {
					id: HTTP_WORKFLOW_ID,
					name: 'e2e: the credential in the HTTP Request node',
					active: false,
					settings: { executionOrder: 'v1' },
					nodes: [
						{ id: randomUUID(), position: [0, 0], ...manualTrigger },
						request('To the API', `${api}?page=1&itemsPerPage=1`),
						request('Elsewhere', `${elsewhere.url}/collect`),
					],
					connections: {
						Start: { main: [[{ node: 'To the API', type: 'main', index: 0 }]] },
						'To the API': { main: [[{ node: 'Elsewhere', type: 'main', index: 0 }]] },
					},
				};
				await n8n.importWorkflow(httpWorkflow);
				const { lastSeq } = sandbox.app.log;
				const run = await n8n.execute(HTTP_WORKFLOW_ID);
				expect(run.status).toBe('success');
				expect(
					sandbox.app.log.since(lastSeq).map((e) => `${e.method} ${e.route} ${e.status}`),
				).toEqual(['GET /event-points 200']);
				expect(elsewhere.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
					['/hook/collect', undefined],
				]);
			} finally {
				await elsewhere.close();
			}
		},
	);

	it(
		'the Base URL edited to another address: the stored token is not sent there; a /token ' +
			'request there comes first',
		async () => {
			const stored = (await n8n.exportCredentials()).find((c) => c.id === CREDENTIAL.id);
			expect(stored.data.issuedBy).toBe(new URL(sandbox.sandbox.baseUrl).origin);
			other = await SandboxClient.start();
			// Edited as the editor does it: the hidden token and its origin are kept as they were.
			await n8n.importCredentials([
				{
					...apiCredential(CREDENTIAL, other.sandbox.baseUrl, other.keys.partner),
					data: { ...stored.data, baseUrl: other.sandbox.baseUrl, apiKey: other.keys.partner },
				},
			]);
			const run = await n8n.execute(WORKFLOW_ID);
			expect(run.status).toBe('success');
			expect(other.app.log.since(0).map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
				'POST /token 200',
				'GET /event-points 200',
			]);
			const edited = (await n8n.exportCredentials()).find((c) => c.id === CREDENTIAL.id);
			expect(edited.data.token).not.toBe(stored.data.token);
			expect(edited.data.issuedBy).toBe(new URL(other.sandbox.baseUrl).origin);
		},
	);

	it('nothing n8n printed holds the API key or a token', () => {
		expectNoSecrets(n8n.printedText(), secretsOf(sandbox), 'real n8n token runs');
		if (other) expectNoSecrets(n8n.printedText(), secretsOf(other), 'real n8n token runs');
	});
});
