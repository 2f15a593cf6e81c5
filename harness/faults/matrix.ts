import type { IDataObject } from 'n8n-workflow';

/**
 * The fault matrix: operation classes (rows) x faults (columns) -> the outcome each cell must
 * show. Adding a cell is one line in MATRIX; a new fault is one entry in FAULTS (its rules);
 * a new row is a runner in rows*.ts.
 */

export type FaultId =
	| '401'
	| '429ra'
	| '429'
	| '5xx'
	| 'drop'
	| 'dropAfter'
	| 'timeout'
	| 'malformed'
	| 'html'
	| 'empty';
export type RowId = 'events' | 'places' | 'orderGet' | 'create' | 'status' | 'webhook' | 'poll';

/**
 * - recovered: complete results equal to a fault-free read, nothing twice (writes: applied once);
 * - error: a clear NodeApiError naming what happened, nothing partial (poll: state held, next poll
 * emits all);
 * - applied / notApplied: a write with an unknown outcome read back (writeCheck, or "NOT applied,
 * safe to run again");
 * - notYet: read back unchanged, but with no answer the node could read it may still apply:
 * "check first", never resent;
 * - named: a create applied behind a lost answer that ties nothing to the request: the order on its
 * places is named as maybe this one, never taken (another buyer on the same key may hold them);
 * - later: the push trigger answers 503 and starts nothing while Fetch Full Order cannot read the
 * order; the sender's next attempt reads it and starts the one run, with the order.
 */
export type Outcome =
	| 'recovered'
	| 'error'
	| 'applied'
	| 'notApplied'
	| 'notYet'
	| 'named'
	| 'later';
export type Expected = Outcome | { na: string };

/** The request a row's faults are aimed at (a sandbox fault rule's matchers). */
export interface Target {
	method: string;
	path: string;
	query?: Record<string, string>;
}

export interface Fault {
	id: FaultId;
	/** Column header. */
	title: string;
	/** Sandbox fault rules aimed at the row's target. */
	rules: (target: Target) => IDataObject[];
	/** What a clear error (or orderUnavailable) must say for this fault. */
	says: RegExp;
	/** Least time between two attempts at the target, ms, for the k-th retry (no tight loop). */
	minGap?: (k: number) => number;
}

/** Real-time bounds kept small so the matrix stays fast. */
export const RETRY_AFTER_S = 1;
export const STORM = 3;
export const LATENCY_MS = 3_000;
export const TIMEOUT_S = 1;
/**
 * Options every node row runs with: room for the storm, little waiting; a lost answer is read back
 * for 5 s, past the slow write's LATENCY_MS.
 */
export const RETRY_OPTIONS = { maxRetries: STORM + 1, maxRetryWait: 10, confirmWaitSeconds: 5 };

// transport/retry.ts: back-off is 500 ms x 2^k with equal jitter, so at least half of that.
const backoffFloor = (k: number) => 250 * 2 ** k;
const at = (target: Target, rule: IDataObject): IDataObject => ({
	method: target.method,
	path: target.path,
	...(target.query ? { query: target.query } : {}),
	...rule,
});

export const FAULTS: Fault[] = [
	{
		id: '401',
		title: '401 (token expired)',
		rules: (t) => [at(t, { kind: 'status', status: 401, count: 1 })],
		says: /refused the token/,
	},
	{
		id: '429ra',
		title: `429 storm, Retry-After ${RETRY_AFTER_S} s (${STORM}×)`,
		rules: (t) => [at(t, { kind: 'status', status: 429, retryAfter: RETRY_AFTER_S, count: STORM })],
		says: /kept answering 429/,
		minGap: () => RETRY_AFTER_S * 1000,
	},
	{
		id: '429',
		title: `429 storm, no Retry-After (${STORM}×)`,
		rules: (t) => [at(t, { kind: 'status', status: 429, count: STORM })],
		says: /kept answering 429/,
		minGap: backoffFloor,
	},
	{
		id: '5xx',
		title: '5xx burst (500, 503)',
		rules: (t) => [
			at(t, { kind: 'status', status: 500, count: 1 }),
			at(t, { kind: 'status', status: 503, count: 1 }),
		],
		says: /failed with status 50\d|not applied/i,
		minGap: backoffFloor,
	},
	{
		id: 'drop',
		title: 'connection dropped before the answer',
		rules: (t) => [at(t, { kind: 'drop', phase: 'before', count: 1 })],
		says: /reach|dropped/,
		minGap: backoffFloor,
	},
	{
		id: 'dropAfter',
		title: 'connection dropped after the write applied',
		rules: (t) => [at(t, { kind: 'drop', phase: 'after', count: 1 })],
		says: /dropped/,
	},
	{
		id: 'timeout',
		title: `answer slower than the Timeout (${LATENCY_MS / 1000} s vs ${TIMEOUT_S} s)`,
		rules: (t) => [at(t, { kind: 'latency', delayMs: LATENCY_MS, count: 1 })],
		says: /time/i,
		minGap: backoffFloor,
	},
	{
		id: 'malformed',
		title: 'malformed JSON',
		rules: (t) => [at(t, { kind: 'malformed', count: 1 })],
		says: /instead of JSON/,
	},
	{
		id: 'html',
		title: 'HTML error page (proxy 502)',
		rules: (t) => [at(t, { kind: 'html', status: 502, count: 1 })],
		says: /502|instead of JSON/,
		minGap: backoffFloor,
	},
	{
		id: 'empty',
		title: 'empty body',
		rules: (t) => [at(t, { kind: 'empty', count: 1 })],
		says: /empty body/,
	},
];

