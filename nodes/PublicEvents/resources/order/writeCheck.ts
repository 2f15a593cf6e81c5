import {
	NodeApiError,
	sleep,
	type IDataObject,
	type INode,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import {
	apiError,
	apiRequest,
	successOf,
	uncertainWrite,
	type ApiFailure,
	type RequestSettings,
} from '../../../shared/transport';
import { answerOf, causeOf, isFinal, type Answer } from './lostAnswer';
import { withOrderId } from './ids';
import type { OrderWrite, Outcome, ReadBack } from './writeContract';

export const LATE =
	'The service may still be working on it and apply it late, so it was not sent again.';

/** Default of Max Wait to Confirm a Lost Answer, and the waits between reads. */
export const CONFIRM_WAIT_S = 10;
const FIRST_READ_GAP_MS = 250;
const LONGEST_READ_GAP_MS = 2000;

const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The error with the outcome named first; the service's words and the next step kept. */
function named(
	error: NodeApiError,
	prefix: string,
	outcome: IDataObject,
	next?: string,
): NodeApiError {
	error.message = `${prefix} ${error.message.replace(/\.$/, '')}.${next ? ` ${next}` : ''}`;
	error.context.writeCheck = outcome;
	return error;
}

/** Refusals that may answer a request the service saw twice, the first time applying it. */
const MAY_REPEAT = ['400', '409', '422'];

/**
 * A refused write: a readable 4xx, or a failure before the request was sent. A refusal that may
 * answer a repeat (MAY_REPEAT) of a write to one order is first checked against the order: found
 * as asked, the write applied; the order unreadable, the outcome is unknown.
 */
async function refused(
	this: IExecuteFunctions,
	error: unknown,
	write: OrderWrite,
	settings: RequestSettings,
	before: IDataObject | undefined,
): Promise<{ error: unknown } | { applied: IDataObject }> {
	const { check } = write;
	// A cancelled run stops here: whatever was in flight is not judged.
	if (this.getExecutionCancelSignal?.()?.aborted) return { error };
	const apiErr = new NodeApiError(this.getNode(), error as JsonObject);
	const { httpCode } = apiErr;
	const outcome: IDataObject = { outcome: 'refused' };
	if (httpCode && Number(httpCode) >= 400 && Number(httpCode) < 500) {
		if (check.readRefusals && MAY_REPEAT.includes(httpCode)) {
			const cause = `the service answered ${httpCode}`;
			let read: ReadBack;
			try {
				read = await check.find.call(this, settings, before, {
					accepted: false,
					vouches: false,
					final: true,
				});
			} catch (readError) {
				const why = (readError as Error).message.replace(/\.$/, '');
				const error = named(
					apiErr,
					`Uncertain: ${lower(check.change)} may or may not have been applied: ${cause}, ` +
						`which a request the service already applied also gets when it reaches it ` +
						`twice, and reading the order back failed (${why}). It was not sent again. ` +
						`${check.checkFirst}`,
					{ outcome: 'uncertain', cause },
				);
				return { error };
			}
			if (read.applied) {
				const again = 'yet the order read back is as asked (the request may have reached it twice)';
				const writeCheck = { outcome: 'applied', cause: `${cause}, ${again}` };
				return { applied: { ...withOrderId(read.applied), writeCheck } };
			}
			if (read.order) outcome.order = read.order;
		}
		const next = httpCode === '409' ? check.onConflict : undefined;
		return {
			error: named(apiErr, `Refused: ${lower(check.change)} was NOT applied.`, outcome, next),
		};
	}
	const never = 'the request never reached the service.';
	return {
		error: named(apiErr, `Refused: ${lower(check.change)} was NOT applied: ${never}`, outcome),
	};
}

/** The bounded wait to confirm a lost answer, from the Options (Max Wait to Confirm…). */
function confirmWaitMs(settings: RequestSettings & { options?: IDataObject }): number {
	const seconds = Number(settings.options?.confirmWaitSeconds ?? CONFIRM_WAIT_S);
	return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

/** Writes each node run (its execute functions) has sent so far. */
const sent = new WeakMap<object, number>();

/** How many writes `context` has sent: a run stopped after one went out cannot know its outcome. */
export const writesSentBy = (context: object): number => sent.get(context) ?? 0;

async function send(
	this: IExecuteFunctions,
	{ method, path, body }: OrderWrite,
	settings: RequestSettings,
): Promise<IDataObject> {
	sent.set(this, writesSentBy(this) + 1);
	return (await apiRequest.call(this, method, path, { body }, settings)) as IDataObject;
}

/**
 * Sends a write once; when its outcome is not known, reads the state back until it is (within Max
 * Wait to Confirm a Lost Answer) and says what it found. Applied gives the order read, with
 * `writeCheck: { outcome: 'applied', cause }`; any other outcome throws an error whose
 * `context.writeCheck` names it with the order's state. A try of n8n's Retry On Fail does not send
 * it again either (retryGuard.ts, around each item's write).
 */
export async function checkedWrite(
	this: IExecuteFunctions,
	write: OrderWrite,
	settings: RequestSettings & { options?: IDataObject },
): Promise<IDataObject> {
	const { check, method } = write;
	let before: IDataObject | undefined;
	try {
		before = check.before ? await check.before.call(this, settings) : undefined;
	} catch (error) {
		throw named(
			new NodeApiError(this.getNode(), error as JsonObject),
			`Not sent: ${lower(check.change)} was NOT applied, since reading the state first failed.`,
			{ outcome: 'notApplied' },
		);
	}
	let failure: ApiFailure;
	let cause: string;
	let answer: Answer;
	try {
		const answered = await send.call(this, write, settings);
		if (check.shownBy(answered, before)) return withOrderId(answered);
		if (await check.shownOnRead?.call(this, answered, settings)) return withOrderId(answered);
		// A 2xx that does not show the change: the service took the write; the state says the rest.
		const { status, empty } = successOf(answered) ?? { empty: false };
		const said = `the service answered ${status ?? 'with a success'}`;
		cause = empty ? `${said} without a body` : `${said}, but its answer does not show the change`;
		failure = {
			method,
			path: write.path,
			status,
			attempts: 1,
			waitedMs: 0,
			itemIndex: settings.itemIndex,
			detail: `${method} ${write.path}: ${cause}`,
		};
		const vouches = empty && status === 201;
		answer = { accepted: true, vouches, final: false, orderId: check.names?.(answered) };
	} catch (error) {
		const uncertain = uncertainWrite(error);
		if (!uncertain) {
			const outcome = await refused.call(this, error, write, settings, before);
			if ('applied' in outcome) return outcome.applied;
			throw outcome.error;
		}
		failure = uncertain;
		cause = causeOf(uncertain, settings);
		answer = answerOf(
			uncertain,
			isFinal(uncertain, uncertain.body ?? (error as NodeApiError).context?.body),
		);
	}
	return await confirm.call(this, write, settings, { failure, cause, answer, before });
}

type Lost = { failure: ApiFailure; cause: string; answer: Answer; before?: IDataObject };

/** The last read back of a lost answer, and how many reads it took over how long. */
interface Reading {
	read?: ReadBack;
	readError?: Error;
	reads: number;
	started: number;
}

/** Reads the state back until it shows the outcome, or Max Wait to Confirm a Lost Answer ends. */
async function readUntilKnown(
	this: IExecuteFunctions,
	{ check }: OrderWrite,
	settings: RequestSettings & { options?: IDataObject },
	{ answer, before }: Lost,
): Promise<Reading> {
	const reading: Reading = { reads: 0, started: Date.now() };
	const deadline = reading.started + confirmWaitMs(settings);
	let gap = FIRST_READ_GAP_MS;
	for (;;) {
		reading.reads++;
		try {
			reading.read = await check.find.call(this, settings, before, answer);
			reading.readError = undefined;
		} catch (error) {
			reading.readError = error as Error;
		}
		const { read, readError } = reading;
		if (read?.applied && !readError) return reading;
		// An accepted write may show late: only a read that can tell no more ends the wait early.
		const known =
			!readError &&
			(read?.conclusive === true || (!read?.unclear && (answer.final || read?.settled === true)));
		if (known || Date.now() + gap > deadline || this.getExecutionCancelSignal?.()?.aborted)
			return reading;
		await sleep(gap);
		gap = Math.min(gap * 2, LONGEST_READ_GAP_MS);
	}
}

/** The error for a lost answer that reading back did not show applied: uncertain or not applied. */
function unconfirmed(
	node: INode,
	{ check }: OrderWrite,
	{ failure, cause, answer }: Lost,
	{ read, readError, reads, started }: Reading,
): NodeApiError {
	const over =
		reads > 1
			? ` (read back ${reads} times over ${Math.round((Date.now() - started) / 1000)} s)`
			: '';
	const fail = (reason: string, named: Outcome) => {
		const error = apiError(node, { ...failure, reason });
		error.context.writeCheck = {
			outcome: named,
			cause,
			...(read?.order ? { order: read.order } : {}),
			...(read?.candidates ? { candidates: read.candidates } : {}),
		};
		return error;
	};
	const uncertain =
		`Uncertain: ${lower(check.change)} may or may not have been applied: ${cause}, ` + 'and';
	if (readError) {
		const why = readError.message.replace(/\.$/, '');
		return fail(
			`${uncertain} reading it back failed too (${why})${over}. It was not sent again. ` +
				check.checkFirst,
			'uncertain',
		);
	}
	const shown = `${read!.shown ?? 'the state read back does not show it'}${over}`;
	if (read!.unclear)
		return fail(`${uncertain} ${shown}. It was not sent again. ${check.checkFirst}`, 'uncertain');
	if (!answer.accepted && (answer.final || read!.settled)) {
		const elsewhere = failure.redirected
			? ' Check the Base URL in the credential first: the service sends writes to another address.'
			: '';
		return fail(
			`${check.change} was NOT applied: ${cause}, so ${shown}. It is safe to run it again.` +
				elsewhere,
			'notApplied',
		);
	}
	return fail(
		`Uncertain: ${lower(check.change)} was not applied when the node checked: ${cause}, and ` +
			`${shown}. ${LATE} ${check.checkFirst}`,
		'uncertain',
	);
}

/** Reads the state back until the outcome is known: the order when applied, else the error. */
async function confirm(
	this: IExecuteFunctions,
	write: OrderWrite,
	settings: RequestSettings & { options?: IDataObject },
	lost: Lost,
): Promise<IDataObject> {
	const reading = await readUntilKnown.call(this, write, settings, lost);
	const { read, readError } = reading;
	if (read?.applied && !readError)
		return { ...withOrderId(read.applied), writeCheck: { outcome: 'applied', cause: lost.cause } };
	throw unconfirmed(this.getNode(), write, lost, reading);
}
