/**
 * Real n8n (`n8n execute`) runs the packed package against a hostile stub service that is not
 * the sandbox: the API on one loopback origin, another origin that records what reaches it.
 * One workflow, one node per fault, each with its own credential (a path prefix of the stub) and
 * "continue on error", so one run answers every row:
 * - a read redirected to another origin: refused, the token stays home;
 * - POST /token redirected: the key goes nowhere else;
 * - writes the stub applied but answered with bytes that are not HTTP, or with a gzip header
 *   over plain JSON: read back, reported applied, never sent twice;
 * - a write answered 502 and not applied: read back, reported not applied (may still apply);
 * - production over plain http to a remote host: refused before any request, naming Base URL.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	apiCredential,
	ensureN8n,
	N8nInstance,
	nodeOutput,
	packPackage,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { expectNoSecrets } from '../../harness/secrets';
import { manualTrigger } from '../../harness/bench/workflows';

const KEY = 'key_live_hostile_e2e_4d1c9a7b20';
const WORKFLOW_ID = 'PeE2eWfHostile01';

interface Hit {
	origin: 'api' | 'other';
	method: string;
	path: string;
	authorization?: string;
	body: string;
}

/** Each node: its name, the stub prefix its credential points at, its parameters. */
const CASES = [
	{
		name: 'Read redirected away',
		prefix: 'read',
		parameters: {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: '1' },
		},
	},
	{
		name: 'Token redirected away',
		prefix: 'token',
		parameters: {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: '1' },
		},
	},
	{
		name: 'Paid, answer not HTTP',
		prefix: 'garbage',
		parameters: { resource: 'order', operation: 'changeStatus', orderId: '5', toStatus: 'paid' },
	},
	{
		name: 'Paid, answer gzip-mangled',
		prefix: 'gzip',
		parameters: { resource: 'order', operation: 'changeStatus', orderId: '5', toStatus: 'paid' },
	},
	{
		name: 'Paid, 502 and not applied',
		prefix: 'gateway',
		parameters: { resource: 'order', operation: 'changeStatus', orderId: '5', toStatus: 'paid' },
	},
	{
		name: 'Production over http',
		prefix: 'production',
		parameters: {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: '1' },
		},
	},
] as const;

