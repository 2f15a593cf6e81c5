import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { neverSent } from './outcome';

/** What went wrong with one API call, free of the request (and so of the key and token). */
export interface ApiFailure {
	method: string;
	path: string;
	status?: number;
	body?: unknown;
	/** Network error code such as ECONNRESET, when no response came. */
	code?: string;
	/** No answer came within the request's timeout. */
	timedOut?: boolean;
	attempts: number;
	waitedMs: number;
	/** A message that replaces the one derived from the status. */
	reason?: string;
	/**
	 * What happened, when neither a status nor a network code says it (the description's first part).
	 */
	detail?: string;
	/** Where a 3xx answer pointed (origin and path), when one came. */
	redirected?: string;
	/** Why retrying stopped early, when it did. */
	gaveUp?: string;
	/** The wait a refusal's Retry-After asked for, for a caller that may try again (a 422). */
	retryAfterMs?: number;
	/**
	 * What an answer that could not be read still showed (a write's read-back looks in it for the
	 * order it names): its Content-Type, its Location, and as much of its body as arrived, as text.
	 */
	answer?: { contentType?: string; location?: string; text?: string };
	itemIndex?: number;
}

/**
 * Names whose values are credentials, wherever they sit in an error body (headers or fields echoed
 * back).
 */
const SECRET_NAME = new RegExp(
	'^(?:(?:proxy-)?authorization|(?:set-)?cookie|x-api-key|api[-_]?key|' +
		'(?:access|refresh|id|bearer)?[-_]?token|(?:client[-_]?)?secret|password)$',
	'i',
);

/**
 * Credentials in text: Bearer/Basic values, JWTs (the API's tokens are JWTs), `apiKey=…` or
 * `"token": "…"` pairs.
 */
const SECRET_TEXT: Array<[RegExp, string]> = [
	[/\b(Bearer|Basic)\s+[\w\-.~+/]+=*/gi, '$1 [redacted]'],
	[/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, '[redacted]'],
	[
		new RegExp(
			'((?:api[-_]?key|token|secret|password|authorization)["\']?\\s*[:=]\\s*["\']?)' +
				'(?!\\[redacted\\]|Bearer |Basic )[^\\s"\'&,;}]+',
			'gi',
		),
		'$1[redacted]',
	],
];

function redactText(text: string, secrets: string[]): string {
	let safe = text;
	for (const secret of secrets)
		if (secret.length >= 8) safe = safe.split(secret).join('[redacted]');
	for (const [pattern, replacement] of SECRET_TEXT) safe = safe.replace(pattern, replacement);
	return safe;
}

/**
 * The body without credentials a service or proxy echoed back (the request's Authorization
 * header, a `/token` body holding the API key), so the error's message, description and
 * `context.body` can be shown, logged and stored. `secrets`: values to remove wherever they are.
 */
export function redact(body: unknown, secrets: string[] = [], depth = 0): unknown {
	if (typeof body === 'string') return redactText(body, secrets);
	if (!body || typeof body !== 'object' || depth > 20) return body;
	if (Array.isArray(body)) return body.map((value) => redact(value, secrets, depth + 1));
	const safe: JsonObject = {};
	for (const [name, value] of Object.entries(body as JsonObject)) {
		// A name can be the secret itself (a gateway echo keyed by the key or the token).
		const cleanName = redactText(name, secrets);
		let key = cleanName;
		for (let n = 2; key in safe; n++) key = `${cleanName} ${n}`;
		safe[key] =
			SECRET_NAME.test(name) && value !== null && typeof value !== 'object'
				? '[redacted]'
				: (redact(value, secrets, depth + 1) as JsonObject);
	}
	return safe;
}

function field(body: unknown, name: string): unknown {
	return body && typeof body === 'object' && !Array.isArray(body)
		? (body as JsonObject)[name]
		: undefined;
}

function bodyMessage(body: unknown): string | undefined {
	const violations = field(body, 'violations');
	if (Array.isArray(violations) && violations.length > 0) {
		return violations
			.map((v: JsonObject) => [v.propertyPath, v.message].filter(Boolean).join(': '))
			.join('; ');
	}
	for (const name of ['message', 'detail', 'hydra:description', 'title', 'error']) {
		const value = field(body, name);
		if (typeof value === 'string' && value !== '') return value;
	}
	return typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 300) : undefined;
}

function retries(f: ApiFailure): string {
	const tries = f.attempts === 1 ? '1 try' : `${f.attempts} tries`;
	return (
		`${tries}, ${Math.round(f.waitedMs / 100) / 10} ` +
		`s of waiting${f.gaveUp ? `; ${f.gaveUp}` : ''}`
	);
}

/**
 * What a path is about, in a partner's words ("order 700006", "ticket 9 of order 7", "event 12"),
 * for messages that lead with what happened; undefined for other paths.
 */
