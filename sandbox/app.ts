import type { IncomingMessage, ServerResponse } from 'node:http';

import { handleAdmin } from './admin';
import { TokenIssuer } from './auth';
import { Clock } from './clock';
import { API_PREFIX, renderItem, renderPage, type Collection } from './envelope';
import { Faults, type FaultRule } from './faults';
import { HttpError, parseJson, readBody, Router, send, type Reply } from './http';
import type { Company, Lang } from './model';
import type { SandboxOptions } from './options';
import { OtherOrigin } from './otherOrigin';
import { Notifier } from './push';
import { formatQuirks, toQuirks, type MangleKind, type Quirks } from './quirks';
import { redirectFor, sendMangled } from './quirkReplies';
import { Random } from './random';
import { RequestLog, type LogEntry } from './requestLog';
import { registerRoutes } from './routes';
import { seedStore } from './seed';
import { Serializer } from './serialize';
import type { Store } from './store';
import { releaseExpiredHolds } from './routes/orders';

export interface Ctx {
	app: SandboxApp;
	/** The caller's company; undefined only on POST /token. */
	company: Company;
	lang: Lang;
	query: URLSearchParams;
	body: unknown;
}

/** One environment of the API: its data, clock, tokens, faults, push and request log. */
export class SandboxApp {
	readonly clock: Clock;
	readonly store: Store;
	readonly issuer: TokenIssuer;
	readonly log = new RequestLog();
	readonly faults = new Faults();
	readonly push: Notifier;
	readonly serialize: Serializer;
	readonly random: Random;
	/** Where the redirect quirks send clients; records what arrives there. */
	readonly otherOrigin: OtherOrigin;
	/** What the example's CRM step posted to the stand-in CRM (`/__sandbox/crm/deals`). */
	readonly crmDeals: Array<{ receivedAt: string; body: unknown }> = [];
	private readonly router = new Router<Ctx>();
	private readonly windows = new Map<number, { start: number; count: number }>();
	private readonly pageCache = new Map<string, Reply>();
	private inFlight = 0;
	private readonly idleWaiters: Array<() => void> = [];
	/** The skew already applied to the clock, so a new one moves it by the difference. */
	private appliedSkewMs = 0;
	private mangled = 0;
	private mangleRandom: Random;

	constructor(readonly options: SandboxOptions) {
		this.clock = new Clock(options.now);
		// The skew moves the clock before seeding, so seeded times are the service's own.
		this.appliedSkewMs = options.quirks.clockSkewMs ?? 0;
		this.clock.advance(this.appliedSkewMs);
		this.otherOrigin = new OtherOrigin(options.host);
		this.mangleRandom = new Random(options.seed ^ 0x3a61e);
		this.store = seedStore(options, this.clock.now());
		this.random = new Random(options.seed ^ 0x5eed);
		this.issuer = new TokenIssuer(options.environment);
		this.serialize = new Serializer(this.store, options.currency);
		this.push = new Notifier(this.clock, () => this.options.push);
		registerRoutes(this.router);
	}

	get quirks(): Quirks {
		return this.options.quirks;
	}

	/** Replaces the quirks (typed object or string form); throws an Error naming a bad one. */
	async setQuirks(input: unknown): Promise<Quirks> {
		const quirks = toQuirks(input);
		if (quirks.redirect === 'cross-origin' || quirks.redirectToken || quirks.redirectWrites)
			await this.otherOrigin.start();
		const skew = quirks.clockSkewMs ?? 0;
		if (skew !== this.appliedSkewMs) this.clock.advance(skew - this.appliedSkewMs);
		this.appliedSkewMs = skew;
		this.mangled = 0;
		this.mangleRandom = new Random(this.options.seed ^ 0x3a61e);
		this.options.quirks = quirks;
		this.pageCache.clear();
		return quirks;
	}

	get quirksText(): string {
		return formatQuirks(this.quirks);
	}

	/** Whether this write's answer is mangled (the mangle quirks), consuming one of its shots. */
	private mangleNext(): MangleKind | undefined {
		const q = this.quirks;
		if (!q.mangleWriteAnswers) return undefined;
		if (q.mangleWriteAnswersCount && this.mangled >= q.mangleWriteAnswersCount) return undefined;
		if (
			q.mangleWriteAnswersRate !== undefined &&
			!this.mangleRandom.chance(q.mangleWriteAnswersRate)
		)
			return undefined;
		this.mangled += 1;
		return q.mangleWriteAnswers;
	}

	/** A page of a collection in the envelope the sandbox is switched to. */
	page<T extends { id?: unknown }>(
		ctx: Ctx,
		all: readonly T[],
		serialize: (item: T) => Record<string, unknown> | string,
		c: Omit<Collection, 'query'>,
	): Reply {
		const toJson = (item: T) => {
			const value = serialize(item);
			return typeof value === 'string' ? value : JSON.stringify(value);
		};
		const totalShift = this.quirks.totalDrift ? (c.page ?? 1) - 1 : 0;
		return {
			body: renderPage(this.options.envelope, all, toJson, { ...c, query: ctx.query, totalShift }),
		};
	}

	/**
	 * A rendered page kept for reuse (LRU, 1,000 pages). The key must change whenever the
	 * page would: hall plans put the event's version in it, which every place change bumps.
	 */
	cachedPage(key: string, render: () => Reply): Reply {
		const fullKey = `${this.options.envelope} ${key}`;
		const hit = this.pageCache.get(fullKey);
		if (hit) {
			this.pageCache.delete(fullKey);
			this.pageCache.set(fullKey, hit);
			return hit;
		}
		const reply = render();
		this.pageCache.set(fullKey, reply);
		if (this.pageCache.size > 1000) this.pageCache.delete(this.pageCache.keys().next().value!);
		return reply;
	}

	item(type: string, iri: string, item: Record<string, unknown>): Reply {
		return { body: renderItem(this.options.envelope, type, iri, item) };
	}

	/** Counts a request against the key's window; 429 with Retry-After (seconds) past the limit. */
	rateLimit(keyId: number): void {
		const { limit, windowMs } = this.options.rateLimit;
		if (limit <= 0) return;
		const now = this.clock.now();
		const start = Math.floor(now / windowMs) * windowMs;
		let window = this.windows.get(keyId);
		if (!window || window.start !== start) this.windows.set(keyId, (window = { start, count: 0 }));
		window.count += 1;
		if (window.count > limit) {
			const retryAfter = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
			throw new HttpError(
				429,
				{
					code: 'rate_limited',
					message: `More than ${limit} requests in ${windowMs} ms`,
					limit,
					retryAfter,
				},
				{ 'retry-after': String(retryAfter) },
			);
		}
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
		try {
			// Read before any fault: like a real server, a slow write then runs to its end even
			// when its caller has given up (a latency fault applies it late).
			const raw =
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
			const mangle = raw !== undefined && route !== '/token' ? this.mangleNext() : undefined;
			if (mangle) {
				entry.fault = `mangle-${mangle}`;
				return sendMangled(res, mangle, reply.status ?? 200, reply.body, reply.headers);
			}
			send(res, reply.status ?? 200, reply.body, reply.headers);
		} catch (error) {
			if (error instanceof HttpError) return send(res, error.status, error.body, error.headers);
			send(res, 500, { code: 'internal_error', message: (error as Error).message });
		} finally {
			this.inFlight -= 1;
			if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((done) => done());
		}
	}

	/** Resolves once no API request is being handled (a slow one included, its caller gone or not). */
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
					'<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>',
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
