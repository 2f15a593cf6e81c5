import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type JsonObject,
} from 'n8n-workflow';

import { path } from '../../../shared/path';
import {
	apiRequest,
	apiRequestAllItems,
	uncertainWrite,
	type RequestSettings,
} from '../../../shared/transport';
import { apiError, type ApiFailure } from '../../../shared/transport/errors';

/** An AI tool's words on a write's errors (those below): what they say about calling it again. */
export const AFTER_A_WRITE =
	' If it fails: an error that begins "Refused:" or says "was NOT applied" changed nothing; one ' +
	'that begins "Uncertain:" may have changed the order, so get the order (or, for a hold, the ' +
	"event's orders) before calling this again.";

/**
 * A write ends in one of three outcomes, and the node says which, in words a person or an AI
 * agent can act on:
 * - applied: a readable 2xx, or the state read back shows the change (`writeCheck.outcome`);
 * - refused: a readable 4xx, or nothing was sent: "Refused: … was NOT applied";
 * - uncertain: anything else (no answer, 5xx, a redirect, an answer that cannot be read). The
 *   write is never sent again; the state is read back, following no redirect, and the node says
 *   what it found: applied; "was NOT applied" only when the service itself answered, so that the
 *   read is final; otherwise "Uncertain: … not applied when the node checked" (it may still
 *   apply), or "Uncertain: … may or may not have been applied" when the read failed too.
 */
export interface WriteCheck {
	/** The change in words, as the subject of a sentence: "Changing the status of order 700001". */
	change: string;
	/** Reads the state before the write, for checks that compare (Extend Hold's deadline). */
	before?: (this: IExecuteFunctions, settings: RequestSettings) => Promise<IDataObject>;
	/**
	 * The order if the write took effect, undefined if it did not; throws when the state cannot be
	 * read.
	 */
	find: (
		this: IExecuteFunctions,
		settings: RequestSettings,
		before?: IDataObject,
	) => Promise<IDataObject | undefined>;
	/**
	 * What the read showed when the write did not take effect: "the node read order 700001 back: it
	 * is unchanged".
	 */
	unchanged: string;
	/** A sentence: what to check by hand when the outcome is not known for sure. */
	checkFirst: string;
	/** A sentence added to a 409 Conflict: what to do next. */
	onConflict?: string;
}

export interface OrderWrite {
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	check: WriteCheck;
}

export const LATE =
	'The service may still be working on it and apply it late, so it was not sent again.';

const DROPPED = /^(?:ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET|ERR_STREAM_PREMATURE_CLOSE)$/;

