// What the credential and the transport both need: the API's address, which addresses may carry
// the key, what a token is bound to, the language header, and what a failed token request tells
// the user.
import { createHash } from 'crypto';

/** `{base}/api/v2` whatever the user typed: with or without the version, trailing slashes. */
export function apiUrl(baseUrl: unknown): string {
	const base = String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	return /\/api\/v2$/.test(base) ? base : `${base}/api/v2`;
}

/**
 * An address as a message may show it: without a user name or password it holds, and not at all
 * when it is not a web address (an API key pasted into Base URL must not be printed back).
 */
export function shownUrl(url: string): string {
	try {
		const parsed = new URL(url);
		if (!/^https?:$/.test(parsed.protocol)) return 'the Base URL';
		parsed.username = '';
		parsed.password = '';
		return parsed.toString();
	} catch {
		return 'the Base URL';
	}
}

/** The origin (scheme, host, port) of an address; the address itself when it is not a URL. */
export function originOf(url: string): string {
	try {
		return new URL(url).origin;
	} catch {
		return url;
	}
}

/**
 * Where a request goes, as an origin: its `url` (or `uri`, which n8n's HTTP Request node and other
 * legacy callers set; n8n reads `url` first), resolved against its `baseURL`; undefined when that
 * makes no absolute address.
 */
export function requestOrigin(request: {
	url?: unknown;
	uri?: unknown;
	baseURL?: unknown;
}): string | undefined {
	const target = request.url ?? request.uri;
	const base = request.baseURL;
	try {
		return new URL(
			target === undefined || target === null ? '' : String(target),
			base === undefined || base === null || base === '' ? undefined : String(base),
		).origin;
	} catch {
		return undefined;
	}
}

/** The credential fields a token is issued for (stored with it) and the key that pins it. */
interface Issued {
	baseUrl?: unknown;
	apiKey?: unknown;
	environment?: unknown;
	language?: unknown;
	token?: unknown;
	issuedBy?: unknown;
	issuedFor?: unknown;
}

const digest = (parts: unknown[]) =>
	createHash('sha256').update(JSON.stringify(parts)).digest('base64url');

/**
 * Who the credential speaks as: the API's address, the key, the environment and the language, as
 * one digest (never the key itself). Any edit of these fields gives another identity.
 */
export function identityOf(credentials: Issued): string {
	return digest([
		apiUrl(credentials.baseUrl),
		String(credentials.apiKey ?? ''),
		credentials.environment === 'staging' ? 'staging' : 'production',
		String(credentials.language ?? '').trim(),
	]);
}

/**
 * What preAuthentication stores beside a token (`issuedFor`): the token tied to the identity it was
 * issued for, so a token kept through an edit of the credential no longer matches.
 */
export const issuedFor = (credentials: Issued, token: string): string =>
	digest([token, identityOf(credentials)]);

/**
 * Whether the credential's token may be sent: issued by the Base URL's origin (`issuedBy`) for the
 * key, environment and language the credential holds now (`issuedFor`). n8n keeps the hidden token
 * when a user edits a credential: a token of the previous key (or address, environment, language)
 * is then never sent, and a /token request with the fields as saved comes first.
 */
export function tokenBound(credentials: Issued): boolean {
	const { token } = credentials;
	return (
		typeof token === 'string' &&
		token !== '' &&
		credentials.issuedBy === originOf(apiUrl(credentials.baseUrl)) &&
		credentials.issuedFor === issuedFor(credentials, token)
	);
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Why the key must not go to this address, if it must not: in production the key and the token
 * travel only over https. Staging, and a service on this machine, may use http.
 */
export function insecureBaseUrl(url: string, environment: unknown): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return undefined; // The request itself says what is wrong with it.
	}
	if (parsed.protocol !== 'http:' || environment === 'staging' || LOOPBACK.test(parsed.hostname))
		return undefined;
	return (
		'Production needs an https:// address: over http the API ' +
		"key and the token travel in clear. Use the service's https " +
		'address (or set Environment to Staging for a test service).'
	);
}

/**
 * A language code as X-API-Language takes it (en, de, pt-BR); it becomes a header, so nothing else
 * passes.
 */
export const LANGUAGE_CODE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,4}$/;

/** Why POST /token failed, without the request (which carries the key). */
export function tokenFailure(error: unknown, address: string, environment: unknown): string {
	const url = shownUrl(address);
	const e = error as {
		httpCode?: string;
		status?: number;
		response?: { status?: number; data?: unknown; headers?: Record<string, unknown> };
		body?: unknown;
		headers?: Record<string, unknown>;
		code?: string;
	};
	const status = Number(e?.response?.status ?? e?.status ?? e?.httpCode) || undefined;
	// A web page is no answer of the API, whatever its status.
	const body = e?.response?.data ?? e?.body;
	const type = String(e?.response?.headers?.['content-type'] ?? e?.headers?.['content-type'] ?? '');
	const page = /html/i.test(type) || (typeof body === 'string' && /^\s*</.test(body));
	const env = environment === 'staging' ? 'staging' : 'production';
	if (status !== undefined && status >= 300 && status < 400) {
		return (
			`POST ${url} answered a redirect (${status}) instead of a token: the API key is not ` +
			`sent on to another address. Check the Base URL (the service's current https address).`
		);
	}
	if (status === 401 || status === 403) {
		return (
			`The API key was refused by POST ${url} (${status}). Staging ` +
			`and production keys differ: check that this key was issued ` +
			`for ${env} and that the Base URL is the ${env} address.`
		);
	}
	const notTheApi = status === 404 || status === 405 || status === 410;
	// A 4xx web page: another site's refusal (a 5xx page may be a proxy while the API is down).
	const otherSite = status !== undefined && page && status >= 400 && status < 500;
	if (notTheApi || otherSite) {
		return (
			`POST ${url} answered ${status}${notTheApi ? '' : ' with a web page'}: this address does ` +
			`not answer as the Public Events API ` +
			`(it has no token endpoint there). Check the Base URL: the service's address for ${env}, ` +
			`as the service gave it to your company ("/api/v2" is added unless it ends with it).`
		);
	}
	if (status && page)
		return (
			`POST ${url} failed with status ${status} while requesting a token, answering a web page: ` +
			`the service may be down, or the Base URL may not be the Public Events API's`
		);
	if (status) return `POST ${url} failed with status ${status} while requesting a token`;
	return (
		`Could not reach ${url} to request a token (` +
		`${e?.code ?? 'network error'}): check the Base URL`
	);
}
