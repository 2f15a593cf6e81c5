import {
	sleep,
	type IDataObject,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
} from 'n8n-workflow';

import { apiError, type ApiFailure } from './errors';
import { readListPage, type ListPage } from './listEnvelope';
import { inOrder, MAX_PAGES_IN_FLIGHT } from './pages';
import { isRedirect, redirectTarget, writeMayHaveApplied } from './outcome';
import {
	answerTime,
	backoffMs,
	DEFAULT_RETRY,
	RETRY_FLOOR_MS,
	retryAfterMs,
	type RetryPolicy,
} from './retry';
import { answered, answerOf, describeBody, uncertainIf } from './answers';
import { isJson, MAX_REDIRECTS, received, send } from './exchange';
import { noteServiceTime, targetOf, type ApiContext } from './target';

export { CREDENTIAL_TYPE, serviceNow, type ApiContext } from './target';
export { MAX_PAGES_IN_FLIGHT } from './pages';
export { successOf, uncertainWrite, type Success } from './answers';

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

export const MAX_PAGE_SIZE = 100;
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
	const language = settings.language?.trim() || target.language;
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

	const failure: ApiFailure = {
		method,
		path,
		attempts: 0,
		waitedMs: 0,
		itemIndex: settings.itemIndex,
	};
	let hops = 0;
	for (;;) {
		// A Retry-After given to any request of this run holds every request of it.
		while (target.quietUntil > Date.now()) await sleep(target.quietUntil - Date.now());
		failure.attempts++;
		const sentAt = Date.now();
		const sent = await send.call(this, target, options);
		const got = 'failed' in sent ? received(sent.failed) : undefined;
		noteServiceTime(target, got ? got.headers : 'headers' in sent ? sent.headers : undefined);
		if (!got) {
			const body = 'body' in sent ? sent.body : undefined;
			const status = 'status' in sent ? sent.status : undefined;
			if (isJson(body)) return answered(body as object, { status, empty: false }) as T;
			// A write may answer 204 No Content; a read must answer JSON.
			if (method !== 'GET' && (body === undefined || body === ''))
				return answered({}, { status, empty: true }) as T;
			const unreadable = {
				...failure,
				status: ('status' in sent && sent.status) || 200,
				body,
				answer: answerOf('headers' in sent ? sent.headers : undefined, body),
				reason:
					`The service answered ${method} ${path} with ${describeBody(body)}` +
					` instead of JSON: is the Base URL the API's address?`,
			};
			throw uncertainIf(
				method !== 'GET',
				apiError(this.getNode(), unreadable, target.secrets),
				unreadable,
			);
		}
		if (got.status === undefined && got.code === undefined) {
			// Not an HTTP failure: the token request failed (its message says why) or the run was
			// cancelled.
			throw apiError(this.getNode(), { ...failure, reason: got.message }, target.secrets);
		}
		const timedOut = got.code !== undefined && /timeout|timed out/i.test(got.message);
		const failed = (extra: Partial<ApiFailure> = {}) =>
			apiError(
				this.getNode(),
				{
					...failure,
					status: got.status,
					body: got.body,
					code: got.code,
					timedOut,
					retryAfterMs: retryAfterMs(
						got.headers?.['retry-after'],
						answerTime(got.headers) ?? Date.now(),
					),
					...extra,
				},
				target.secrets,
			);
		const mayHaveApplied = method !== 'GET' && writeMayHaveApplied(got);
		if (isRedirect(got.status)) {
			// Followed here, not by n8n's helper: it would carry the token to any origin the service
			// names.
			const next = redirectTarget(String(options.url), got.headers?.location);
			const where = next ? `${next.origin}${next.pathname}` : 'no usable Location';
			const redirect = { redirected: where };
			if (method !== 'GET') {
				const reason =
					`The service answered ${method} ${path} with a redirect (` +
					`${got.status} to ${where}) instead of the result. A change is ` +
					`never sent on to another address; the service may have applied it`;
				throw uncertainIf(mayHaveApplied, failed({ ...redirect, reason }), {
					...failure,
					status: got.status,
					...redirect,
					answer: answerOf(got.headers, got.body),
				});
			}
			if (!next || next.origin !== target.origin) {
				throw failed({
					...redirect,
					reason:
						`The service redirected GET ${path} (${got.status}) to ${where}, ` +
						`away from the Base URL's address ${target.origin}: not followed, so ` +
						`your token stays with the API. Check the Base URL in the credential.`,
				});
			}
			if (++hops > MAX_REDIRECTS)
				throw failed({
					...redirect,
					reason: `GET ${path} was redirected more than ${MAX_REDIRECTS} times`,
				});
			// The Location carries its own query.
			options.url = next.href;
			delete options.qs;
			continue;
		}
		const retryable =
			got.status === 429 ||
			(method === 'GET' &&
				(got.status === undefined || got.status >= 500) &&
				got.code !== 'ERR_CANCELED');
		if (!retryable || failure.attempts > policy.maxRetries) {
			throw uncertainIf(mayHaveApplied, failed(), {
				...failure,
				status: got.status,
				code: got.code,
				timedOut,
				answer: answerOf(got.headers, got.body),
			});
		}
		const asked = retryAfterMs(got.headers?.['retry-after'], answerTime(got.headers) ?? Date.now());
		const wait = Math.max(RETRY_FLOOR_MS, asked ?? backoffMs(failure.attempts - 1));
		if (failure.waitedMs + wait > policy.maxWaitMs) {
			throw failed({
				gaveUp: `the next wait (${Math.ceil(wait / 1000)} s) would pass the Max Retry Wait`,
			});
		}
		if (got.status === 429) {
			settings.onThrottle?.(sentAt);
			target.quietUntil = Math.max(target.quietUntil, Date.now() + wait);
		}
		failure.waitedMs += wait;
		await sleep(wait);
	}
}

