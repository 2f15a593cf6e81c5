/**
 * Invariant: whatever redirects and error bodies a hostile service answers with, no credential
 * (the API key, any token issued during the run) reaches another origin, and none appears in the
 * node's output or error; a write reaches the API at most once (twice when a 401 refused the first
 * token) and never another origin; a token goes only to the origin that issued it (a credential
 * whose Base URL was edited sends its former token nowhere, and the API sees a token only after
 * it issued one); an error body keyed by a secret keeps it out of the error too.
 *
 * The service here is a stub, not the sandbox: two loopback origins, the API (A) and another (B)
 * that records what reaches it. Each case scripts A's answers to the token request, a read and a
 * write: redirect chains (same origin, other origin, relative, unusable Location), a 401 that
 * makes the run renew its token, and error bodies echoing the Authorization header or the key
 * (as values, in text, or as the names of fields).
 * With n8n's helpers following redirects (the transport before this suite), the generator found
 * [{"read":[{"status":301,"to":"other"}], ...}]: the token reached the other origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import fc from 'fast-check';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../harness/engine';
import { capturedText, expectNoSecrets } from '../../harness/secrets';
import { CREDENTIAL, runPublicEvents } from '../../harness/nodes/publicEvents';
import { checkProperty } from '../../harness/props/property';

type Hop = { status: 301 | 302 | 303 | 307 | 308; to: 'same' | 'other' | 'relative' | 'unusable' };
type Final = 'ok' | 'echoHeader' | 'echoKey' | 'echoKeyed' | 'echoText' | 'refuseOnce';
interface Script {
	token: Hop[];
	read: Hop[];
	readFinal: Final;
	write: Hop[];
	writeFinal: Final;
	/** The credential holds a token another address issued (its Base URL was edited since). */
	stale?: boolean;
}

interface Received {
	origin: 'A' | 'B';
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
	body: string;
}

const KEY = 'key_live_7f3a9c2e51d84b06a1c3';
const hop = fc.record({
	status: fc.constantFrom(301 as const, 302 as const, 303 as const, 307 as const, 308 as const),
	to: fc.constantFrom('same' as const, 'other' as const, 'relative' as const, 'unusable' as const),
});
const final = fc.constantFrom<Final>(
	'ok',
	'echoHeader',
	'echoKey',
	'echoKeyed',
	'echoText',
	'refuseOnce',
);
const script: fc.Arbitrary<Script> = fc.record({
	// Mostly a clean token request, so reads and writes get to run.
	token: fc.oneof(
		{ weight: 3, arbitrary: fc.constant<Hop[]>([]) },
		{ weight: 1, arbitrary: fc.array(hop, { minLength: 1, maxLength: 2 }) },
	),
	read: fc.array(hop, { maxLength: 4 }),
	readFinal: final,
	write: fc.array(hop, { maxLength: 3 }),
	writeFinal: final,
	stale: fc.boolean(),
});

/** The token the credential held from its former Base URL, in `stale` cases. */
const STALE = 'tok_from_the_former_address_5c1e9b7d22';

let a: Server;
let b: Server;
let aUrl = '';
let bUrl = '';
let current: Script;
let received: Received[] = [];
let issued: string[] = [];
let refused = new Set<string>();
const hopsTaken = new Map<string, number>();

function listen(server: Server): Promise<string> {
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () =>
			resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
		),
	);
}

function json(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
) {
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
}

function redirect(res: ServerResponse, step: Hop, path: string) {
	const location = {
		same: `${aUrl}/moved${path}`,
		other: `${bUrl}${path}`,
		relative: `/moved${path}`,
		unusable: 'javascript:alert(1)',
	}[step.to];
	res.writeHead(step.status, { location });
	res.end();
}