const GET_DROP = { na: 'a read changes nothing: a drop after it is the drop before' };

/** One line per row; each entry one cell. */
export const MATRIX: Record<RowId, Record<FaultId, Expected>> = {
	events: {
		'401': 'recovered',
		'429ra': 'recovered',
		'429': 'recovered',
		'5xx': 'recovered',
		drop: 'recovered',
		dropAfter: GET_DROP,
		timeout: 'recovered',
		malformed: 'error',
		html: 'recovered',
		empty: 'error',
	},
	places: {
		'401': 'recovered',
		'429ra': 'recovered',
		'429': 'recovered',
		'5xx': 'recovered',
		drop: 'recovered',
		dropAfter: GET_DROP,
		timeout: 'recovered',
		malformed: 'error',
		html: 'recovered',
		empty: 'error',
	},
	orderGet: {
		'401': 'recovered',
		'429ra': 'recovered',
		'429': 'recovered',
		'5xx': 'recovered',
		drop: 'recovered',
		dropAfter: GET_DROP,
		timeout: 'recovered',
		malformed: 'error',
		html: 'recovered',
		empty: 'error',
	},
	// The sandbox answers 5xx in place of the API: the read-back after it is final. A 2xx whose body
	// is malformed or empty, no answer (drop) or a gateway's 502 page: the service may still apply
	// the write (a 2xx is never "NOT applied"). The slow one does, while the node reads back: a
	// status change is then found applied; a new order, with nothing tying it to the request, is
	// named, as is one made behind a dropped answer.
	create: {
		'401': 'recovered',
		'429ra': 'recovered',
		'429': 'recovered',
		'5xx': 'notApplied',
		drop: 'notYet',
		dropAfter: 'named',
		timeout: 'named',
		malformed: 'notYet',
		html: 'notYet',
		empty: 'notYet',
	},
	status: {
		'401': 'recovered',
		'429ra': 'recovered',
		'429': 'recovered',
		'5xx': 'notApplied',
		drop: 'notYet',
		dropAfter: 'applied',
		timeout: 'applied',
		malformed: 'notYet',
		html: 'notYet',
		empty: 'notYet',
	},
	// Fetch Full Order: 2 retries within 3 s (the sender waits for the answer), so a storm of 3 ends
	// in a 503 and the sender's retry.
	webhook: {
		'401': 'recovered',
		'429ra': 'later',
		'429': 'later',
		'5xx': 'recovered',
		drop: 'recovered',
		dropAfter: GET_DROP,
		timeout: 'recovered',
		malformed: 'later',
		html: 'recovered',
		empty: 'later',
	},
	poll: {
		'401': 'recovered',
		'429ra': 'recovered',
		'429': 'recovered',
		'5xx': 'recovered',
		drop: 'recovered',
		dropAfter: GET_DROP,
		timeout: 'recovered',
		malformed: 'error',
		html: 'recovered',
		empty: 'error',
	},
};

export const faultById = (id: FaultId) => FAULTS.find((f) => f.id === id)!;
export const isNa = (expected: Expected): expected is { na: string } =>
	typeof expected === 'object';
