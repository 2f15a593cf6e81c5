import { NodeApiError, sleep, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { backoffMs } from '../../../shared/transport';
import { plainId } from './ids';

// What Hold Best Available does with a refused hold: picks again after a 409, waits out the
// account's reserved-tickets limit (422) within bounds, and fails at once on anything else.

export interface Attempts {
	conflicts: number;
	limitWaits: number;
	waitedMs: number;
}

export interface Limits {
	conflictRetries: number;
	limitWaitMs: number;
	eventId: string;
	quantity: number;
	/** The execution and event a stated per-order limit is kept for. */
	limitKey: string;
}

/**
 * The least wait on the limit, whatever the answer says (a `Retry-After: 0`, an HTTP date already
 * past): holds end as buyers pay, within seconds, so asking sooner only loads the service.
 */
export const LIMIT_WAIT_FLOOR_MS = 1000;
/** Without a Retry-After the wait grows, but not past this a time. */
const LIMIT_WAIT_STEP_MS = 2000;

const isStatus = (error: unknown, status: string) =>
	error instanceof NodeApiError && error.httpCode === status;

/** The places a 409 names as taken, when its body lists them, in any form the API gives IDs. */
function takenIn(error: NodeApiError): string[] {
	const body = error.context?.body as IDataObject | undefined;
	if (!Array.isArray(body?.places)) return [];
	return body.places
		.map((place) => plainId(place, 'places'))
		.filter((id): id is string => id !== undefined);
}

const ACCOUNT_LIMIT = new RegExp(
	'reserved[\\s_-]*tickets|simultaneous(?:ly)?[\\s_-]+reserved|' +
		'(?:account|company)\\b[^.]{0,40}reserv|reserv[^.]{0,40}\\b(?:account|company)',
	'i',
);
const PER_ORDER = new RegExp(
	'per[\\s_-]*(?:order|purchase|transaction|booking)|in (?:one|a single|an|the) order|' +
		'an order may|tickets[\\s_-]*per[\\s_-]*order',
	'i',
);
const WORDS = ['code', 'type', 'error', 'message', 'detail', 'title', 'hydra:description'];

/**
 * Whether a 422 says it is the account's limit of simultaneously reserved tickets, the only one
 * that waiting can pass. The service's own words decide: its code, else its message fields. A
 * body listing `violations` is a validation error (API Platform's 422); words about one order, a
 * purchase or a transaction name the per-order limit, unless the limit the body states is no
 * smaller than the hold (`quantity`: a new order holds exactly that many, so no per-order limit
 * refused it). Neither a per-order limit nor a 422 whose words the node cannot place is waited out.
 */
export function accountLimit(error: NodeApiError, quantity?: number): boolean {
	const body = error.context?.body;
	if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
	const fields = body as IDataObject;
	if (Array.isArray(fields.violations) && fields.violations.length > 0) return false;
	if (typeof fields.code === 'string' && ACCOUNT_LIMIT.test(fields.code)) return true;
	const words = WORDS.map((name) => fields[name])
		.filter((value): value is string => typeof value === 'string')
		.join(' ');
	const limit = Number(fields.limit);
	const notPerOrder = quantity !== undefined && Number.isInteger(limit) && limit >= quantity;
	return ACCOUNT_LIMIT.test(words) && (!PER_ORDER.test(words) || notPerOrder);
}

const plural = (n: number) => `${n} place${n === 1 ? '' : 's'}`;

/**
 * A per-order limit the service stated stops a larger hold before it is sent within the same
 * execution only (the next items of a run, an AI agent's next call): the service may raise it
 * between executions. Kept this long at most, so that the memory stays small.
 */
const PER_ORDER_KEEP_MS = 10 * 60_000;
/** Per-order limits the service stated, by execution and event. */
const perOrderLimits = new Map<string, { limit: number; at: number }>();

/**
 * The tickets-per-order limit a 422 states: its `limit`, when its words name one order, its code
 * does not name the account's reserved tickets, and the limit is below what this hold asked for
 * (a new order holds exactly that many).
 */
function perOrderLimit(error: NodeApiError, quantity: number): number | undefined {
	const body = error.context?.body as IDataObject | undefined;
	if (typeof body?.code === 'string' && ACCOUNT_LIMIT.test(body.code)) return undefined;
	const words = WORDS.map((name) => body?.[name])
		.filter((value): value is string => typeof value === 'string')
		.join(' ');
	const limit = Number(body?.limit);
	return PER_ORDER.test(words) && Number.isInteger(limit) && limit > 0 && limit < quantity
		? limit
		: undefined;
}

/**
 * The tickets-per-order limit the service stated in this execution for this event, and how long
 * ago, so that a hold asking for more is stopped before it is sent.
 */
export function knownPerOrderLimit(
	key: string,
	now = Date.now(),
): { limit: number; minutesAgo: number } | undefined {
	const known = perOrderLimits.get(key);
	if (!known || now - known.at >= PER_ORDER_KEEP_MS) return undefined;
	return { limit: known.limit, minutesAgo: Math.floor((now - known.at) / 60_000) };
}

/** A 409: its places set aside to pick again within New Picks, else the error, said so. */
function afterConflict(
	conflict: NodeApiError,
	places: string[],
	limits: Limits,
	attempts: Attempts,
	taken: Set<string>,
): NodeApiError | undefined {
	if (attempts.conflicts < limits.conflictRetries) {
		attempts.conflicts++;
		// Those it names, or else all picked: a plan that still shows them free cannot loop.
		const named = takenIn(conflict);
		for (const place of named.length ? named : places) taken.add(place);
		return undefined;
	}
	conflict.message +=
		` The node picked other places ${attempts.conflicts} times (New Picks After a ` +
		'Conflict): others were faster each time.';
	return conflict;
}

/** A per-order limit: kept for this execution and event, and said in words. */
function perOrderRefusal(refusal: NodeApiError, perOrder: number, limits: Limits): NodeApiError {
	const now = Date.now();
	for (const [key, { at }] of perOrderLimits)
		if (now - at >= PER_ORDER_KEEP_MS) perOrderLimits.delete(key);
	perOrderLimits.set(limits.limitKey, { limit: perOrder, at: now });
	refusal.message =
		`Refused: holding ${plural(limits.quantity)} on event ${limits.eventId} was NOT ` +
		`applied: an order may hold at most ${perOrder} tickets (the service's limit). Ask for ` +
		`${perOrder} or fewer, and hold the rest in another order.`;
	return refusal;
}

/** The account's limit: waited out within Max Wait (undefined: try again), else the error. */
async function waitOnLimit(
	this: IExecuteFunctions,
	refusal: NodeApiError,
	limits: Limits,
	attempts: Attempts & { firstLimitAt?: number },
): Promise<NodeApiError | undefined> {
	const now = Date.now();
	attempts.firstLimitAt ??= now;
	const hinted = refusal.context?.retryAfterMs;
	const asked =
		typeof hinted === 'number'
			? hinted
			: Math.min(backoffMs(attempts.limitWaits), LIMIT_WAIT_STEP_MS);
	const wait = Math.max(LIMIT_WAIT_FLOOR_MS, asked);
	if (now - attempts.firstLimitAt + wait > limits.limitWaitMs) {
		const { quantity, eventId } = limits;
		refusal.message =
			`Refused: holding ${plural(quantity)} on event ${eventId} was NOT applied: your ` +
			`account's limit of reserved tickets stayed reached through ` +
			`${Math.round(attempts.waitedMs / 1000)} s of waiting` +
			(typeof hinted === 'number' ? ` (the service asked to wait ${wait / 1000} s more)` : '') +
			` (Max Wait for the Reserved-Tickets Limit: ${limits.limitWaitMs / 1000} s). ` +
			'Release holds you no longer need.';
		return refusal;
	}
	attempts.limitWaits++;
	attempts.waitedMs += wait;
	await sleep(wait);
	return this.getExecutionCancelSignal?.()?.aborted ? refusal : undefined;
}

/**
 * After a refused hold: undefined to pick again (a 409 within New Picks, its places set aside) or
 * to try again once the reserved-tickets limit had time to clear (a 422 the node can tell is that
 * limit, waited out at least LIMIT_WAIT_FLOOR_MS a time, a Retry-After honoured, never past Max
 * Wait counted from the first such 422); otherwise the error to fail with, at once.
 */
export async function absorb(
	this: IExecuteFunctions,
	error: unknown,
	places: string[],
	limits: Limits,
	attempts: Attempts & { firstLimitAt?: number },
	taken: Set<string>,
): Promise<unknown> {
	if (isStatus(error, '409'))
		return afterConflict(error as NodeApiError, places, limits, attempts, taken);
	if (!isStatus(error, '422')) return error;
	const refusal = error as NodeApiError;
	const perOrder = perOrderLimit(refusal, limits.quantity);
	if (perOrder !== undefined) return perOrderRefusal(refusal, perOrder, limits);
	if (!accountLimit(refusal, limits.quantity)) {
		refusal.message +=
			" Not waited out: the node waits only on your account's reserved-tickets limit, and the " +
			"service's words above do not name it.";
		return refusal;
	}
	return await waitOnLimit.call(this, refusal, limits, attempts);
}