/** Answers a request of kind `kind` by the case's script: its next hop, else its final answer. */
function scripted(req: IncomingMessage, res: ServerResponse, kind: 'read' | 'write', body: string) {
	const hops = current[kind];
	const taken = hopsTaken.get(kind) ?? 0;
	if (taken < hops.length) {
		hopsTaken.set(kind, taken + 1);
		return redirect(res, hops[taken], (req.url ?? '/').replace(/^\/moved/, ''));
	}
	const auth = String(req.headers.authorization ?? '');
	const token = auth.replace(/^Bearer /, '');
	const answer = kind === 'read' ? current.readFinal : current.writeFinal;
	// The first token of the case expires mid-run: the run renews once and goes on.
	if (answer === 'refuseOnce' && refused.size === 0) {
		refused.add(token);
		return json(res, 401, { message: 'token expired' });
	}
	switch (answer) {
		case 'echoHeader':
			return json(res, 400, {
				message: `rejected ${auth}`,
				request: { headers: req.headers, body },
			});
		case 'echoKey':
			return json(res, 422, {
				message: `limit for ${KEY}`,
				detail: `caller ${token} over limit`,
				limit: 1,
			});
		case 'echoKeyed':
			// A gateway's echo keyed by what it saw.
			return json(res, 400, { message: 'rejected', [KEY]: 'api key', [token]: { auth } });
		case 'echoText':
			res.writeHead(500, { 'content-type': 'text/plain' });
			return res.end(`upstream said: ${auth} ${body}`);
		default:
			return json(
				res,
				200,
				kind === 'read' ? { id: 1, eventName: 'Concert' } : { id: 5, status: 'paid' },
			);
	}
}

async function handleA(req: IncomingMessage, res: ServerResponse, body: string) {
	const path = (req.url ?? '/').split('?')[0].replace(/^\/moved/, '');
	if (req.method === 'POST' && path === '/api/v2/token') {
		const taken = hopsTaken.get('token') ?? 0;
		if (taken < current.token.length) {
			hopsTaken.set('token', taken + 1);
			return redirect(res, current.token[taken], path);
		}
		const token =
			`tok_${Math.random().toString(36).slice(2)}` + `${Math.random().toString(36).slice(2)}`;
		issued.push(token);
		return json(res, 200, { token });
	}
	if (req.method === 'GET' && path === '/api/v2/event-points/1')
		return scripted(req, res, 'read', body);
	if (req.method === 'PUT' && path === '/api/v2/orders/5/status')
		return scripted(req, res, 'write', body);
	if (req.method === 'GET' && path === '/api/v2/orders/5')
		return json(res, 200, { id: 5, status: 'reserved_to_time' });
	return json(res, 404, { message: 'no route' });
}

function recorder(
	origin: 'A' | 'B',
	handle: (req: IncomingMessage, res: ServerResponse, body: string) => unknown,
): Server {
	return createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			received.push({
				origin,
				method: req.method ?? '',
				path: req.url ?? '',
				headers: req.headers,
				body,
			});
			void handle(req, res, body);
		});
	});
}

beforeAll(async () => {
	a = recorder('A', handleA);
	b = recorder('B', (_req, res) => json(res, 200, { id: 1, note: 'the other origin' }));
	aUrl = await listen(a);
	bUrl = await listen(b);
});

afterAll(async () => {
	await Promise.all([a, b].map((server) => new Promise((resolve) => server.close(resolve))));
});

const NO_RETRY = { maxRetries: 0, maxRetryWait: 0, confirmWaitSeconds: 0 };

/** One case: the read and the write against the scripted service, judged. */
async function runCase(s: Script): Promise<void> {
	current = s;
	received = [];
	issued = [];
	refused = new Set();
	hopsTaken.clear();
	const store = new CredentialStore([new PublicEventsApi()]);
	// Production over http is allowed on loopback only: the stub is one.
	store.add(CREDENTIAL, {
		environment: 'production',
		baseUrl: aUrl,
		apiKey: KEY,
		// Edited from B to A: B's token is still stored (n8n keeps hidden fields).
		...(s.stale ? { token: STALE, issuedBy: bUrl } : {}),
	});
	const read = await runPublicEvents(store, {
		resource: 'event',
		operation: 'get',
		eventId: { __rl: true, mode: 'id', value: '1' },
		options: NO_RETRY,
	});
	const write = await runPublicEvents(store, {
		resource: 'order',
		operation: 'changeStatus',
		orderId: '5',
		toStatus: 'paid',
		options: NO_RETRY,
	});

	const secrets: Record<string, string> = { 'the API key': KEY, 'the former token': STALE };
	issued.forEach((token, i) => (secrets[`token ${i + 1}`] = token));
	const atB = received.filter((r) => r.origin === 'B');
	expectNoSecrets(
		capturedText(atB.map((r) => ({ headers: r.headers, body: r.body, path: r.path }))),
		secrets,
		'what the other origin received',
	);
	expect(atB.every((r) => r.headers.authorization === undefined)).toBe(true);
	// A token goes only where it was issued: the former one never reaches A, and A sees a
	// token only after it issued one.
	const atA = received.filter((r) => r.origin === 'A');
	expect(atA.filter((r) => String(r.headers.authorization).includes(STALE))).toEqual([]);
	const firstToken = atA.findIndex((r) => r.method === 'POST' && r.path.endsWith('/token'));
	const firstBearer = atA.findIndex((r) => r.headers.authorization !== undefined);
	if (firstBearer >= 0) expect(firstToken).toBeGreaterThanOrEqual(0);
	if (firstBearer >= 0) expect(firstBearer).toBeGreaterThan(firstToken);
	// Writes and the token request follow no redirect at all.
	expect(atB.filter((r) => r.method !== 'GET')).toEqual([]);
	// Sent again only after a 401 (refused: the spec's "request a new token and repeat the
	// call").
	const puts = received.filter((r) => r.origin === 'A' && r.method === 'PUT').length;
	expect(puts).toBeLessThanOrEqual(s.writeFinal === 'refuseOnce' ? 2 : 1);
	for (const [name, run] of [
		['read', read],
		['write', write],
	] as const) {
		expectNoSecrets(
			capturedText(run.items, run.error, run.run.data.resultData),
			secrets,
			`the ${name}'s output and error`,
		);
	}
	// A clean chain (same-origin hops only, a readable answer) still gets its answer.
	const clean = (hops: Hop[]) => hops.every((h) => h.to === 'same' || h.to === 'relative');
	if (
		s.token.length === 0 &&
		clean(s.read) &&
		(s.readFinal === 'ok' || s.readFinal === 'refuseOnce')
	) {
		expect(read.error).toBeUndefined();
		expect(read.items[0]?.json.eventName).toBe('Concert');
	}
}

