import type { ApiFailure, RequestSettings } from '../../../shared/transport';
import { plainId } from './ids';

// What the failure of a write still tells: why its outcome is not known, whether the service is
// done with it, and whether it accepted it or named the order it made.

/** What the answer to a write tells when it does not show the change itself. */
export interface Answer {
	/**
	 * The service answered 2xx (as JSON, or with no body): it took the write. Such a write is never
	 * "not applied": it may show in the state only a moment later (a 202, a lagging replica).
	 */
	accepted: boolean;
	/**
	 * The answer, though it names no order, vouches that this request made one: a 201 Created whose
	 * body is empty or was lost. Then the one live order holding exactly the places asked is this
	 * request's. Nothing else vouches: a body the node could read that names no order
	 * (`200 {"success": false}`), nor a 202 or 204 with no body, since a service or its gateway may
	 * answer so to a request it does not carry out while another buyer holds those very places.
	 */
	vouches: boolean;
	/** The order the answer names (a body, even cut short, a Location): this request's. */
	orderId?: string;
	/**
	 * The service refused with a whole answer (a 4xx, its own 5xx), so it is done with the write: a
	 * late apply is ruled out.
	 */
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
			// Kept as text: a 64-bit ID would be rounded as a number.
			const whole = /^(\d+)\s*[,}]/.exec(text.slice(at));
			return whole ? plainId(whole[1], 'orders') : undefined;
		} else if (char === ',') key = undefined;
	}
	return undefined;
}

/**
 * What a failed attempt still says about the write (see Answer). A 303 See Other points at what a
 * POST made: its Location names the order as a 201's body would.
 */
export function answerOf(failure: ApiFailure, final: boolean): Answer {
	const { status, answer } = failure;
	const success = status !== undefined && status >= 200 && status < 300;
	const text = answer?.text ?? '';
	const orderId =
		success || status === 303
			? (topLevelId(text) ?? plainId(answer?.location, 'orders'))
			: undefined;
	// An HTML page with a 200 is a proxy's, not the service taking the write.
	const accepted = success && (/json/i.test(answer?.contentType ?? '') || text === '');
	return {
		accepted,
		vouches: accepted && status === 201,
		orderId,
		final: !accepted && final,
	};
}
