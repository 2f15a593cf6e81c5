import type { IDataObject } from 'n8n-workflow';

export interface RetryPolicy {
	/** Retries after the first attempt, for 429 (any method) and 5xx or dropped connections (GET). */
	maxRetries: number;
	/** Upper bound on the time spent waiting between attempts, in milliseconds. */
	maxWaitMs: number;
	/** How long one attempt waits for an answer; n8n's default (5 minutes) when absent. */
	timeoutMs?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 5, maxWaitMs: 60_000 };

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;

/**
 * Reads the policy from a node's options collection (fields `maxRetries`, `maxRetryWait` and
 * `timeout`, in seconds).
 */
export function retryPolicyFrom(options: IDataObject): RetryPolicy {
	const retries = Number(options.maxRetries ?? DEFAULT_RETRY.maxRetries);
	const waitSeconds = Number(options.maxRetryWait ?? DEFAULT_RETRY.maxWaitMs / 1000);
	const timeoutSeconds = Number(options.timeout);
	return {
		maxRetries:
			Number.isFinite(retries) && retries >= 0 ? Math.floor(retries) : DEFAULT_RETRY.maxRetries,
		maxWaitMs:
			Number.isFinite(waitSeconds) && waitSeconds >= 0
				? waitSeconds * 1000
				: DEFAULT_RETRY.maxWaitMs,
		...(timeoutSeconds > 0 && Number.isFinite(timeoutSeconds)
			? { timeoutMs: Math.round(timeoutSeconds * 1000) }
			: {}),
	};
}

/**
 * The least a client waits before asking again, whatever an answer says: a `Retry-After: 0`, or an
 * HTTP date already past (a service clock behind this one), must not turn into a tight loop.
 */
export const RETRY_FLOOR_MS = 250;

/**
 * An answer's own time (its `Date` header), to read an HTTP-date `Retry-After` on the clock that
 * wrote it; undefined without one.
 */
export function answerTime(headers: IDataObject | undefined): number | undefined {
	const value = headers?.date;
	const date = typeof value === 'string' ? Date.parse(value) : NaN;
	return Number.isNaN(date) ? undefined : date;
}

/**
 * `Retry-After` as milliseconds from `now` (pass the answer's own time, answerTime, when it has
 * one): delta-seconds or an HTTP date; undefined when absent or unreadable. Callers apply
 * RETRY_FLOOR_MS.
 */
export function retryAfterMs(value: unknown, now = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const trimmed = String(text).trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	// An HTTP date has whole seconds: round up so the wait never ends early.
	return Math.max(0, Math.ceil((date - now) / 1000) * 1000);
}

/** Exponential backoff with equal jitter: half fixed, half random, so clients spread out. */
export function backoffMs(attempt: number, random = Math.random): number {
	const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