export interface PageSettings extends RequestSettings {
	/** Stop once this many items are collected; undefined = Return All. */
	limit?: number;
	/**
	 * Ceiling of the pages fetched at once (Max Pages in Flight); MAX_PAGES_IN_FLIGHT when absent.
	 */
	maxPagesInFlight?: number;
	/** Keeps only the items it accepts (filters the API lacks); Limit counts kept items. */
	keep?: (item: IDataObject) => boolean;
}

/**
 * Every item of a list, page by page (`page` from 1, `itemsPerPage` at most 100), for any
 * envelope, in order. Page 1 comes alone; then pages go out ahead in a window (pages.ts) up to
 * the last page a stated total or Limit allows, or, without a total, until a short page.
 */
export async function apiRequestAllItems(
	this: ApiContext,
	path: string,
	qs: IDataObject = {},
	settings: PageSettings = {},
): Promise<IDataObject[]> {
	const { limit, keep } = settings;
	// A client-side filter cannot know how many pages Limit needs: read full pages.
	const perPage = Math.min(MAX_PAGE_SIZE, keep ? MAX_PAGE_SIZE : (limit ?? MAX_PAGE_SIZE));
	const unreadable = (reason: string, body?: unknown) =>
		apiError(this.getNode(), {
			method: 'GET',
			path,
			status: 200,
			body,
			attempts: 1,
			waitedMs: 0,
			itemIndex: settings.itemIndex,
			reason,
		});
	const fetchPage = async (page: number, onThrottle?: (sentAt: number) => void) => {
		const body = await apiRequest.call(
			this,
			'GET',
			path,
			{ qs: { ...qs, page, itemsPerPage: perPage } },
			{ ...settings, onThrottle },
		);
		const list = readListPage(body);
		if (list) return list;
		throw unreadable(
			`The answer to GET ${path} is not a list this node can read (a ` +
				`JSON array, or an object with hydra:member, member, items or data)`,
			body,
		);
	};
	const kept = (items: IDataObject[]) => (keep ? items.filter(keep) : items);
	const wanted = limit ?? Infinity;

	let previous = await fetchPage(1);
	const collected = kept(previous.items);
	let read = previous.items.length;
	const finished = (list: ListPage) =>
		collected.length >= wanted || read >= (list.total ?? Infinity) || list.items.length < perPage;
	if (!finished(previous)) {
		// The last page that can hold an item needed: from the total and, without a filter, from Limit.
		const needed = Math.min(previous.total ?? Infinity, keep ? Infinity : wanted);
		await inOrder(
			fetchPage,
			2,
			Math.ceil(needed / perPage),
			settings.maxPagesInFlight ?? MAX_PAGES_IN_FLIGHT,
			(page, list) => {
				// A service that ignores `page` answers page 1 again and again: stop rather than repeat
				// items.
				if (
					list.items.length > 0 &&
					JSON.stringify(list.items[0]) === JSON.stringify(previous.items[0])
				) {
					throw unreadable(
						`Page ${page} of GET ${path} repeats page ${page - 1}` +
							`: the service seems to ignore the page parameter`,
					);
				}
				read += list.items.length;
				collected.push(...kept(list.items));
				previous = list;
				return !finished(list);
			},
		);
	}
	return limit === undefined ? collected : collected.slice(0, limit);
}
