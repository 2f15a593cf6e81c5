import { NodeApiError, type IDataObject, type IExecuteFunctions, type IHttpRequestMethods, type JsonObject } from 'n8n-workflow';

import { apiRequest, apiRequestAllItems, uncertainWrite, type RequestSettings } from '../../transport';
import { apiError, type ApiFailure } from '../../transport/errors';

/**
 * What to do when a write's answer is lost (issue 8, "Uncertain writes"): the write is never
 * sent again; the state is read instead, and the node reports what really happened.
 */
export interface WriteCheck {
	/** The change in words, as the subject of a sentence: "Changing the status of order 700001". */
	change: string;
	/** Reads the state before the write, for checks that compare (Extend Hold's deadline). */
	before?: (this: IExecuteFunctions, settings: RequestSettings) => Promise<IDataObject>;
	/** The order if the write took effect, undefined if it did not; throws when the state cannot be read. */
	find: (this: IExecuteFunctions, sent: IDataObject, settings: RequestSettings, before?: IDataObject) => Promise<IDataObject | undefined>;
	/** What the read showed when the write did not take effect: "the node read order 700001 back: it is unchanged". */
	unchanged: string;
	/** A sentence: what to check by hand when the state could not be read either. */
	checkFirst: string;
	/** A sentence added to a 409 Conflict: what to do next (a person or an AI agent reads it). */
	onConflict?: string;
}

export interface OrderWrite {
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	check: WriteCheck;
}

/** Why the outcome is unknown, in words. */
function causeOf(failure: ApiFailure, settings: RequestSettings): string {
	const { status } = failure;
	if (status !== undefined && status >= 500) return `the service answered ${status} (a server error) instead of the result`;
	if (status !== undefined) return 'the answer could not be read (it was not JSON)';
	if (failure.timedOut) return `no answer came within the Timeout (${(settings.retry?.timeoutMs ?? 300_000) / 1000} s)`;
	if (failure.code === 'ECONNRESET' || failure.code === 'EPIPE') return 'the connection dropped before the answer arrived';
	return `the connection failed (${failure.code ?? 'no answer'}) before the answer arrived`;
}

/**
 * Whether the service is done with the request, so that a read-back is final: it answered
 * itself. With no answer (timeout, dropped connection) or a gateway's 502/504, it may still be
 * working on it and apply it after the read.
 */
const finished = ({ status }: ApiFailure) => status !== undefined && status !== 502 && status !== 504;
export const LATE = 'The service may still be working on it and apply it late, so it was not sent again.';

/**
 * Sends a write once. When its outcome is unknown (no answer, 5xx, an unreadable answer or one
 * without the order), reads the state: applied gives the order read with `writeCheck: { outcome:
 * 'applied', cause }`; not applied, an error saying whether that is final; not readable either, what to check.
 */
export async function checkedWrite(this: IExecuteFunctions, write: OrderWrite, settings: RequestSettings): Promise<IDataObject> {
	const { check, method, path } = write;
	const before = check.before ? await check.before.call(this, settings) : undefined;
	let failure: ApiFailure;
	let cause: string;
	let final: boolean;
	try {
		const answer = (await apiRequest.call(this, method, path, { body: write.body }, settings)) as IDataObject;
		if (answer.id !== undefined) return answer;
		failure = { method, path, attempts: 1, waitedMs: 0, itemIndex: settings.itemIndex, detail: `${method} ${path} answered without the order` };
		cause = 'the service answered without the order';
		final = true;
	} catch (error) {
		const uncertain = uncertainWrite(error);
		// The transport throws NodeApiError: wrapping hands the same error back.
		if (!uncertain) throw withNextStep(new NodeApiError(this.getNode(), error as JsonObject), check);
		failure = uncertain;
		cause = causeOf(failure, settings);
		final = finished(failure);
	}
	let order: IDataObject | undefined;
	try {
		order = await check.find.call(this, write.body ?? {}, settings, before);
	} catch (readError) {
		const why = (readError as Error).message.replace(/\.$/, '');
		const reason = `The outcome of ${lower(check.change)} is unknown: ${cause}, and reading the state back failed too (${why}). ${check.checkFirst}`;
		throw apiError(this.getNode(), { ...failure, reason });
	}
	if (order) return { ...order, writeCheck: { outcome: 'applied', cause } };
	const reason = final
		? `${check.change} was NOT applied: ${cause}, so ${check.unchanged}. It is safe to run it again.`
		: `${check.change} was not applied when the node checked: ${cause}, and ${check.unchanged}. ${LATE} ${check.checkFirst}`;
	throw apiError(this.getNode(), { ...failure, reason });
}

