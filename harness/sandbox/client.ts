import { request } from 'undici';

import {
	startSandbox,
	type OtherOriginRequest,
	type Quirks,
	type Sandbox,
	type SandboxInit,
} from '../../sandbox';
import type { ScenarioReport } from '../../sandbox/scenario';

export interface ApiResponse<T = any> {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	text: string;
}

export interface CallOptions {
	token?: string;
	lang?: string;
	query?: Record<string, string | number | Array<string | number>>;
	body?: unknown;
	/** Raw body text, sent as is (for malformed JSON). */
	raw?: string;
	headers?: Record<string, string>;
}

/**
 * A sandbox on a free loopback port and a thin real-HTTP client for its API and control surface.
 */
export class SandboxClient {
	/**
	 * The sandboxes this test file has running: the engine harness scans every run against their
	 * secrets.
	 */
	private static readonly running = new Set<SandboxClient>();
	private tokens = new Map<string, string>();

	private constructor(readonly sandbox: Sandbox) {}

	static async start(init: SandboxInit = {}): Promise<SandboxClient> {
		const client = new SandboxClient(await startSandbox(init));
		SandboxClient.running.add(client);
		return client;
	}

	static runningSandboxes(): SandboxClient[] {
		return [...SandboxClient.running];
	}

	get keys() {
		return this.sandbox.keys;
	}

	get app() {
		return this.sandbox.app;
	}

	stop() {
		SandboxClient.running.delete(this);
		return this.sandbox.stop();
	}

	async call<T = any>(
		method: string,
		path: string,
		options: CallOptions = {},
	): Promise<ApiResponse<T>> {
		const url = new URL(`${this.sandbox.baseUrl}${path}`);
		for (const [key, value] of Object.entries(options.query ?? {})) {
			for (const v of Array.isArray(value) ? value : [value])
				url.searchParams.append(key, String(v));
		}
		const headers: Record<string, string> = { ...options.headers };
		if (options.token) headers.authorization = `Bearer ${options.token}`;
		if (options.lang) headers['x-api-language'] = options.lang;
		let body: string | undefined = options.raw;
		if (options.body !== undefined) body = JSON.stringify(options.body);
		if (body !== undefined) headers['content-type'] = 'application/json';
		const res = await request(url, { method: method as 'GET', headers, body });
		const text = await res.body.text();
		let parsed: unknown = text;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			// not JSON: left as text
		}
		return { status: res.statusCode, headers: res.headers, body: parsed as T, text };
	}

	/** Call under /api/v2. */
	api<T = any>(method: string, path: string, options: CallOptions = {}) {
		return this.call<T>(method, `/api/v2${path}`, options);
	}

	/** Call the control surface under /__sandbox. */
	admin<T = any>(method: string, path: string, body?: unknown) {
		return this.call<T>(method, `/__sandbox${path}`, { body });
	}

	/** A token for a company key (`partner` by default), cached like a client would. */
	async token(company = 'partner'): Promise<string> {
		const cached = this.tokens.get(company);
		if (cached) return cached;
		const res = await this.api('POST', '/token', { body: { apiKey: this.keys[company] } });
		if (res.status !== 200) throw new Error(`token for ${company}: ${res.status} ${res.text}`);
		this.tokens.set(company, res.body.token);
		return res.body.token;
	}

	forgetTokens() {
		this.tokens.clear();
	}

	/** GET with the company's token. */
	async get<T = any>(path: string, options: Omit<CallOptions, 'token'> & { as?: string } = {}) {
		return this.api<T>('GET', path, { ...options, token: await this.token(options.as) });
	}

	async send<T = any>(method: 'POST' | 'PUT', path: string, body?: unknown, as?: string) {
		return this.api<T>(method, path, { body, token: await this.token(as) });
	}

	/** Every page of a list (plain-array envelope), 100 at a time. */
	async getAll<T = any>(
		path: string,
		options: Omit<CallOptions, 'token'> & { as?: string } = {},
	): Promise<T[]> {
		const all: T[] = [];
		for (let page = 1; ; page++) {
			const res = await this.get<T[]>(path, {
				...options,
				query: { ...options.query, page, itemsPerPage: 100 },
			});
			if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
			all.push(...res.body);
			if (res.body.length < 100) return all;
		}
	}

	async counters(): Promise<Record<string, number>> {
		return (await this.admin('GET', '/counters')).body.counters;
	}

	async advanceClock(ms: number) {
		return (await this.admin('POST', '/clock', { advanceMs: ms })).body;
	}

	/** Starts counting a new run of a rush (`POST /__sandbox/scenario`); its report, all zero. */
	async startScenario(name: string): Promise<ScenarioReport> {
		const res = await this.admin<ScenarioReport>('POST', '/scenario', { name });
		if (res.status !== 201) throw new Error(`scenario: ${res.status} ${res.text}`);
		return res.body;
	}

	/** What the holds of the current scenario became, and the refusals answered meanwhile. */
	async scenarioReport(): Promise<ScenarioReport> {
		const res = await this.admin<ScenarioReport>('GET', '/scenario');
		if (res.status !== 200) throw new Error(`scenario: ${res.status} ${res.text}`);
		return res.body;
	}

	/** Replaces every quirk (typed object or the CLI's string form); throws on a 400. */
	async setQuirks(
		quirks: Quirks | string,
	): Promise<{ quirks: Quirks; text: string; otherOrigin: string | null }> {
		const res = await this.admin('PUT', '/quirks', quirks);
		if (res.status !== 200) throw new Error(`quirks: ${res.status} ${res.text}`);
		return res.body;
	}

	/** Changes only the quirks named (`null` turns one off). */
	async patchQuirks(
		change: Partial<Record<keyof Quirks, unknown>> | string,
	): Promise<{ quirks: Quirks; text: string; otherOrigin: string | null }> {
		const res = await this.admin('PATCH', '/quirks', change);
		if (res.status !== 200) throw new Error(`quirks: ${res.status} ${res.text}`);
		return res.body;
	}

	/**
	 * What reached the other origin the redirect quirks point to (headers include Authorization as
	 * received).
	 */
	async otherOriginRequests(): Promise<OtherOriginRequest[]> {
		return (await this.admin('GET', '/other-origin')).body.requests;
	}

	async clearOtherOrigin(): Promise<void> {
		await this.admin('DELETE', '/other-origin');
	}

	/** First free place of an event with its first price category. */
	async freePlace(eventId: number, as?: string): Promise<{ id: string; priceCategory: string }> {
		const places = await this.getAll(`/event-points/${eventId}/places`, { as });
		const free = places.find((p: any) => p.availableCount > 0);
		if (!free) throw new Error(`no free place in event ${eventId}`);
		return { id: String(free.id), priceCategory: String(free.priceCategories[0].id) };
	}

	/** Free places of an event (ids) sharing the first price category of the first one. */
	async freePlaces(
		eventId: number,
		count: number,
		as?: string,
	): Promise<{ ids: string[]; priceCategory: string }> {
		const places = (await this.getAll(`/event-points/${eventId}/places`, { as })).filter(
			(p: any) => p.availableCount > 0,
		);
		const sector = places[0].sectorId;
		const same = places.filter((p: any) => p.sectorId === sector).slice(0, count);
		if (same.length < count)
			throw new Error(`only ${same.length} free places in one sector of event ${eventId}`);
		return {
			ids: same.map((p: any) => String(p.id)),
			priceCategory: String(same[0].priceCategories[0].id),
		};
	}
}
