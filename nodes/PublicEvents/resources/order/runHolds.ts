import { NodeApiError, type IExecuteFunctions } from 'n8n-workflow';

interface Hold {
	item: number;
	order: string;
	verb: string;
}

/**
 * Places that orders of this run hold, by the item that booked them. n8n runs the node once per
 * input item: fed 50 places, item 0's order holds a place item 1 asks for, and the service's 409
 * would read as if someone else had taken it. One map per node run (its context object).
 */
const runs = new WeakMap<object, Map<string, Hold>>();

/** Called after item `item` booked `places` into `order` ("created", "added them to"). */
export function noteHeld(
	context: IExecuteFunctions,
	item: number,
	order: string,
	places: string[],
	verb: string,
): void {
	const held = runs.get(context) ?? new Map<string, Hold>();
	runs.set(context, held);
	for (const place of places) held.set(place, { item, order, verb });
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
	const held = runs.get(context);
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
		`Refused: item ${item}'s places were NOT booked. ${which} ` +
		`already held by order ${first.order}: item ${first.item} of ` +
		`this same run ${first.verb} it a moment ago, nobody else. ` +
		`This node runs once per input item, and each item's order holds ` +
		`its places. For one order, turn on Execute Once in the node's ` +
		`Settings, or give all places in one item (Places takes a list). ` +
		`Release holds you do not need: Order > Change Status > Release Hold on order ${first.order}.`;
	return error;
}
