/**
 * What the demo puts into n8n and the sandbox: an owner, the credentials, the example
 * workflows, and the sandbox's push subscription.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import type { Sandbox } from '../../sandbox';
import { apiCredential, REPO_ROOT, type N8nServer } from '../n8n/instance';
import { shopCredential } from './shop';

/** Demo-only login of the throwaway n8n (its data folder is deleted on exit). */
export const OWNER = {
	email: 'demo@example.com',
	firstName: 'Demo',
	lastName: 'User',
	password: 'Demo-passw0rd',
};

export const API_CREDENTIAL = { id: 'PeDemoApiCred001', name: 'Public Events (sandbox)' };
export const ORGANISER_CREDENTIAL = {
	id: 'PeDemoOrgCred001',
	name: 'Public Events (sandbox, organiser)',
};
export const WEBHOOK_CREDENTIAL = {
	id: 'PeDemoWebhook001',
	name: 'Public Events webhook (sandbox)',
};
/** The Bearer Auth credential the MCP example's trigger asks for. */
export const MCP_CREDENTIAL = { id: 'PeDemoMcpToken01', name: 'Public Events MCP token' };
/** The n8n API credential the shop's error workflow reads a failed run with. */
export const N8N_API_CREDENTIAL = { id: 'PeDemoN8nApiKey1', name: 'n8n API (demo)' };

/** The secrets this demo run made up: nothing is reused between runs. */
export interface DemoSecrets {
	webhookSecret: string;
	mcpToken: string;
	/** What the shop's server sends in the checkout's key header. */
	shopKey: string;
}

export function demoSecrets(): DemoSecrets {
	return {
		webhookSecret: randomBytes(24).toString('base64url'),
		mcpToken: randomBytes(32).toString('base64url'),
		shopKey: randomBytes(32).toString('base64url'),
	};
}

/**
 * The partner key, the organiser key (it may export barcodes), the push secret, the MCP token and
 * the shop's key.
 */
function demoCredentials(sandbox: Sandbox, secrets: DemoSecrets) {
	return [
		apiCredential(API_CREDENTIAL, sandbox.baseUrl, sandbox.keys.partner, sandbox.environment),
		apiCredential(
			ORGANISER_CREDENTIAL,
			sandbox.baseUrl,
			sandbox.keys.organiser,
			sandbox.environment,
		),
		{
			...WEBHOOK_CREDENTIAL,
			type: 'publicEventsWebhookApi',
			data: { secret: secrets.webhookSecret },
		},
		{ ...MCP_CREDENTIAL, type: 'httpBearerAuth', data: { token: secrets.mcpToken } },
		shopCredential(secrets.shopKey),
	];
}

interface ExampleNode {
	name: string;
	type: string;
	webhookId?: string;
	parameters?: { path?: string; authentication?: string; url?: string };
	credentials?: Record<string, { id: string; name: string }>;
}
export interface Example {
	id: string;
	name: string;
	nodes: ExampleNode[];
	settings?: { errorWorkflow?: string };
}

const MCP_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';

/**
 * examples/*.json by file name, as shipped (the package is installed as a community package).
 * Each MCP trigger gets a fresh random path: the shipped one is public, so a demo that kept it
 * would serve its tools at an address anyone reading the repository knows.
 */
export function loadExamples(dir = join(REPO_ROOT, 'examples')): Example[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Example)
		.map((example) => ({
			...example,
			nodes: example.nodes.map((n) => (n.type === MCP_TRIGGER ? freshPath(n) : n)),
		}));
}

function freshPath(node: ExampleNode): ExampleNode {
	const path = randomUUID();
	return { ...node, webhookId: path, parameters: { ...node.parameters, path } };
}

/**
 * Creates the credentials and the example workflows through n8n's REST API, as the editor
 * does (CLI imports would each cost an n8n start-up). n8n picks the credentials' ids: the
 * examples' references (PeDemo…) are pointed at them. Returns each example's workflow id in n8n
 * (2.x keeps the file's).
 */
export async function importDemo(
	server: N8nServer,
	cookie: string,
	sandbox: Sandbox,
	secrets: DemoSecrets,
	examples: Example[],
): Promise<Map<string, string>> {
	const ids = new Map<string, string>();
	const readsRuns = examples.some((e) => e.nodes.some((n) => n.credentials?.n8nApi));
	const credentials = [
		...demoCredentials(sandbox, secrets),
		...(readsRuns ? [await n8nApiCredential(server, cookie)] : []),
	];
	for (const { id, ...credential } of credentials) {
		ids.set(
			id,
			((await server.rest(cookie, 'POST', '/credentials', credential)) as { id: string }).id,
		);
	}
	const relink = (refs: ExampleNode['credentials']) =>
		refs &&
		Object.fromEntries(
			Object.entries(refs).map(([type, ref]) => [type, { ...ref, id: ids.get(ref.id) ?? ref.id }]),
		);
	// n8n 1.x picks new workflow ids: an error workflow goes in first, and the workflows naming it
	// in their settings are pointed at its new id.
	const workflowIds = new Map<string, string>();
	const namesOne = (e: Example) => Number(e.settings?.errorWorkflow !== undefined);
	for (const example of [...examples].sort((a, b) => namesOne(a) - namesOne(b))) {
		const onError = example.settings?.errorWorkflow;
		const created = (await server.rest(cookie, 'POST', '/workflows', {
			...example,
			nodes: example.nodes.map((n) => ({ ...n, credentials: relink(n.credentials) })),
			...(onError && {
				settings: { ...example.settings, errorWorkflow: workflowIds.get(onError) ?? onError },
			}),
		})) as { id: string };
		workflowIds.set(example.id, created.id);
	}
	return workflowIds;
}

