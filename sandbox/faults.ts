import { z } from 'zod';

/**
 * Faults injected into /api/v2 for tests: each rule matches requests by method, path and
 * query, lets `skip` matches through, then fires on the next `count` matches.
 */
export const faultRuleSchema = z.object({
	kind: z.enum(['status', 'drop', 'latency', 'html', 'malformed', 'empty']),
	method: z.string().toUpperCase().optional(),
	/** A route template (`/event-points/{id}/places`), a concrete path, or a prefix ending in `*`. */
	path: z.string().optional(),
	query: z.record(z.string()).optional(),
	skip: z.number().int().min(0).default(0),
	/** How many matching requests fire; 0 = every one until cleared. */
	count: z.number().int().min(0).default(1),
	status: z.number().int().min(100).max(599).optional(),
	/** `Retry-After` for status faults: seconds, or `{ date: seconds }` for the HTTP-date form. */
	retryAfter: z
		.union([z.number().int().min(0), z.object({ date: z.number().int().min(0) })])
		.optional(),
	body: z.unknown().optional(),
	/** drop: `before` the API applies the request, or `after` it was applied. */
	phase: z.enum(['before', 'after']).default('before'),
	/**
	 * latency: how long to wait (real ms, at most 30 s) before the request is handled; it is
	 * handled even if the caller has gone.
	 */
	delayMs: z.number().int().min(0).max(30_000).default(0),
});

export type FaultRule = z.infer<typeof faultRuleSchema> & {
	id: number;
	fired: number;
	seen: number;
};

export class Faults {
	private rules: FaultRule[] = [];
	private nextId = 1;

	add(input: unknown): FaultRule {
		const rule = { ...faultRuleSchema.parse(input), id: this.nextId++, fired: 0, seen: 0 };
		this.rules.push(rule);
		return rule;
	}

	list(): FaultRule[] {
		return this.rules;
	}

	clear(): void {
		this.rules = [];
	}

	/** The rule that fires on this request, if any; consumes one of its shots. */
	take(method: string, route: string, path: string, query: URLSearchParams): FaultRule | undefined {
		for (const rule of this.rules) {
			if (rule.method && rule.method !== method) continue;
			if (rule.path && !pathMatches(rule.path, route, path)) continue;
			if (rule.query && Object.entries(rule.query).some(([k, v]) => query.get(k) !== v)) continue;
			rule.seen += 1;
			if (rule.seen <= rule.skip) continue;
			if (rule.count !== 0 && rule.fired >= rule.count) continue;
			rule.fired += 1;
			return rule;
		}
		return undefined;
	}
}

function pathMatches(pattern: string, route: string, path: string): boolean {
	if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
	return pattern === route || pattern === path;
}
