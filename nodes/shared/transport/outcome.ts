import type { IDataObject } from 'n8n-workflow';

/** What came back for one attempt that did not end in a readable 2xx. */
export interface Received {
	status?: number;
	headers?: IDataObject;
	body?: unknown;
	code?: string;
	message: string;
}

/** Failures before any byte of the request reached the service: no name, no connection, no TLS. */
const NOT_SENT = new RegExp(
	`^(?:${[
		'ENOTFOUND',
		'EAI_AGAIN',
		'EAI_NONAME',
		'ECONNREFUSED',
		'EHOSTUNREACH',
		'ENETUNREACH',
		'ERR_INVALID_URL',
		'ERR_TLS_\\w+',
		'ERR_SSL_\\w+',
		'CERT_\\w+',
		'\\w+_CERT_\\w*',
		'DEPTH_ZERO_SELF_SIGNED_CERT',
		'SELF_SIGNED_CERT_IN_CHAIN',
		'UNABLE_TO_\\w+',
		'HOSTNAME_MISMATCH',
	].join('|')})$`,
);

/** Whether an attempt failed before any byte reached the service (a client error code). */
export const neverSent = (code: string | undefined) => code !== undefined && NOT_SENT.test(code);

/**
 * Whether a failed write may have been applied. Refused (not applied): a readable 4xx, a failure
 * before anything was sent, or no HTTP at all (the token request failed first). Uncertain: every
 * other way an attempt ends: 3xx (writes follow no redirect), 5xx, resets, timeouts, answers that
 * cannot be read or decoded (a gzip header over plain bytes, bytes that are not HTTP).
 * A cancelled run is neither: nothing is read back for it.
 */
export function writeMayHaveApplied(got: Received): boolean {
	if (got.code === 'ERR_CANCELED') return false;
	if (got.status !== undefined) return got.status < 400 || got.status >= 500;
	if (got.code === undefined) return false;
	return !neverSent(got.code);
}

/**
 * Where a 3xx points, resolved against the request's URL; undefined when it names nowhere usable.
 */
export function redirectTarget(from: string, location: unknown): URL | undefined {
	const text = Array.isArray(location) ? location[0] : location;
	if (typeof text !== 'string' || text.trim() === '') return undefined;
	try {
		const next = new URL(text.trim(), from);
		return next.protocol === 'https:' || next.protocol === 'http:' ? next : undefined;
	} catch {
		return undefined;
	}
}

export const isRedirect = (status: number | undefined): status is number =>
	status !== undefined && status >= 300 && status < 400;