function withNextStep(error: NodeApiError, check: WriteCheck): NodeApiError {
	if (error.httpCode === '409' && check.onConflict) error.message = `${error.message.replace(/\.$/, '')}. ${check.onConflict}`;
	return error;
}

const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

export const ticketsOf = (order: IDataObject) => (Array.isArray(order.tickets) ? (order.tickets as IDataObject[]) : []);

async function readOrder(this: IExecuteFunctions, id: string, settings: RequestSettings): Promise<IDataObject> {
	return (await apiRequest.call(this, 'GET', `/orders/${id}`, {}, settings)) as IDataObject;
}

/** A check for a write to one order: `applied` compares the order read back (GET /orders/{id}) with what was sent. */
export function orderCheck(
	id: string,
	change: string,
	applied: (order: IDataObject, sent: IDataObject, before?: IDataObject) => boolean,
	options: { compareWithBefore?: boolean; onConflict?: string } = {},
): WriteCheck {
	return {
		change,
		before: options.compareWithBefore
			? async function (settings) {
					return await readOrder.call(this, id, settings);
				}
			: undefined,
		async find(sent, settings, before) {
			const order = await readOrder.call(this, id, settings);
			return applied(order, sent, before) ? order : undefined;
		},
		unchanged: `the node read order ${id} back: it is unchanged`,
		checkFirst: `Check order ${id} (Order > Get) before running this again.`,
		onConflict: options.onConflict ?? `Read order ${id} (Order > Get) to see its status before trying again.`,
	};
}

/** Spec section 5: a place held or sold by anyone answers 409. */
export const TAKEN = `A place that is sold or held cannot be booked: pick other places from the event's place list (Hall Plan > Get Places, those with availableCount above 0)`;

const sameIds = (a: unknown[], b: unknown[]) => a.map(String).sort().join() === b.map(String).sort().join();

/**
 * Create's check: a live order of this account (the credential's company) on the event holding
 * exactly the places sent. The event's order list has no tickets, so each live hold is read,
 * newest first; the account's reserved-tickets limit bounds how many there are.
 */
export function createCheck(eventId: string): WriteCheck {
	return {
		change: `Creating an order on event ${eventId}`,
		async find(sent, settings) {
			const places = Array.isArray(sent.places) ? sent.places : [];
			const live = await apiRequestAllItems.call(this, `/event-points/${String(sent.eventPoint ?? eventId)}/orders`, { status: 'reserved_to_time' }, settings);
			for (const candidate of live.sort((a, b) => Number(b.id) - Number(a.id))) {
				const order = await readOrder.call(this, String(candidate.id), settings);
				if (order.status !== 'reserved_to_time' || !sameIds(ticketsOf(order).map((t) => t.placeId), places)) continue;
				// Create answers without tickets: one item, as an answered Create gives.
				const created = { ...order };
				delete created.tickets;
				return created;
			}
			return undefined;
		},
		unchanged: `the node searched the live orders of event ${eventId}: none holds these places`,
		checkFirst: `Check the orders of event ${eventId} (Order > Get Many for Event, status Held) before running this again: a hold left behind counts against your reserved-tickets limit until it ends.`,
		onConflict: `${TAKEN} and create the order again with free ones.`,
	};
}
