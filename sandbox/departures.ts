import { DEFAULT_ITEMS_PER_PAGE } from './envelope';
import type { Quirks } from './quirks';

/**
 * The drop-mid-read quirk: records leaving the sales and refunds lists while a client pages
 * through them. Its state hangs on the environment (ApiState) it is given.
 */
interface ListHolder {
	readonly quirks: Quirks;
}

/** The sales and refunds lists a poll reads page by page: the ones drop-mid-read thins. */
const SALES_LISTS = /^\/(widget-orders|widget-orders-refunds|event-points\/\d+\/orders)$/;

interface Departures {
	/** The quirks the count below belongs to: new quirks start it again. */
	quirks: Quirks;
	/** Page requests that dropped records so far. */
	drops: number;
	/** Ids of the records that left, per list path. */
	left: Map<string, Set<unknown>>;
}

const departures = new WeakMap<ListHolder, Departures>();

function departuresOf(app: ListHolder): Departures {
	let state = departures.get(app);
	if (!state) departures.set(app, (state = { quirks: app.quirks, drops: 0, left: new Map() }));
	if (state.quirks !== app.quirks) Object.assign(state, { quirks: app.quirks, drops: 0 });
	return state;
}

/** Records that left their list under drop-mid-read, by list path (for the control surface). */
export function recordsLeft(app: ListHolder): Record<string, unknown[]> {
	const { left } = departuresOf(app);
	return Object.fromEntries([...left].map(([path, ids]) => [path, [...ids]]));
}

/**
 * A list as it stands for this page request: without the records that left it, and under
 * drop-mid-read, first without the ones listed just before the page asked for (the records a
 * reader has most likely just read, so every later one moves back onto a page it has already had).
 * They stay gone when the quirk is turned off: they left the list.
 */
export function listedNow<T extends { id?: unknown }>(
	app: ListHolder,
	all: readonly T[],
	c: { path: string; page?: number; itemsPerPage?: number },
): readonly T[] {
	if (!SALES_LISTS.test(c.path)) return all;
	const state = departuresOf(app);
	const left = state.left.get(c.path) ?? new Set<unknown>();
	let list = left.size > 0 ? all.filter((item) => !left.has(item.id)) : all;
	const { dropMidRead, dropMidReadCount } = app.quirks;
	const start = ((c.page ?? 1) - 1) * (c.itemsPerPage ?? DEFAULT_ITEMS_PER_PAGE);
	if (!dropMidRead || start === 0 || (dropMidReadCount && state.drops >= dropMidReadCount))
		return list;
	const leaving = new Set(
		list.slice(Math.max(0, start - dropMidRead), start).map((item) => item.id),
	);
	if (leaving.size === 0) return list;
	state.drops += 1;
	for (const id of leaving) left.add(id);
	state.left.set(c.path, left);
	list = list.filter((item) => !leaving.has(item.id));
	return list;
}
