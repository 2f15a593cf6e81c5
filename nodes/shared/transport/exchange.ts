import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { identityOf, tokenBound } from './connection';
import { parseJson } from './json';
import type { Received } from './outcome';
import {
	adoptProcessToken,
	CREDENTIAL_TYPE,
	keepSecret,
	processTokenFor,
	refuseToken,
	tick,
	type ApiContext,
	type Target,
} from './target';

// One exchange with the service: the request as n8n's helpers send it, a refused token renewed
// once (shared across executions), and the client's error read back as a status and a body.

/** Same-origin redirects a read follows. */
export const MAX_REDIRECTS = 5;

type Sent = { body: unknown; headers?: IDataObject; status?: number } | { failed: unknown };

/** How a full response (returnFullResponse) arrives from n8n's helpers. */
interface FullResponse {
	body: unknown;
	headers?: IDataObject;
	statusCode?: number;
}

/**
 * A 2xx as the body; any other status (renewals ask n8n for every answer) as the failure the client
 * would throw.
 */
const answered = (response: unknown): Sent => {
	const full = response as FullResponse | undefined;
	if (!full || typeof full !== 'object' || !('body' in full)) return { body: response };
	const status = full.statusCode;
	if (status !== undefined && (status < 200 || status >= 300)) {
		return {
			failed: {
				message: `The service answered status ${status}`,
				response: { status, headers: full.headers, data: full.body },
			},
		};
	}
	return { body: full.body, headers: full.headers, status };
};

interface Readable {
	on(event: string, listener: (value?: unknown) => void): unknown;
}

const isReadable = (body: unknown): body is Readable =>
	typeof (body as Readable | undefined)?.on === 'function' &&
	typeof (body as { pipe?: unknown }).pipe === 'function';

/**
 * An answer, read from the stream it was asked as: whole, its JSON parsed with IDs kept exact
 * (json.ts; n8n's helper would round a 64-bit ID); a write's cut short (a proxy reset mid-body),
 * what arrived is kept as text with the status: n8n's helper drops the body of an answer cut
 * short, and with it the ID of the order a 201 created. A read cut short is a dropped connection,
 * retried as one.
 */
async function streamed(response: unknown, method: IHttpRequestOptions['method']): Promise<Sent> {
	const full = response as FullResponse | undefined;
	if (!full || typeof full !== 'object' || !isReadable(full.body)) return answered(response);
	const stream = full.body;
	const chunks: Buffer[] = [];
	const cut = await new Promise<unknown>((settle) => {
		stream.on('data', (chunk) => chunks.push(Buffer.from(chunk as Uint8Array)));
		stream.on('end', () => settle(undefined));
		stream.on('error', (error) => settle(error ?? new Error('the answer was cut short')));
		stream.on('aborted', () => settle(new Error('the answer was cut short')));
		stream.on('close', () => settle(new Error('the answer was cut short')));
	});
	const text = Buffer.concat(chunks).toString('utf8');
	if (cut) {
		const code = (cut as { code?: unknown }).code;
		if (method === undefined || method === 'GET')
			return {
				failed: {
					message: `The answer was cut short: ${(cut as Error).message ?? ''}`,
					code: typeof code === 'string' ? code : 'ECONNRESET',
				},
			};
		return {
			failed: {
				message: `The answer was cut short: ${(cut as Error).message ?? ''}`,
				...(typeof code === 'string' ? { code } : {}),
				response: { status: full.statusCode, headers: full.headers, data: text },
			},
		};
	}
	let body: unknown = text;
	try {
		body = text.trim() === '' ? '' : parseJson(text);
	} catch {
		// Not JSON: the text as it came, as n8n's helper gives it.
	}
	return answered({ ...full, body });
}

/** Every request is asked as a stream (see streamed), every status answered rather than thrown. */
const asked = (options: IHttpRequestOptions): IHttpRequestOptions => ({
	...options,
	encoding: 'stream',
	ignoreHttpStatusErrors: true,
});

const refusedToken = (sent: Sent) => 'failed' in sent && received(sent.failed).status === 401;

/**
 * One request with the credential's token. n8n's httpRequestWithAuthentication reads the
 * credential from its database and resolves the credential's header expression on every call:
 * profiled in real n8n (bench/n8n.bench.ts) at about 5 ms a request, more than the request
 * itself. So while the token is known the header is ours; without one, or once it is refused
 * (401), the request goes through n8n, whose preAuthentication fetches and stores a new token
 * (written into `target.credentials` too). One renewal at a time in a process, across its
 * executions (target.ts, ProcessToken): the others wait for it and take its token.
 */
