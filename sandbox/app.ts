import type { IncomingMessage, ServerResponse } from 'node:http';

import { handleAdmin } from './admin';
import type { Ctx } from './context';
import { releaseExpiredHolds } from './domain/holds';
import { API_PREFIX } from './envelope';
import type { FaultRule } from './faults';
import { HttpError, parseJson, readBody, Router, send } from './http';
import type { Company, Lang } from './model';
import type { SandboxOptions } from './options';
import { redirectFor, sendMangled } from './quirkReplies';
import { sendFate, writeAnswerFate } from './readBackQuirks';
import type { LogEntry } from './requestLog';
import { registerRoutes } from './routes';
import { ApiState } from './state';

/**
 * The API's HTTP handling over one environment's state: the control surface, faults, redirects,
 * authentication, rate limit and hold expiry, then the route, then the mangle quirks.
 */
export class SandboxApp extends ApiState {
	private readonly router = new Router<Ctx>();
	private inFlight = 0;
	private readonly idleWaiters: Array<() => void> = [];

	constructor(options: SandboxOptions) {
		super(options);
		registerRoutes(this.router);
	}

	async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://sandbox');
		const method = req.method ?? 'GET';
		if (url.pathname.startsWith('/__sandbox')) return handleAdmin(this, req, res, url);
		// The service's own time, which a client may read; node's http would stamp real time.
		res.setHeader('date', new Date(this.clock.now()).toUTCString());
		// Where the same-origin redirect quirk sends GETs: served as /api/v2, never redirected.
		const moved = url.pathname.startsWith(`/moved${API_PREFIX}/`);
		const pathname = moved ? url.pathname.slice('/moved'.length) : url.pathname;
		if (!pathname.startsWith(`${API_PREFIX}/`))
			return send(res, 404, { code: 'not_found', message: 'The API lives under /api/v2' });

		const path = pathname.slice(API_PREFIX.length);
		const found = this.router.match(method, path);
		const route = typeof found === 'object' ? found.route.template : '(unmatched)';
		const entry = this.log.start({
			at: Date.now(),
			clock: this.clock.now(),
			method,
			route,
			path,
			query: url.search,
		});
		res.on('finish', () => (entry.status = res.statusCode));
		this.inFlight += 1;
		let raw: Buffer | undefined;
		try {
			// Read before any fault: like a real server, a slow write then runs to its end even
			// when its caller has given up (a latency fault applies it late).
			raw =
				method === 'POST' || method === 'PUT' || method === 'PATCH'
					? await readBody(req)
					: undefined;
			const fault = this.faults.take(method, route, path, url.searchParams);
			if (fault && (await this.applyFault(fault, entry, res))) return;
			const redirect = moved ? undefined : redirectFor(this, method, route, req.headers.host, url);
			if (redirect) {
				entry.fault = `redirect-${redirect.status}`;
				return send(
					res,
					redirect.status,
					{ code: 'moved', message: `Moved to ${redirect.location}` },
					{ location: redirect.location },
				);
			}
			if (found === undefined)
				throw new HttpError(404, { code: 'not_found', message: `No route ${method} ${path}` });
			if (found === 405)
				throw new HttpError(405, {
					code: 'method_not_allowed',
					message: `${method} is not allowed on ${path}`,
				});

			let company = undefined as unknown as Company;
			if (route !== '/token') {
				const claims = this.issuer.verify(req.headers.authorization, this.clock.now());
				company = this.store.companies.find((c) => c.id === claims.sub)!;
				entry.companyId = claims.sub;
				this.rateLimit(claims.kid);
			}
			const body = raw === undefined ? undefined : parseJson(raw);
			const ctx: Ctx = {
				app: this,
				company,
				body,
				query: url.searchParams,
				lang: language(req.headers['x-api-language']),
			};
			releaseExpiredHolds(this);
			const reply = await found.route.handler(ctx, found.params);
			if (fault?.kind === 'drop' && fault.phase === 'after') {
				entry.fault = 'drop-after';
				res.socket?.destroy();
				return;
			}
			const fate = this.writeFate(raw, route, reply.status ?? 200);
			if (fate) {
				entry.fault = `${fate}-answer`;
				return sendFate(res, fate);
			}
			const mangle = raw !== undefined && route !== '/token' ? this.mangleNext() : undefined;
			if (mangle) {
				entry.fault = `mangle-${mangle}`;
				return sendMangled(res, mangle, reply.status ?? 200, reply.body, reply.headers);
			}
			send(res, reply.status ?? 200, reply.body, reply.headers);
		} catch (error) {
			if (error instanceof HttpError && this.writeFate(raw, route, error.status) === 'lose') {
				entry.fault = 'lose-answer';
				return sendFate(res, 'lose');
			}
			if (error instanceof HttpError) return send(res, error.status, error.body, error.headers);
			send(res, 500, { code: 'internal_error', message: (error as Error).message });
		} finally {
			this.inFlight -= 1;
			if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((done) => done());
		}
	}

	/** What the read-back quirks do to the answer to a write the service acted on. */
	private writeFate(raw: Buffer | undefined, route: string, status: number) {
		if (raw === undefined || route === '/token' || status === 401 || status === 429)
			return undefined;
		return writeAnswerFate(this.quirks, this.options.seed, status);
	}

	/** Resolves once no API request is being handled (a slow one too, its caller gone or not). */
	idle(): Promise<void> {
		return this.inFlight === 0
			? Promise.resolve()
			: new Promise((done) => this.idleWaiters.push(done));
	}

	/** True when the fault answered (or dropped) the request itself. */
	private async applyFault(
		fault: FaultRule,
		entry: LogEntry,
		res: ServerResponse,
	): Promise<boolean> {
		entry.fault = fault.kind === 'drop' ? `drop-${fault.phase}` : fault.kind;
		switch (fault.kind) {
			case 'latency':
				await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
				return false;
			case 'drop':
				if (fault.phase === 'after') return false;
				res.socket?.destroy();
				return true;
			case 'html':
				send(
					res,
					fault.status ?? 502,
					'<html><head><title>502 Bad Gateway</title></head>' +
						'<body><h1>Bad Gateway</h1></body></html>',
					{ 'content-type': 'text/html' },
				);
				return true;
			case 'malformed':
				send(res, fault.status ?? 200, '{"hydra:member": [{"id": 1,', {
					'content-type': 'application/json',
				});
				return true;
			case 'empty':
				send(res, fault.status ?? 200, '', { 'content-type': 'application/json' });
				return true;
			case 'status': {
				const status = fault.status ?? 500;
				const headers: Record<string, string> = {};
				if (typeof fault.retryAfter === 'number') headers['retry-after'] = String(fault.retryAfter);
				// An HTTP date in the service's time, as its Date header is.
				else if (fault.retryAfter)
					headers['retry-after'] = new Date(
						this.clock.now() + fault.retryAfter.date * 1000,
					).toUTCString();
				send(
					res,
					status,
					fault.body ?? { code: 'injected_fault', message: `Injected ${status}` },
					headers,
				);
				return true;
			}
		}
	}
}

function language(header: string | string[] | undefined): Lang {
	const value = (Array.isArray(header) ? header[0] : (header ?? '')).toLowerCase();
	return value.startsWith('de') ? 'de' : 'en';
}