/**
 * An owner's API key that may only read executions, as the n8n API credential of the error
 * workflow that releases the holds of a failed shop run (what Settings > n8n API makes).
 */
async function n8nApiCredential(server: N8nServer, cookie: string) {
	const key = (await server.rest(cookie, 'POST', '/api-keys', {
		label: 'Public Events demo: release holds',
		scopes: ['execution:read'],
		expiresAt: null,
	})) as { rawApiKey: string };
	return {
		...N8N_API_CREDENTIAL,
		type: 'n8nApi',
		data: { apiKey: key.rawApiKey, baseUrl: `${server.url}/api/v1` },
	};
}

/**
 * Publishes the first example served by n8n's MCP Server Trigger (2.x: the example's trigger is
 * typeVersion 2.1), so an MCP client can connect at once. Returns its name, its MCP URL and
 * whether the trigger asks for the Bearer token. The example does; an example changed to
 * *Authentication: None* is still published, and the demo says so.
 */
export async function publishMcp(
	server: N8nServer,
	cookie: string,
	examples: Example[],
): Promise<{ name: string; url: string; bearer: boolean } | undefined> {
	for (const example of examples) {
		const trigger = example.nodes.find((n) => n.type === MCP_TRIGGER && n.parameters?.path);
		if (!trigger) continue;
		await server.activateWorkflow(cookie, example.id);
		return {
			name: example.name,
			url: `${server.url}/mcp/${trigger.parameters!.path}`,
			bearer: trigger.parameters!.authentication === 'bearerAuth',
		};
	}
	return undefined;
}

/**
 * Points the sandbox's pushes of sales at the TEST URL of the first example with a push trigger:
 * while that workflow waits in the editor ("Execute workflow"), a sale made in the sandbox
 * arrives there, signed. (Its production URL would need the workflow published, and the
 * example's CRM step calls an outside service.) Returns the example's name, or undefined.
 */
export function subscribePush(
	sandbox: Sandbox,
	server: N8nServer,
	examples: Example[],
	secret: string,
): string | undefined {
	for (const example of examples) {
		const trigger = example.nodes.find(
			(n) => n.type.endsWith('.publicEventsTrigger') && n.webhookId,
		);
		if (!trigger) continue;
		const partner = sandbox.app.store.companies.find((c) => c.slug === 'partner')!;
		sandbox.app.push.subscribe({
			url: `${server.url}/webhook-test/${trigger.webhookId}/webhook`,
			secret,
			types: ['order.sale'],
			companyId: partner.id,
		});
		return example.name;
	}
	return undefined;
}

/** The address the CRM example ships with (before the order ID), for the user to replace. */
const SHIPPED_CRM_URL = /^(=?)https:\/\/crm\.example\.com\/api\/deals/;

/**
 * Points the CRM example's HTTP Request at the sandbox's stand-in CRM, as a user points it at
 * theirs: the example then runs green with no outside service, and GET on the same address
 * lists the deals it wrote. `url` is undefined when no example writes to a CRM.
 */
export function wireCrm(
	sandbox: Sandbox,
	examples: Example[],
): { examples: Example[]; url?: string } {
	const url = `${sandbox.baseUrl}/__sandbox/crm/deals`;
	const posts = (node: ExampleNode) =>
		node.type === 'n8n-nodes-base.httpRequest' && SHIPPED_CRM_URL.test(node.parameters?.url ?? '');
	const wired = examples.map((example) => ({
		...example,
		nodes: example.nodes.map((node) =>
			posts(node)
				? {
						...node,
						parameters: {
							...node.parameters,
							url: (node.parameters?.url ?? '').replace(SHIPPED_CRM_URL, `$1${url}`),
						},
					}
				: node,
		),
	}));
	return {
		examples: wired,
		url: examples.some((example) => example.nodes.some(posts)) ? url : undefined,
	};
}

/** Examples that call a service only reachable with the user's own account (Google Sheets). */
export const needsOwnAccount = (example: Example) =>
	example.nodes.some((n) => n.type === 'n8n-nodes-base.googleSheets');

/** Whether 127.0.0.1:`port` can be listened on now. */
export function portIsFree(port: number): Promise<boolean> {
	return new Promise((done) => {
		const server = createServer();
		server.once('error', () => done(false));
		server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
	});
}

/**
 * `npm run build` in the foreground process group (Ctrl+C ends it too); its output is shown
 * only when it fails. `onSpawn` receives the child so a stop can kill it.
 */
export function build(onSpawn: (kill: () => void) => void): Promise<void> {
	return new Promise((done, fail) => {
		const child = spawn('npm', ['run', 'build'], {
			cwd: REPO_ROOT,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (d: Buffer) => (output += d.toString()));
		child.stderr.on('data', (d: Buffer) => (output += d.toString()));
		onSpawn(() => child.kill('SIGTERM'));
		child.on('error', fail);
		child.on('exit', (code) =>
			code === 0 ? done() : fail(new Error(`npm run build failed (exit ${code}):\n${output}`)),
		);
	});
}
