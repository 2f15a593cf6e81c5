import {
	sleep,
	type IDataObject,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
} from 'n8n-workflow';

import { answered, answerOf, describeBody, uncertainIf } from './answers';
import { apiError, type ApiFailure } from './errors';
import { isJson, MAX_REDIRECTS, received, send } from './exchange';
import { isRedirect, redirectTarget, writeMayHaveApplied, type Received } from './outcome';
import {
	answerTime,
	backoffMs,
	DEFAULT_RETRY,
	RETRY_FLOOR_MS,
	retryAfterMs,
	type RetryPolicy,
} from './retry';
import { noteServiceTime, targetOf, type ApiContext, type Target } from './target';

export interface RequestSettings {
	retry?: RetryPolicy;
	/** Overrides the credential's default language (X-API-Language). */
	language?: string;
	itemIndex?: number;
	/**
	 * Told when the service answers 429 to an attempt sent at `sentAt` (epoch ms): the pager narrows
	 * its window.
	 */
	onThrottle?: (sentAt: number) => void;
}

/** One apiRequest: the request as it stands (a redirect moves it) and its failure so far. */
interface Call {
	context: ApiContext;
	target: Target;
	method: IHttpRequestMethods;
	path: string;
	options: IHttpRequestOptions;
	policy: RetryPolicy;
	settings: RequestSettings;
	failure: ApiFailure;
	hops: number;
}

/** An attempt answered with a 2xx. */
interface Answer {
	body: unknown;
	headers?: IDataObject;
	status?: number;
}

/**
 * The one way the nodes call the API. Token, refresh on 401 and proxy settings are n8n's
 * (`httpRequestWithAuthentication` with the credential's preAuthentication); retrying is ours:
 * 429 for any method (the service did not act on it), 5xx and dropped connections for GET only,
 * so an order is never created or paid twice. A write left without a readable answer is marked
 * (`uncertainWrite`) for the caller to check what happened.
 */
export async function apiRequest<T = unknown>(
	this: ApiContext,
	method: IHttpRequestMethods,
	path: string,
	request: { qs?: IDataObject; body?: IDataObject } = {},
	settings: RequestSettings = {},
): Promise<T> {
	const target = await targetOf(this);
	const policy = settings.retry ?? DEFAULT_RETRY;
	const call: Call = {
		context: this,
		target,
		method,
		path,
		options: requestOptions(target, method, path, request, settings.language, policy),
		policy,
		settings,
		failure: { method, path, attempts: 0, waitedMs: 0, itemIndex: settings.itemIndex },
		hops: 0,
	};
	for (;;) {
		// A Retry-After given to any request of this run holds every request of it.
		while (target.quietUntil > Date.now()) await sleep(target.quietUntil - Date.now());
		call.failure.attempts++;
		const sentAt = Date.now();
		const sent = await send.call(this, target, call.options);
		if (!('failed' in sent)) {
			noteServiceTime(target, sent.headers);
			return success(call, sent) as T;
		}
		const got = received(sent.failed);
		noteServiceTime(target, got.headers);
		if (got.status === undefined && got.code === undefined) {
			// Not an HTTP failure: the token request failed (its message says why) or the run was
			// cancelled.
			throw apiError(this.getNode(), { ...call.failure, reason: got.message }, target.secrets);
		}
		if (isRedirect(got.status)) follow(call, got as Received & { status: number });
		else await retryOrThrow(call, got, sentAt);
	}
}

function requestOptions(
	target: Target,
	method: IHttpRequestMethods,
	path: string,
	request: { qs?: IDataObject; body?: IDataObject },
	asked: string | undefined,
	policy: RetryPolicy,
): IHttpRequestOptions {
	const language = asked?.trim() || target.language;
	const options: IHttpRequestOptions = {
		method,
		url: `${target.apiUrl}${path}`,
		// Redirects are the transport's to judge (apiRequest); the full response carries the service's
		// Date.
		disableFollowRedirect: true,
		returnFullResponse: true,
		qs: request.qs,
		arrayFormat: 'repeat',
		headers: { Accept: 'application/json', ...(language ? { 'X-API-Language': language } : {}) },
		json: true,
	};
	if (policy.timeoutMs !== undefined) options.timeout = policy.timeoutMs;
	if (request.body !== undefined) options.body = request.body;
	return options;
}

