import { TokenIssuer } from './auth';
import { Clock } from './clock';
import { StandInCrm } from './crm';
import { renderItem, renderPage, type Collection } from './envelope';
import { Faults } from './faults';
import { HttpError, type Reply } from './http';
import type { SandboxOptions } from './options';
import { OtherOrigin } from './otherOrigin';
import { Notifier } from './push';
import { formatQuirks, toQuirks, type MangleKind, type Quirks } from './quirks';
import { listedNow } from './departures';
import { Random } from './random';
import { RequestLog } from './requestLog';
import { Scenario } from './scenario';
import { seedStore } from './seed';
import { Serializer } from './serialize';
import type { Store } from './store';

/**
 * One environment of the API: its data, clock, tokens, faults, push, quirks and request log, and
 * the helpers its answers are made with. Routes, domain rules and the control surface see this;
 * the HTTP handling that drives them is SandboxApp's (app.ts).
 */
export class ApiState {
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
	/** The deals the CRM example wrote to the stand-in CRM (`/__sandbox/crm/deals`). */
	readonly crm = new StandInCrm();
	/** The run of a rush being counted (`/__sandbox/scenario`). */
	readonly scenario: Scenario;
	private readonly windows = new Map<number, { start: number; count: number }>();
	private readonly pageCache = new Map<string, Reply>();
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
		this.scenario = new Scenario(this.clock.now());
		this.random = new Random(options.seed ^ 0x5eed);
		this.issuer = new TokenIssuer(options.environment);
		this.serialize = new Serializer(this.store, options.currency);
		this.serialize.plainTotals = options.quirks.plainTotals === true;
		this.push = new Notifier(this.clock, () => this.options.push);
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
		this.serialize.plainTotals = quirks.plainTotals === true;
		if (quirks.sharedOrderNumbers) this.store.shareOrderNumbers();
		this.pageCache.clear();
		return quirks;
	}

	get quirksText(): string {
		return formatQuirks(this.quirks);
	}

	/** Whether this write's answer is mangled (the mangle quirks), consuming one of its shots. */
	mangleNext(): MangleKind | undefined {
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
		ctx: { query: URLSearchParams },
		all: readonly T[],
		serialize: (item: T) => Record<string, unknown> | string,
		c: Omit<Collection, 'query'>,
	): Reply {
		const toJson = (item: T) => {
			const value = serialize(item);
			return typeof value === 'string' ? value : JSON.stringify(value);
		};
		const totalShift = this.quirks.totalDrift ? (c.page ?? 1) - 1 : 0;
		const listed = listedNow(this, all, c);
		return {
			body: renderPage(this.options.envelope, listed, toJson, {
				...c,
				query: ctx.query,
				totalShift,
			}),
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
}
