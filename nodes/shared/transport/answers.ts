import type { IDataObject } from 'n8n-workflow';

import type { ApiFailure } from './errors';

// What apiRequest notes about an answer beside the body it returns: how a success was answered,
// and for a write left without a readable answer, what is known of it.

/** How the service answered a request that succeeded: its status, and whether it sent no body. */
export interface Success {
	status?: number;
	empty: boolean;
}

const successes = new WeakMap<object, Success>();

export function answered(body: object, success: Success): object {
	successes.set(body, success);
	return body;
}

/**
 * How the service answered, for a body apiRequest returned: a write checks whether a 2xx named
 * what it changed, or came with no body at all.
 */
export function successOf(body: unknown): Success | undefined {
	return body && typeof body === 'object' ? successes.get(body) : undefined;
}

const uncertainWrites = new WeakMap<object, ApiFailure>();

export function uncertainIf<E extends object>(unknown: boolean, error: E, failure: ApiFailure): E {
	if (unknown) uncertainWrites.set(error, { ...failure });
	return error;
}

/**
 * The failure of a write whose outcome is unknown (`writeMayHaveApplied`: no readable answer, a
 * 5xx or a redirect), when `error` is one; undefined for a refused write, which was not applied.
 */
export function uncertainWrite(error: unknown): ApiFailure | undefined {
	return error && typeof error === 'object' ? uncertainWrites.get(error) : undefined;
}

/** What an unreadable answer still shows (ApiFailure.answer); the start of its text is enough. */
export function answerOf(headers: IDataObject | undefined, body: unknown): ApiFailure['answer'] {
	const header = (name: string) => {
		const value = headers?.[name];
		return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined;
	};
	return {
		contentType: header('content-type'),
		location: header('location') ?? header('content-location'),
		text: typeof body === 'string' ? body.slice(0, 4000) : undefined,
	};
}

export function describeBody(body: unknown): string {
	const text = typeof body === 'string' ? body.trim() : String(body ?? '');
	return text === '' ? 'an empty body' : `"${text.slice(0, 60)}${text.length > 60 ? '…' : ''}"`;
}
