import type { IDataObject, IExecuteFunctions, IHttpRequestMethods } from 'n8n-workflow';

import type { RequestSettings } from '../../../shared/transport';
import type { Answer } from './lostAnswer';

// What an order write promises (writeCheck.ts keeps it): the outcomes it ends in, and what each
// write tells the check about itself.

/** An AI tool's words on a write's errors (those below): what they say about calling it again. */
export const AFTER_A_WRITE =
	' If it fails: an error that begins "Refused:" or says "was NOT applied" changed nothing; one ' +
	'that begins "Uncertain:" may have changed the order, so get the order (or, for a hold, the ' +
	"event's orders) before calling this again.";

/**
 * A write ends in one of these outcomes, named in words a person or an AI agent can act on, and in
 * `writeCheck.outcome` (on the item when applied, on the error otherwise) for a workflow to branch
 * on:
 * - applied: a readable 2xx, or the state read back shows the change;
 * - refused: a readable 4xx, or nothing was sent: "Refused: … was NOT applied";
 * - notApplied: the answer was lost, and the state read back proves the change did not apply and
 *   cannot apply late: "… was NOT applied … It is safe to run it again.";
 * - uncertain: anything else. The write is never sent again; the state is read back (following no
 *   redirect, for up to Max Wait to Confirm a Lost Answer) until it is known, else "Uncertain: …".
 */
export type Outcome = 'applied' | 'refused' | 'notApplied' | 'uncertain';

/** What the state read back shows about a write whose answer was lost. */
export interface ReadBack {
	/** The order as the write left it, when the state shows the write applied. */
	applied?: IDataObject;
	/** Otherwise, what the read showed: "the node read order 700001 back: it is unchanged". */
	shown?: string;
	/** The state rules out a late apply (a hold already ended cannot be paid). */
	settled?: boolean;
	/** The state cannot tell either way (orders this request may or may not have made). */
	unclear?: boolean;
	/** Reading again later cannot tell more (what is unclear stays so): the read-back stops. */
	conclusive?: boolean;
	/** Orders that may be this write's, each in a few fields, for the person who checks. */
	candidates?: IDataObject[];
	/** The order's state as read. */
	order?: IDataObject;
}

export interface WriteCheck {
	/** The change in words, as the subject of a sentence: "Changing the status of order 700001". */
	change: string;
	/**
	 * Whether the write's own 2xx answer shows the change made, on the order written to (the ID the
	 * path names, the status asked for); otherwise the state is read back. A service's answer about
	 * another order, or one that does not show the change, is never handed on as the result.
	 */
	shownBy: (answer: IDataObject, before: IDataObject | undefined) => boolean;
	/** The order a 2xx answer names, when it is a new one (Create): read back by that ID. */
	names?: (answer: IDataObject) => string | undefined;
	/**
	 * For an answer that names an order but cannot show the change by itself (Create answers
	 * without tickets): whether the order, read once, shows it. Else the state is read back.
	 */
	shownOnRead?: (
		this: IExecuteFunctions,
		answer: IDataObject,
		settings: RequestSettings,
	) => Promise<boolean>;
	/**
	 * A refusal (400, 409, 422) is checked against the order first: a request that reached the
	 * service twice (a proxy resending an idempotent PUT after the first applied) is refused the
	 * second time, the order already as asked. Set for writes to one order.
	 */
	readRefusals?: boolean;
	/** Reads the state before the write, for checks that compare (Extend Hold's deadline). */
	before?: (this: IExecuteFunctions, settings: RequestSettings) => Promise<IDataObject>;
	/** Reads the state after a lost answer; throws when it cannot be read. */
	find: (
		this: IExecuteFunctions,
		settings: RequestSettings,
		before: IDataObject | undefined,
		answer: Answer,
	) => Promise<ReadBack>;
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
