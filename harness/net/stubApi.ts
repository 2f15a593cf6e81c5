import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../engine';
import { CREDENTIAL } from '../nodes/publicEvents';

/** One request the stand-in received. */
export interface StubRequest {
	at: number;
	method: string;
	/** The path under /api/v2, without the query. */
	path: string;
	body: string;
	headers: IncomingMessage['headers'];
}

export type StubHandler = (
	res: ServerResponse,
	request: StubRequest,
	req: IncomingMessage,
) => void | Promise<void>;

/** Answers JSON text as given: a 64-bit ID written as a number stays as the service wrote it. */
export function answerText(res: ServerResponse, status: number, text: string) {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(text);
}

export function answer(res: ServerResponse, status: number, body: unknown) {
	answerText(res, status, JSON.stringify(body));
}

/** An answer with no body at all (202 Accepted, 204 No Content). */
export function answerEmpty(res: ServerResponse, status: number) {
	res.writeHead(status);
	res.end();
}

/**
 * A stand-in of the Public Events API on a loopback port, for answers the sandbox never gives: an
 * answer about another order, a 2xx that names no order, a 64-bit order ID, a change visible only
 * a moment after a 202. Each route's handler is the test's; POST /token answers a token; every
 * request is logged.
 */
export class StubApi {
	readonly requests: StubRequest[] = [];
	private readonly routes = new Map<string, StubHandler>();

	private constructor(
		private readonly server: Server,
		readonly url: string,
	) {}

	static async start(): Promise<StubApi> {
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const stub = new StubApi(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
		server.on('request', (req: IncomingMessage, res: ServerResponse) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => void stub.handle(req, res, Buffer.concat(chunks).toString('utf8')));
		});
		return stub;
	}

	private async handle(req: IncomingMessage, res: ServerResponse, body: string) {
		const [full] = (req.url ?? '/').split('?');
		const path = full.replace(/^\/api\/v2/, '');
		const request = { at: Date.now(), method: req.method ?? '', path, body, headers: req.headers };
		this.requests.push(request);
		if (request.method === 'POST' && path === '/token')
			return answer(res, 200, { token: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzdHViIn0.${Date.now()}` });
		const route =
			this.routes.get(`${request.method} ${path}`) ??
			this.routes.get(`${request.method} ${path.replace(/\/\d+(?=\/|$)/g, '/{id}')}`);
		if (!route) return answer(res, 404, { message: `No route ${request.method} ${path}` });
		await route(res, request, req);
	}

	/** Sets the handler of `METHOD /path` (under /api/v2; `{id}` stands for any numeric segment). */
	on(route: string, handler: StubHandler): void {
		this.routes.set(route, handler);
	}

	/** Forgets the routes and the requests logged. */
	reset(): void {
		this.routes.clear();
		this.requests.length = 0;
	}

	/** How many `METHOD /path` requests came (the path as sent). */
	sent(method: string, path: string): number {
		return this.requests.filter((r) => r.method === method && r.path === path).length;
	}

	/** A credential store whose one Public Events credential points here (or at `baseUrl`). */
	store(baseUrl = this.url): CredentialStore {
		const store = new CredentialStore([new PublicEventsApi()]);
		store.add(CREDENTIAL, {
			environment: 'staging',
			baseUrl,
			apiKey: 'key_stub_9d8c7b6a5f4e3d2c1b0a',
		});
		return store;
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((resolve) => this.server.close(resolve));
	}
}