function subjectOf(path: string): string | undefined {
	const ticket = /^\/orders\/(\d+)\/tickets\/(\d+)/.exec(path);
	if (ticket) return `ticket ${ticket[2]} of order ${ticket[1]}`;
	const order = /^\/orders\/(\d+)/.exec(path);
	if (order) return `order ${order[1]}`;
	if (path === '/orders') return 'the new order';
	const sector = /^\/event-points\/(\d+)\/sectors\/(\d+)/.exec(path);
	if (sector) return `sector ${sector[2]} of event ${sector[1]}`;
	const event = /^\/event-points\/(\d+)/.exec(path);
	return event ? `event ${event[1]}` : undefined;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A human message per status (docs/architecture.md, "Errors, status by status"); the service's
 * own words go in the description.
 */
function messageFor(f: ApiFailure): string {
	if (f.reason) return f.reason;
	const said = bodyMessage(f.body);
	switch (f.status) {
		case undefined:
			return noAnswer(f);
		case 400:
			return `The service rejected the request${said ? `: ${said}` : ''}`;
		case 401:
			return (
				'The service refused the token even after requesting a new one: check the API ' +
				'key and that it belongs to this environment (staging and production keys differ)'
			);
		case 403:
			if (/\/barcodes$/.test(f.path)) {
				return (
					'The barcode export is only for events your company organises. For events ' +
					'you sell as a partner, take the barcodes from the paid order (Order > Get).'
				);
			}
			return `Access denied${said ? `: ${said}` : ''}`;
		case 404:
			return notFound(f.path, said);
		case 409:
			return `Conflict${said ? `: ${said}` : ''}`;
		case 422:
			return limitExceeded(f.body, said);
		case 429:
			return `The service kept answering 429 Too Many Requests: gave up after ${retries(f)}`;
		default:
			if (f.status >= 500) return `The service failed with status ${f.status} after ${retries(f)}`;
			return `The service answered status ${f.status}${said ? `: ${said}` : ''}`;
	}
}

/** No status came back: nothing sent, a write that may have been applied, or a read given up. */
function noAnswer(f: ApiFailure): string {
	if (neverSent(f.code))
		return (
			`Could not reach the Public Events service (${f.code}): ` +
			`nothing was sent. Check the Base URL and the network`
		);
	if (f.method !== 'GET') {
		const about = subjectOf(f.path) ?? 'the request';
		const why = f.timedOut
			? `No answer came in time about ${about}`
			: `The connection dropped before the service answered about ${about}`;
		return (
			`${why}. It may have been applied: ` +
			`check (for example with Order > Get) before sending it again.`
		);
	}
	return `Could not reach the Public Events service after ${retries(f)}`;
}

function notFound(path: string, said: string | undefined): string {
	// A missing event is an access setting (docs/architecture.md, "Integration order and
	// visibility"); an order is visible only to the company whose key made it. The path is
	// in the description.
	const subject = subjectOf(path);
	if (/^\/event-points\//.test(path)) {
		return (
			`${capital(subject!)} was not found. An event that is missing is usually not ` +
			`linked to your company or its sale has ended (see Get Many ` +
			`Archived): an access setting on the service side, not a fault.`
		);
	}
	if (/^\/orders\/\d+\/tickets\//.test(path)) {
		return (
			`${capital(subject!)} was not found${said ? ` (the service said: ${said})` : ''}. ` +
			"Check the ticket ID: Order > Get lists the order's tickets."
		);
	}
	if (/^\/orders\/\d+/.test(path)) {
		return (
			`${capital(subject!)} was not found for this credential's API key. An order is ` +
			'seen only with the key of the company that made it: use the same Public Events ' +
			'credential as the node that held the order (a partner key and an organiser key ' +
			'see different orders).'
		);
	}
	return `Not found: ${path}${said ? `: ${said}` : ''}`;
}

function limitExceeded(body: unknown, said: string | undefined): string {
	const limit = field(body, 'limit');
	const current = field(body, 'current');
	const figures =
		limit !== undefined
			? ` (limit ${String(limit)}` +
				`${current !== undefined ? `, current ${String(current)}` : ''})`
			: '';
	return `A limit of the service was exceeded${figures}${said ? `: ${said}` : ''}`;
}

// Live holds count against the account's reserved-tickets limit (docs/architecture.md,
// "Holds and the reserved-tickets limit").
const HOLDS_HINT =
	"Held tickets count against the account's limit until their order is paid or the hold " +
	'ends: release holds you no longer need with Order > Change Status > Release Hold';

/**
 * The body travels in the error (`context.body`) for continueOnFail items and debugging, with
 * credentials it echoed removed (`secrets`: the credential's values, when the caller has them).
 */
export function apiError(node: INode, unsafe: ApiFailure, secrets: string[] = []): NodeApiError {
	const failure = {
		...unsafe,
		body: redact(unsafe.body, secrets),
		reason: unsafe.reason && redactText(unsafe.reason, secrets),
	};
	const message = messageFor(failure);
	const said = bodyMessage(failure.body);
	const description = [
		failure.detail ?? `${failure.method} ${failure.path} ${outcomeOf(failure)}`,
		said ? `Service said: ${said}` : undefined,
		failure.status === 422 && failure.method !== 'GET' && failure.path.startsWith('/orders')
			? HOLDS_HINT
			: undefined,
	]
		.filter((part): part is string => Boolean(part))
		.map((part) => part.replace(/\.$/, ''))
		.join('. ');
	const error = new NodeApiError(
		node,
		{
			httpCode: failure.status ? String(failure.status) : null,
			body: failure.body ?? null,
		} as JsonObject,
		{
			message,
			description,
			httpCode: failure.status ? String(failure.status) : undefined,
			itemIndex: failure.itemIndex,
		},
	);
	// NodeApiError swaps messages that mention a network code for a generic one; ours says more.
	error.message = message;
	error.context.body = failure.body as JsonObject;
	if (failure.retryAfterMs !== undefined) error.context.retryAfterMs = failure.retryAfterMs;
	return error;
}

/** "answered 503", or "failed (ECONNRESET)" when no status came back. */
function outcomeOf({ status, code }: ApiFailure): string {
	if (status) return `answered ${status}`;
	return code ? `failed (${code})` : 'failed';
}
