import { NodeApiError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { statusText } from '../../../shared/format';
import { path } from '../../../shared/path';
import { apiRequest } from '../../../shared/transport';
import { forgetOrder } from './idempotency';
import { orderIdOf, readOrder } from './readBack';
import { nodeRunOf, triesLeft, type NodeRun } from './retryGuard';

interface Hold {
	/** The input item, counted from 0 as n8n does; messages count from 1 (`itemWord`). */
	item: number;
	order: string;
	places: string[];
	/** "created" (the run made the order) or "added them to" (it grew an order made before). */
	verb: string;
}

/**
 * Orders this node run booked places into, by place and in order. n8n runs the node once per
 * input item: fed 50 places, item 1's order holds a place item 2 asks for, and the service's 409
 * would read as if someone else had taken it; and when item 3 fails and stops the run, the holds
 * of items 1 and 2 must not stay behind unnamed. One record per node run, kept across the tries of
 * Retry On Fail (retryGuard.ts): the last try's error names what the first try held.
 */
const runs = new WeakMap<NodeRun, { byPlace: Map<string, Hold>; all: Hold[] }>();
const ledgerOf = (context: IExecuteFunctions) => runs.get(nodeRunOf(context));

/** An input item as a person counts it in a message: the first is item 1. */
export const itemWord = (item: number) => `item ${item + 1}`;

/** Called after item `item` booked `places` into `order` ("created", "added them to"). */
export function noteHeld(
	context: IExecuteFunctions,
	item: number,
	order: string,
	places: string[],
	verb: string,
): void {
	const run = ledgerOf(context) ?? { byPlace: new Map<string, Hold>(), all: [] };
	runs.set(nodeRunOf(context), run);
	const hold = { item, order, places, verb };
	run.all.push(hold);
	for (const place of places) run.byPlace.set(place, hold);
}

const numbered = (prefix: string, value: unknown) =>
	/^\d/.test(String(value)) ? `${prefix} ${String(value)}` : String(value);

/**
 * Places named as a person finds them in the hall ("Parterre · Row 1 · Place 1"), when the input
 * items carry them: a Hall Plan > Get Places item has id, sectorName, rowName and placeName.
 */
function placeNames(context: IExecuteFunctions): Map<string, string> {
	const names = new Map<string, string>();
	for (const { json } of context.getInputData()) {
		if (
			json.id === undefined ||
			json.id === null ||
			json.placeName === undefined ||
			json.placeName === null
		)
			continue;
		const parts = [
			json.sectorName,
			json.rowName !== undefined && json.rowName !== null && numbered('Row', json.rowName),
			numbered('Place', json.placeName),
		];
		names.set(String(json.id), parts.filter(Boolean).map(String).join(' · '));
	}
	return names;
}

/**
 * A 409 on places: when an earlier item of this run holds them, said as such (which item, which
 * order) instead of the service's "held or sold"; either way, places named by sector, row and
 * place when the input items carry those. Any other error unchanged.
 */
export function ownHoldConflict(
	context: IExecuteFunctions,
	item: number,
	error: unknown,
	places: string[],
): unknown {
	if (!(error instanceof NodeApiError) || error.httpCode !== '409') return error;
	const names = placeNames(context);
	const named = (place: string) => (names.has(place) ? `${place} (${names.get(place)})` : place);
	const held = ledgerOf(context)?.byPlace;
	const ours = places.filter((place) => held?.has(place));
	if (!held || ours.length === 0) {
		const at = error.message.indexOf('Conflict');
		if (at < 0) return error;
		let conflict = error.message.slice(at);
		for (const place of places)
			if (names.has(place)) conflict = conflict.replace(new RegExp(`\\b${place}\\b`), named(place));
		error.message = error.message.slice(0, at) + conflict;
		return error;
	}
	const first = held.get(ours[0])!;
	const which =
		ours.length === 1 ? `Place ${named(ours[0])} is` : `Places ${ours.map(named).join(', ')} are`;
	error.message =
		`Refused: ${itemWord(item)}'s places were NOT booked. ${which} ` +
		`already held by order ${first.order}: ${itemWord(first.item)} of ` +
		`this same run ${first.verb} it a moment ago, nobody else. ` +
		`This node runs once per input item, and each item's order holds ` +
		`its places. For one order, turn on Execute Once in the node's ` +
		`Settings, or give all places in one item (Places takes a list).`;
	return error;
}

/** Whether item `item` asked to keep its holds when a later item fails (its Options). */
function keeps(context: IExecuteFunctions, item: number): boolean {
	try {
		const { keepHolds } = context.getNodeParameter('options', item, {}) as IDataObject;
		// Read as the item's check read it (Inputs.flag): an expression's "True" is on.
		return keepHolds === true || String(keepHolds).trim().toLowerCase() === 'true';
	} catch {
		return false;
	}
}

const RELEASE = 'Order > Change Status > Release Hold';
const RELEASED = 'was released';

/**
 * Releases a hold and says what became of it: released only when the answer or a read of the
 * order shows it expired (a 2xx alone does not: a 202 may never land, a 200 may show it held).
 */
async function release(context: IExecuteFunctions, hold: Hold): Promise<string> {
	const settings = { itemIndex: hold.item };
	const route = path`/orders/${hold.order}/status`;
	const answer = (await apiRequest.call(
		context,
		'PUT',
		route,
		{ body: { toStatus: 'expired' } },
		settings,
	)) as IDataObject | undefined;
	const shown =
		answer && orderIdOf(answer) === hold.order
			? answer
			: await readOrder.call(context, hold.order, settings);
	return shown.status === 'expired'
		? RELEASED
		: `was asked to be released, but it is ${statusText(shown.status)}: it may still be held`;
}

/**
 * When `failed` (an input item) stops the run, the orders earlier items made are released (unless
 * their Options say Keep Holds When a Later Item Fails) and every order the run booked places into
 * is named in the error, with what became of it: no hold is left behind unnamed. Holds made in an
 * earlier try of Retry On Fail are named too; none is released while n8n will try again (its next
 * try gives those items' orders again instead of holding anew).
 */
export async function afterStoppedRun(
	context: IExecuteFunctions,
	failed: number,
	error: Error,
): Promise<void> {
	const holds = ledgerOf(context)?.all ?? [];
	if (holds.length === 0) return;
	const count = context.getInputData().length;
	const words: string[] = [];
	const cancelled = context.getExecutionCancelSignal?.()?.aborted === true;
	const retried = triesLeft(context);
	for (const hold of holds) {
		const what = `order ${hold.order} (${itemWord(hold.item)}, places ${hold.places.join(', ')})`;
		if (hold.verb !== 'created') {
			words.push(`${what} still holds the places added to it`);
		} else if (retried) {
			words.push(`${what} is still held, for n8n's next try (Retry On Fail)`);
		} else if (keeps(context, hold.item) || cancelled) {
			words.push(`${what} is still held`);
		} else {
			try {
				const outcome = await release(context, hold);
				if (outcome === RELEASED) forgetOrder(context, hold.order);
				words.push(`${what} ${outcome}`);
			} catch (failure) {
				const why = (failure as Error).message.replace(/\.$/, '');
				words.push(`${what} could not be released (${why}): it may still be held`);
			}
		}
	}
	const kept = words.some((word) => !word.endsWith(RELEASED));
	error.message =
		`${error.message.replace(/\.$/, '')}. Item ${failed + 1} of ${count} stopped the run; what ` +
		`earlier items booked: ${words.join('; ')}.` +
		(kept ? ` Release holds you no longer need: ${RELEASE}.` : '');
}