describe('real n8n against a hostile service (a stub, not the sandbox)', () => {
	let api: Server;
	let other: Server;
	let apiUrl = '';
	let otherUrl = '';
	const hits: Hit[] = [];
	const tokens: string[] = [];
	/** Order status per stub prefix: what the service really holds. */
	const orders = new Map<string, string>();
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let run: any;

	function answer(req: IncomingMessage, res: ServerResponse) {
		const [, prefix, ...rest] = (req.url ?? '/').split('?')[0].split('/');
		const path = `/${rest.join('/')}`;
		const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
			res.writeHead(status, { 'content-type': 'application/json', ...headers });
			res.end(JSON.stringify(value));
		};
		if (req.method === 'POST' && path === '/api/v2/token') {
			if (prefix === 'token') {
				res.writeHead(307, { location: `${otherUrl}/api/v2/token` });
				return res.end();
			}
			const token = `tok_${randomUUID().replace(/-/g, '')}`;
			tokens.push(token);
			return json(200, { token });
		}
		if (req.method === 'GET' && path === '/api/v2/event-points/1') {
			if (prefix === 'read') {
				res.writeHead(302, { location: `${otherUrl}/api/v2/event-points/1` });
				return res.end();
			}
			return json(200, { id: 1, eventName: 'Concert' });
		}
		if (req.method === 'GET' && path === '/api/v2/orders/5')
			return json(200, { id: 5, status: orders.get(prefix) ?? 'reserved_to_time', tickets: [] });
		if (req.method === 'PUT' && path === '/api/v2/orders/5/status') {
			if (prefix === 'gateway') {
				res.writeHead(502, { 'content-type': 'text/html' });
				return res.end('<html><body>Bad Gateway</body></html>');
			}
			orders.set(prefix, 'paid');
			if (prefix === 'garbage') {
				// Applied, then bytes that are not an HTTP answer.
				req.socket.end('\u0000\u0001NOT-HTTP garbage\r\n\r\n');
				return;
			}
			return json(200, { id: 5, status: 'paid', tickets: [] }, { 'content-encoding': 'gzip' });
		}
		return json(404, { message: `no route ${req.method} ${path}` });
	}

	function recording(
		origin: Hit['origin'],
		handle: (req: IncomingMessage, res: ServerResponse) => void,
	): Server {
		return createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const body = Buffer.concat(chunks).toString('utf8');
				hits.push({
					origin,
					method: req.method ?? '',
					path: req.url ?? '',
					authorization: req.headers.authorization,
					body,
				});
				handle(req, res);
			});
		});
	}

	const listen = (server: Server) =>
		new Promise<string>((resolve) =>
			server.listen(0, '127.0.0.1', () =>
				resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
			),
		);

	beforeAll(async () => {
		api = recording('api', answer);
		other = recording('other', (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"id":1,"from":"the other origin"}');
		});
		[apiUrl, otherUrl] = await Promise.all([listen(api), listen(other)]);
		const [install, pkg] = await Promise.all([ensureN8n(), packPackage()]);
		packed = pkg;
		n8n = await N8nInstance.create({ install, packed });
		await n8n.importCredentials(
			CASES.map((c, i) =>
				c.prefix === 'production'
					? apiCredential(
							{ id: `PeE2eCredHostl${i}`, name: c.name },
							'http://tickets.example.invalid',
							KEY,
							'production',
						)
					: apiCredential({ id: `PeE2eCredHostl${i}`, name: c.name }, `${apiUrl}/${c.prefix}`, KEY),
			),
		);
		const nodes = [
			{ id: randomUUID(), position: [0, 0], ...manualTrigger },
			...CASES.map((c, i) => ({
				id: randomUUID(),
				name: c.name,
				type: 'n8n-nodes-public-events.publicEvents',
				typeVersion: 1,
				position: [240 * (i + 1), 0],
				// No retries: each fault is met once, and the run stays short.
				parameters: { ...c.parameters, options: { maxRetries: 0 } },
				credentials: { publicEventsApi: { id: `PeE2eCredHostl${i}`, name: c.name } },
				onError: 'continueRegularOutput',
			})),
		];
		const names = ['Start', ...CASES.map((c) => c.name)];
		const connections = Object.fromEntries(
			names
				.slice(0, -1)
				.map((name, i) => [name, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
		);
		const workflow = {
			id: WORKFLOW_ID,
			name: 'e2e: hostile service',
			active: false,
			settings: { executionOrder: 'v1' },
			nodes,
			connections,
		};
		await n8n.importWorkflow(workflow);
		run = await n8n.execute(WORKFLOW_ID);
	});

	afterAll(async () => {
		n8n?.cleanup();
		packed?.cleanup();
		await Promise.all(
			[api, other].map(
				(server) => new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined))),
			),
		);
	});

	const only = (name: string) => {
		const items = nodeOutput(run, name);
		expect(items).toHaveLength(1);
		return items[0];
	};

	it('the other origin received nothing at all: no token, no key, no write', () => {
		expect(hits.filter((h) => h.origin === 'other')).toEqual([]);
		expect(tokens.length).toBeGreaterThan(0);
	});

	it('a read redirected to another origin fails, naming where it pointed', () => {
		expect(only('Read redirected away').error).toContain(
			`${otherUrl}/api/v2/event-points/1, away from the Base URL's address`,
		);
	});

	it('a redirected token request fails without sending the key on', () => {
		expect(only('Token redirected away').error).toMatch(
			/answered a redirect \(307\) instead of a token/,
		);
	});

	it(
		'writes applied behind unreadable answers are read back and ' +
			'reported applied, sent once each',
		() => {
			for (const [name, prefix] of [
				['Paid, answer not HTTP', 'garbage'],
				['Paid, answer gzip-mangled', 'gzip'],
			]) {
				const item = only(name);
				expect(item.error).toBeUndefined();
				expect(item.status).toBe('paid');
				expect(JSON.stringify(item.writeCheck)).toMatch(/applied/);
				expect(
					hits.filter((h) => h.method === 'PUT' && h.path.startsWith(`/${prefix}/`)),
				).toHaveLength(1);
			}
		},
	);

	it(
		'a write answered 502 and not applied is read back and said ' +
			'not applied, and not sent again',
		() => {
			const item = only('Paid, 502 and not applied');
			expect(item.error).toMatch(/not applied/i);
			expect(hits.filter((h) => h.method === 'PUT' && h.path.startsWith('/gateway/'))).toHaveLength(
				1,
			);
			expect(
				hits.filter((h) => h.method === 'GET' && h.path.startsWith('/gateway/api/v2/orders/5')),
			).not.toHaveLength(0);
		},
	);

	it(
		'production over plain http to a remote host is refused ' +
			'before any request, naming Base URL',
		() => {
			expect(only('Production over http').error).toMatch(
				/^The credential's Base URL: Production needs an https:\/\/ address/,
			);
			expect(hits.filter((h) => h.path.startsWith('/production/'))).toEqual([]);
		},
	);

	it('nothing n8n printed or stored in the run holds the key or a token', () => {
		const secrets: Record<string, string> = { 'the API key': KEY };
		tokens.forEach((token, i) => (secrets[`token ${i + 1}`] = token));
		expectNoSecrets(
			`${n8n.printedText()}\n${JSON.stringify(run)}`,
			secrets,
			'real n8n against the hostile stub',
		);
	});
});