export async function send(
	this: ApiContext,
	target: Target,
	options: IHttpRequestOptions,
): Promise<Sent> {
	if (target.renewal) await target.renewal;
	const { shared } = target;
	if (shared.renewing) await shared.renewing;
	adoptProcessToken(target);
	const { renewals } = target;
	const token = target.credentials.token;
	if (typeof token === 'string' && token !== '') {
		const cancel = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
		try {
			const headers = { ...options.headers, Authorization: `Bearer ${token}` };
			const sent = await streamed(
				await this.helpers.httpRequest({
					...asked(options),
					headers,
					...(cancel ? { abortSignal: cancel } : {}),
				}),
				options.method,
			);
			if (!refusedToken(sent)) return sent;
		} catch (error) {
			if (received(error).status !== 401) return { failed: error };
		}
		refuseToken(shared, token);
		// Renewed while this request was out, by this run or another execution of this process: once
		// more with the new token.
		if (target.renewals !== renewals || shared.renewing || processTokenFor(target)) {
			return await send.call(this, target, options);
		}
	}
	target.renewals++;
	const renewed = renew
		.call(this, target, token, options)
		.catch((failed: unknown) => ({ failed }) as Sent);
	target.renewal = renewed;
	if (!shared.renewing) {
		shared.renewing = renewed.then(() => {
			const fresh = target.credentials.token;
			if (typeof fresh === 'string' && fresh !== '' && !shared.refused.has(fresh)) {
				shared.token = fresh;
				shared.tokenAt = tick();
			}
			shared.renewing = undefined;
		});
	}
	return await renewed;
}

/**
 * A run that must renew its token after its credential was edited stops: renewing with the fields
 * it read would send the previous key (and n8n 1.x would store the previous fields back over the
 * edit), and the rest of the run was planned with them.
 */
const EDITED =
	'The Public Events API credential was edited while this run was going on (its Base URL, API ' +
	'key, environment or language changed): nothing more was sent with the settings the run ' +
	'started with. Run it again: the next run uses the credential as saved.';

/**
 * The request through n8n, whose preAuthentication fetches and stores a token when the credential
 * has none. Every answer comes back as it is (ignoreHttpStatusErrors): wrapped in n8n 1.x's
 * error, a status's headers and body are lost (the Location of a redirect among them). So the
 * repeat after a refused token, which n8n would make, is made here: once, with a fresh token.
 */
async function renew(
	this: ApiContext,
	target: Target,
	refused: unknown,
	options: IHttpRequestOptions,
): Promise<Sent> {
	// The credential as stored now: another execution may have stored a newer token, and a user may
	// have edited it since this run read it.
	const stored = await this.getCredentials(CREDENTIAL_TYPE);
	if (identityOf(stored) !== identityOf(target.credentials)) throw new Error(EDITED);
	if (!tokenBound(stored)) stored.token = '';
	// If the token refused is the one stored, n8n must fetch one.
	const fetching = typeof refused === 'string' && refused !== '' && stored.token === refused;
	if (fetching) stored.token = '';
	target.credentials = stored;
	const { id, name } = this.getNode().credentials?.[CREDENTIAL_TYPE] ?? { id: null, name: '' };
	const request = async () =>
		await streamed(
			await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, asked(options), {
				credentialsDecrypted: {
					id: id ?? '',
					name,
					type: CREDENTIAL_TYPE,
					data: target.credentials,
				},
				preAuthenticationRetryStatusCode: [],
			}),
			options.method,
		);
	try {
		const sent = await request();
		// One new token per refusal: a brand-new token refused again is not renewed twice.
		if (fetching || !('failed' in sent) || received(sent.failed).status !== 401) return sent;
		target.credentials.token = '';
		return await request();
	} finally {
		// n8n wrote the new token into target.credentials: from now on it is blanked out of errors too.
		keepSecret(target, target.credentials.token);
	}
}

/**
 * The HTTP client's error, bare (httpRequest) or wrapped by n8n in a NodeApiError with the response
 * on its cause.
 */
export function received(error: unknown): Received {
	let current = error as IDataObject | undefined;
	for (let depth = 0; current && depth < 4; depth++) {
		const response = current.response as IDataObject | undefined;
		if (response && typeof response.status === 'number') {
			return {
				status: response.status,
				headers: response.headers as IDataObject,
				body: response.data ?? response.body,
				message: String(current.message ?? ''),
			};
		}
		// Node's and axios's codes: ECONNRESET, ERR_CANCELED, HPE_INVALID_CONSTANT (not HTTP),
		// Z_DATA_ERROR (bad gzip), CERT_HAS_EXPIRED.
		if (typeof current.code === 'string' && /^[A-Z][A-Z0-9_]{2,}$/.test(current.code)) {
			return { code: current.code, message: String(current.message ?? '') };
		}
		current = current.cause as IDataObject | undefined;
	}
	// n8n 1.x's NodeApiError drops its cause: what is left of it is `httpCode`, a status or a client
	// code.
	const httpCode = String((error as IDataObject)?.httpCode ?? '');
	if (/^\d{3}$/.test(httpCode))
		return { status: Number(httpCode), message: String((error as Error).message ?? '') };
	if (/^[A-Z][A-Z0-9_]{2,}$/.test(httpCode))
		return { code: httpCode, message: String((error as Error).message ?? '') };
	const cause = (error as IDataObject)?.cause as IDataObject | undefined;
	return { message: String(cause?.message ?? (error as Error)?.message ?? error) };
}

export function isJson(body: unknown): boolean {
	return body !== null && typeof body === 'object';
}