/** The body of a 2xx, which a read must have in JSON (a write may answer 204 No Content). */
function success(call: Call, { body, headers, status }: Answer): object {
	const { method, path } = call;
	if (isJson(body)) return answered(body as object, { status, empty: false });
	if (method !== 'GET' && (body === undefined || body === ''))
		return answered({}, { status, empty: true });
	const unreadable = {
		...call.failure,
		status: status || 200,
		body,
		answer: answerOf(headers, body),
		reason:
			`The service answered ${method} ${path} with ${describeBody(body)}` +
			` instead of JSON: is the Base URL the API's address?`,
	};
	throw uncertainIf(
		method !== 'GET',
		apiError(call.context.getNode(), unreadable, call.target.secrets),
		unreadable,
	);
}

const timedOut = (got: Received) =>
	got.code !== undefined && /timeout|timed out/i.test(got.message);

/** The error for an attempt that failed, with what it received. */
function failed(call: Call, got: Received, extra: Partial<ApiFailure> = {}) {
	return apiError(
		call.context.getNode(),
		{
			...call.failure,
			status: got.status,
			body: got.body,
			code: got.code,
			timedOut: timedOut(got),
			retryAfterMs: retryAfterMs(
				got.headers?.['retry-after'],
				answerTime(got.headers) ?? Date.now(),
			),
			...extra,
		},
		call.target.secrets,
	);
}

/**
 * Followed here, not by n8n's helper: it would carry the token to any origin the service names.
 * A read goes on at the new address of the same origin; anything else throws.
 */
function follow(call: Call, got: Received & { status: number }): void {
	const { method, path, target } = call;
	const next = redirectTarget(String(call.options.url), got.headers?.location);
	const where = next ? `${next.origin}${next.pathname}` : 'no usable Location';
	const redirect = { redirected: where };
	if (method !== 'GET') {
		const reason =
			`The service answered ${method} ${path} with a redirect (` +
			`${got.status} to ${where}) instead of the result. A change is ` +
			`never sent on to another address; the service may have applied it`;
		throw uncertainIf(writeMayHaveApplied(got), failed(call, got, { ...redirect, reason }), {
			...call.failure,
			status: got.status,
			...redirect,
			answer: answerOf(got.headers, got.body),
		});
	}
	if (!next || next.origin !== target.origin) {
		throw failed(call, got, {
			...redirect,
			reason:
				`The service redirected GET ${path} (${got.status}) to ${where}, ` +
				`away from the Base URL's address ${target.origin}: not followed, so ` +
				`your token stays with the API. Check the Base URL in the credential.`,
		});
	}
	if (++call.hops > MAX_REDIRECTS)
		throw failed(call, got, {
			...redirect,
			reason: `GET ${path} was redirected more than ${MAX_REDIRECTS} times`,
		});
	// The Location carries its own query.
	call.options.url = next.href;
	delete call.options.qs;
}

/** Waits before the next attempt, or throws when the failure is final or the wait too long. */
async function retryOrThrow(call: Call, got: Received, sentAt: number): Promise<void> {
	const { method, failure, policy, target } = call;
	const retryable =
		got.status === 429 ||
		(method === 'GET' &&
			(got.status === undefined || got.status >= 500) &&
			got.code !== 'ERR_CANCELED');
	if (!retryable || failure.attempts > policy.maxRetries) {
		throw uncertainIf(method !== 'GET' && writeMayHaveApplied(got), failed(call, got), {
			...failure,
			status: got.status,
			code: got.code,
			timedOut: timedOut(got),
			answer: answerOf(got.headers, got.body),
		});
	}
	const asked = retryAfterMs(got.headers?.['retry-after'], answerTime(got.headers) ?? Date.now());
	const wait = Math.max(RETRY_FLOOR_MS, asked ?? backoffMs(failure.attempts - 1));
	if (failure.waitedMs + wait > policy.maxWaitMs) {
		throw failed(call, got, {
			gaveUp: `the next wait (${Math.ceil(wait / 1000)} s) would pass the Max Retry Wait`,
		});
	}
	if (got.status === 429) {
		call.settings.onThrottle?.(sentAt);
		target.quietUntil = Math.max(target.quietUntil, Date.now() + wait);
	}
	failure.waitedMs += wait;
	await sleep(wait);
}