/**
 * Kept: what the generator finds when a stored token is sent whatever address issued it (the
 * Base URL edited: a token of B reached A), and when redaction cleans values but not names (an
 * echo keyed by the key and the token kept both in the error).
 */
const KEPT: Script[] = [
	{
		token: [{ status: 301, to: 'same' }],
		read: [],
		readFinal: 'ok',
		write: [],
		writeFinal: 'ok',
		stale: true,
	},
	{ token: [], read: [], readFinal: 'ok', write: [], writeFinal: 'echoKeyed', stale: false },
];

test.each(KEPT.map((s) => [JSON.stringify(s), s] as const))('kept: %s', async (_, s) => {
	await runCase(s);
});

test(
	'no credential reaches another origin or the output, whatever ' +
		'the redirects and error bodies',
	async () => {
		await checkProperty('redirects and secrets', script, runCase, 40);
	},
);

test(
	'a cross-origin redirect on a read is refused with a message ' + 'naming where it pointed',
	async () => {
		current = {
			token: [],
			read: [{ status: 302, to: 'other' }],
			readFinal: 'ok',
			write: [],
			writeFinal: 'ok',
		};
		received = [];
		hopsTaken.clear();
		const store = new CredentialStore([new PublicEventsApi()]);
		store.add(CREDENTIAL, { environment: 'staging', baseUrl: aUrl, apiKey: KEY });
		const { error } = await runPublicEvents(store, {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: '1' },
		});
		expect(error?.message).toContain(
			`to ${bUrl}/api/v2/event-points/1, away from the Base URL's address ${aUrl}`,
		);
		expect(received.filter((r) => r.origin === 'B')).toEqual([]);
	},
);

test(
	'a redirect on POST /token sends the key nowhere else and ' + 'says why the token failed',
	async () => {
		current = {
			token: [{ status: 307, to: 'other' }],
			read: [],
			readFinal: 'ok',
			write: [],
			writeFinal: 'ok',
		};
		received = [];
		hopsTaken.clear();
		const store = new CredentialStore([new PublicEventsApi()]);
		store.add(CREDENTIAL, { environment: 'staging', baseUrl: aUrl, apiKey: KEY });
		const { error } = await runPublicEvents(store, {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: '1' },
		});
		expect(error?.message).toMatch(/answered a redirect \(307\) instead of a token/);
		expect(received.filter((r) => r.origin === 'B')).toEqual([]);
	},
);

test(
	'production over plain http to a remote host fails before any ' + 'request, naming Base URL',
	async () => {
		received = [];
		const store = new CredentialStore([new PublicEventsApi()]);
		store.add(CREDENTIAL, {
			environment: 'production',
			baseUrl: 'http://tickets.example.com',
			apiKey: KEY,
		});
		const { error } = await runPublicEvents(store, {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: '1' },
		});
		expect(error?.message).toMatch(
			/^The credential's Base URL: Production needs an https:\/\/ address/,
		);
		expect(received).toEqual([]);
	},
);
