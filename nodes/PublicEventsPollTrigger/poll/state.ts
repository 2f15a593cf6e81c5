import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { z } from 'zod';

/**
 * What the trigger remembers between polls, as a schema: the saved JSON may come from an older
 * version of this node or be edited by hand, and a state that does not parse is started over
 * rather than half-read. Plain numbers and strings only: n8n saves static data as JSON.
 */
const feedStateSchema = z.object({
	/**
	 * The largest record time emitted so far (epoch ms), never past the service's time plus the
	 * overlap.
	 */
	cursor: z.number(),
	/**
	 * Where the next reading starts: older records count as done; from here on every emitted id is in
	 * `seen`.
	 */
	from: z.number(),
	/** Ids emitted at or after `from`, with their record time. */
	seen: z.record(z.number()),
	/**
	 * When the feed stopped being read (its event left the list); it resumes if the event returns.
	 */
	idleSince: z.number().optional(),
	/**
	 * Polls in a row this feed could not be read while other feeds emitted; its records wait in the
	 * service.
	 */
	failures: z.number().optional(),
});

/** The event list the Event Orders feed watches for "All Visible Events". */
const watchedEventsSchema = z.object({
	ids: z.array(z.string()),
	/** When the list was read (this machine's clock). */
	listedAt: z.number(),
	/** Where the orders of an event seen for the first time later start. */
	from: z.number(),
});

/** Compact fingerprints of the catalog: one short hash per top-level field, in `fields` order. */
const catalogStateSchema = z.object({
	fields: z.array(z.string()),
	events: z.record(z.string()),
	/**
	 * Events that left the list, and since when; kept a while so one missed listing re-emits nothing.
	 */
	gone: z.record(z.number()),
});

const pollStateSchema = z.object({
	version: z.literal(1),
	/** The Start From this state began with (as written). */
	startFromKey: z.string(),
	feeds: z.record(feedStateSchema),
	events: watchedEventsSchema.optional(),
	catalog: catalogStateSchema.optional(),
});

export type FeedState = z.infer<typeof feedStateSchema>;
export type WatchedEvents = z.infer<typeof watchedEventsSchema>;
export type CatalogState = z.infer<typeof catalogStateSchema>;
export type PollState = z.infer<typeof pollStateSchema>;

const KEY = 'publicEventsPoll';
/** Global static data: each poll trigger's first state, by node id (see loadState). */
const SEEDS = 'publicEventsPollSeeds';

const parse = (value: unknown) => {
	const parsed = pollStateSchema.safeParse(value);
	return parsed.success ? parsed.data : undefined;
};
const nodeKey = (context: IPollFunctions) => context.getNode().id ?? context.getNode().name;
const seedsOf = (context: IPollFunctions) => {
	const global = context.getWorkflowStaticData('global');
	const seeds = global[SEEDS];
	return typeof seeds === 'object' && seeds !== null ? (seeds as IDataObject) : undefined;
};

/**
 * A plain copy of the saved state; undefined before the first activation, or if it does not parse.
 *
 * With n8n's durable poll cursors (opt-in from 2.36: N8N_POLLER_DURABLE_CURSORS_ENABLED and the
 * scheduler's flags) the node's static data lives in a table of its own (`poller_state`), created
 * at activation from what the workflow held then; the poll n8n runs at activation is a test whose
 * node static data is dropped. Without more, the first scheduled poll found no state, took what
 * the service listed then for history and never emitted the sales made since publishing. So the
 * first state is also kept in the workflow's global static data, which n8n saves at activation in
 * every mode (the seed), and a poll without state of its own starts from it: what the activation
 * poll took for history stays history, what was sold since is new. The seed is dropped when the
 * node's own state next changes.
 */
export function loadState(context: IPollFunctions): PollState | undefined {
	const own = context.getWorkflowStaticData('node')[KEY];
	// A state that does not parse (an older version, a hand edit) starts over, not from the seed.
	return parse(own === undefined ? seedsOf(context)?.[nodeKey(context)] : own);
}

/**
 * Replaces the saved state in one assignment, after every request succeeded: a poll that fails
 * leaves the state as it was (n8n keeps the workflow's static data in memory between polls).
 * n8n 2.40 writes it to its database at activation and when a poll returns items, not after a
 * poll that returns null (the durable cursors commit that too): what such a poll changed (a re-read
 * event list) is redone after a restart, and must never be needed to avoid a repeat. An unchanged
 * state is not written. The first state is the seed too (loadState).
 */
export function saveState(context: IPollFunctions, next: PollState): void {
	const stored = context.getWorkflowStaticData('node');
	const own = parse(stored[KEY]);
	if (own && JSON.stringify(own) === JSON.stringify(next)) return;
	const copy = () => JSON.parse(JSON.stringify(next)) as IDataObject;
	stored[KEY] = copy();
	const key = nodeKey(context);
	const seeds = seedsOf(context);
	if (own && seeds && key in seeds) delete seeds[key];
	else if (!own && !(seeds && key in seeds))
		context.getWorkflowStaticData('global')[SEEDS] = { ...seeds, [key]: copy() };
}