/** Why the outcome is not known, in words, from what the failure holds. */
function causeOf(failure: ApiFailure, settings: RequestSettings): string {
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
function isFinal(failure: ApiFailure, body: unknown): boolean {
	const { status } = failure;
	if (status === undefined || status === 502 || status === 504 || status >= 520) return false;
	return status < 500 || (body !== null && typeof body === 'object');
}

const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The error with the outcome named first; the service's words and the next step kept. */
function named(error: NodeApiError, outcome: string, next?: string): NodeApiError {
	error.message = `${outcome} ${error.message.replace(/\.$/, '')}.${next ? ` ${next}` : ''}`;
	return error;
}

/** A refused write: a readable 4xx, or a failure before the request was sent. */
function refused(this: IExecuteFunctions, error: unknown, check: WriteCheck): unknown {
	// A cancelled run stops here: whatever was in flight is not judged.
	if (this.getExecutionCancelSignal?.()?.aborted) return error;
	const apiErr = new NodeApiError(this.getNode(), error as JsonObject);
	const { httpCode } = apiErr;
	if (httpCode && Number(httpCode) >= 400 && Number(httpCode) < 500) {
		return named(
			apiErr,
			`Refused: ${lower(check.change)} was NOT applied.`,
			httpCode === '409' ? check.onConflict : undefined,
		);
	}
	return named(
		apiErr,
		`Refused: ${lower(check.change)} was NOT applied: the request never reached the service.`,
	);
}

/**
 * Sends a write once; when its outcome is not known, reads the state back and says what it found.
 * Applied gives the order read, with `writeCheck: { outcome: 'applied', cause }`.
 */
export async function checkedWrite(
	this: IExecuteFunctions,
	write: OrderWrite,
	settings: RequestSettings,
): Promise<IDataObject> {
	const { check, method } = write;
	const reading = settings;
	let before: IDataObject | undefined;
	try {
		before = check.before ? await check.before.call(this, reading) : undefined;
	} catch (error) {
		throw named(
			new NodeApiError(this.getNode(), error as JsonObject),
			`Not sent: ${lower(check.change)} was NOT applied, since reading the state first failed.`,
		);
	}
	let failure: ApiFailure;
	let cause: string;
	let final: boolean;
	try {
		const answer = (await apiRequest.call(
			this,
			method,
			write.path,
			{ body: write.body },
			settings,
		)) as IDataObject;
		if (answer.id !== undefined) return answer;
		// A readable success without the order: the service is done, the read-back gives the order.
		failure = {
			method,
			path: write.path,
			attempts: 1,
			waitedMs: 0,
			itemIndex: settings.itemIndex,
			detail: `${method} ${write.path} answered without the order`,
		};
		cause = 'the service answered without the order';
		final = true;
	} catch (error) {
		const uncertain = uncertainWrite(error);
		if (!uncertain) throw refused.call(this, error, check);
		failure = uncertain;
		cause = causeOf(uncertain, settings);
		final = isFinal(uncertain, uncertain.body ?? (error as NodeApiError).context?.body);
	}
	let order: IDataObject | undefined;
	try {
		order = await check.find.call(this, reading, before);
	} catch (readError) {
		const why = (readError as Error).message.replace(/\.$/, '');
		const reason =
			`Uncertain: ${lower(check.change)} may or may not have been applied: ${cause}, and ` +
			`reading it back failed too (${why}). It was not sent again. ${check.checkFirst}`;
		throw apiError(this.getNode(), { ...failure, reason });
	}
	if (order) return { ...order, writeCheck: { outcome: 'applied', cause } };
	const elsewhere = failure.redirected
		? ' Check the Base URL in the credential first: the service sends writes to another address.'
		: '';
	const reason = final
		? `${check.change} was NOT applied: ${cause}, so ` +
			`${check.unchanged}. It is safe to run it again.${elsewhere}`
		: `Uncertain: ${lower(check.change)} was not applied when the node ` +
			`checked: ${cause}, and ${check.unchanged}. ${LATE} ${check.checkFirst}`;
	throw apiError(this.getNode(), { ...failure, reason });
}

export const ticketsOf = (order: IDataObject) =>
	Array.isArray(order.tickets) ? (order.tickets as IDataObject[]) : [];

/**
 * The order read back; an answer that is not this order is no evidence either way, so the read
 * fails.
 */
async function readOrder(
	this: IExecuteFunctions,
	id: string,
	settings: RequestSettings,
): Promise<IDataObject> {
	const route = path`/orders/${id}`;
	const order = (await apiRequest.call(this, 'GET', route, {}, settings)) as IDataObject;
	if (String(order.id) === id) return order;
	const reason = `GET ${route} answered something other than order ${id}`;
	throw apiError(this.getNode(), {
		method: 'GET',
		path: route,
		status: 200,
		body: order,
		attempts: 1,
		waitedMs: 0,
		itemIndex: settings.itemIndex,
		reason,
	});
}

/**
 * A check for a write to one order (its id checked as a number): `applied` compares the order read
 * back (GET /orders/{id}) with the values the node checked and sent.
 */
export function orderCheck(
	id: string,
	change: string,
	applied: (order: IDataObject, before?: IDataObject) => boolean,
	options: { compareWithBefore?: boolean; onConflict?: string } = {},
): WriteCheck {
	return {
		change,
		before: options.compareWithBefore
			? async function (settings) {
					return await readOrder.call(this, id, settings);
				}
			: undefined,
		async find(settings, before) {
			const order = await readOrder.call(this, id, settings);
			return applied(order, before) ? order : undefined;
		},
		unchanged: `the node read order ${id} back: it is unchanged`,
		checkFirst: `Check order ${id} (Order > Get) before running this again.`,
		onConflict:
			options.onConflict ?? `Read order ${id} (Order > Get) to see its status before trying again.`,
	};
}

/** A place held or sold by anyone answers 409. */
export const TAKEN =
	`A place that is sold or held cannot be booked: pick other places from the ` +
	`event's place list (Hall Plan > Get Places, those with availableCount above 0)`;

const sameIds = (a: unknown[], b: unknown[]) =>
	a.map(String).sort().join() === b.map(String).sort().join();

/**
 * Create's check: a live order of this account (the credential's company) on the event holding
 * exactly the places sent. The event's order list has no tickets, so each live hold is read,
 * newest first; the account's reserved-tickets limit bounds how many there are.
 */
export function createCheck(eventId: string, places: string[]): WriteCheck {
	return {
		change: `Creating an order on event ${eventId}`,
		async find(settings) {
			const live = await apiRequestAllItems.call(
				this,
				path`/event-points/${eventId}/orders`,
				{ status: 'reserved_to_time' },
				settings,
			);
			for (const candidate of live.sort((a, b) => Number(b.id) - Number(a.id))) {
				const id = String(candidate.id);
				// An id from the answer goes into a path only as a number.
				if (!/^\d{1,19}$/.test(id)) continue;
				const order = await readOrder.call(this, id, settings);
				if (
					order.status !== 'reserved_to_time' ||
					!sameIds(
						ticketsOf(order).map((t) => t.placeId),
						places,
					)
				)
					continue;
				// Create answers without tickets: one item, as an answered Create gives.
				const created = { ...order };
				delete created.tickets;
				return created;
			}
			return undefined;
		},
		unchanged: `the node searched the live orders of event ${eventId}: none holds these places`,
		checkFirst:
			`Check the orders of event ${eventId} (Order > Get Many for ` +
			`Event, status Held) before running this again: a hold left ` +
			`behind counts against your reserved-tickets limit until it ends.`,
		onConflict: `${TAKEN} and create the order again with free ones.`,
	};
}
