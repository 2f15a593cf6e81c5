import type { RequestSettings } from '../../../shared/transport';
import type { ApiFailure } from '../../../shared/transport/errors';
import { plainId } from './ids';

// What the failure of a write still tells: why its outcome is not known, whether the service is
// done with it, and whether it accepted it or named the order it made.

/** What a lost answer still tells: whether the service accepted the write, what it named. */
export interface Answer {
	/** The service answered 2xx as JSON (or with no body): it acted, even if the body is lost. */
	accepted: boolean;
	/** The order the answer names (a body cut short, a Location): this request's, for sure. */
	orderId?: string;
	/** The service gave a whole answer, so it is done with the write: a late apply is ruled out. */
	final: boolean;
}

const DROPPED = /^(?:ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET|ERR_STREAM_PREMATURE_CLOSE)$/;

/** Why the outcome is not known, in words, from what the failure holds. */
export function causeOf(failure: ApiFailure, settings: RequestSettings): string {
	const { status, code } = failure;
	if (failure.redirected !== undefined || (status !== undefined && status >= 300 && status < 400)) {
		return (
			`the service answered with a redirect (${status ?? '3xx'} to ` +
			`${failure.redirected ?? 'another address'}) instead of the result`
		);
	}
	if (status !== undefined && status >= 500)
		return `the service answered ${status} (a server error) instead of the result`;
	if (status !== undefined)
		return `the service answered ${status}, but the answer could not be read`;
	if (failure.timedOut)
		return `no answer came within the Timeout (${(settings.retry?.timeoutMs ?? 300_000) / 1000} s)`;
	if (code !== undefined && DROPPED.test(code))
		return 'the connection dropped before the answer arrived';
	if (code?.startsWith('HPE_')) return `what came back was not an HTTP answer (${code})`;
	if (code?.startsWith('Z_')) return `the answer could not be decoded (${code})`;
	return `no readable answer came (${code ?? 'the connection failed'})`;
}

/**
 * Whether the service itself gave a whole answer, so it is done with the write and a read-back
 * is final. Not so with no answer (a timeout, a reset, bytes that are not HTTP), a gateway's
 * 502/504/52x, or a server error that is not the service's JSON (a proxy's page): the write may
 * still be on its way and apply after the read.
 */
export function isFinal(failure: ApiFailure, body: unknown): boolean {
	const { status } = failure;
	if (status === undefined || status === 502 || status === 504 || status >= 520) return false;
	return status < 500 || (body !== null && typeof body === 'object');
}

/**
 * The `id` (or `@id`) at the top level of a JSON text, read even when the text is cut short: a
 * body that names the order it created ties that order to this request.
 */
export function topLevelId(text: string | undefined): string | undefined {
	// An object from its first byte: anything else (an HTML page) is no JSON answer.
	if (!text || !/^\s*\{/.test(text)) return undefined;
	let depth = 0;
	let key: string | undefined;
	for (let at = 0; at < text.length; at++) {
		const char = text[at];
		if (char === '"') {
			const end = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(at));
			if (!end) return undefined;
			const value = end[0].slice(1, -1);
			at += end[0].length - 1;
			const after = text.slice(at + 1).trimStart();
			if (depth === 1 && after.startsWith(':')) key = value;
			else if (depth === 1 && key !== undefined && (key === 'id' || key === '@id'))
				return plainId(value, 'orders');
			continue;
		}
		if (char === '{' || char === '[') depth++;
		else if (char === '}' || char === ']') depth--;
		else if (depth === 1 && (key === 'id' || key === '@id') && /\d/.test(char)) {
			// A number cut short is no ID: only one the text goes on past.
			const whole = /^(\d+)\s*[,}]/.exec(text.slice(at));
			return whole ? plainId(Number(whole[1]), 'orders') : undefined;
		} else if (char === ',') key = undefined;
	}
	return undefined;
}

/** What a failed attempt still says about the write (see Answer). */
export function answerOf(failure: ApiFailure, final: boolean): Answer {
	const { status, answer } = failure;
	const success = status !== undefined && status >= 200 && status < 300;
	const type = answer?.contentType ?? '';
	const orderId = success
		? (topLevelId(answer?.text) ?? plainId(answer?.location, 'orders'))
		: undefined;
	return {
		accepted: success && (/json/i.test(type) || (answer?.text ?? '') === ''),
		orderId,
		final,
	};
}
