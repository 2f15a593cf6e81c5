import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { z } from 'zod';

/**
 * What the trigger remembers between polls, as a schema: the saved JSON may come from an older
 * version of this node or be edited by hand, and a state that does not parse is started over
 * rather than half-read. Plain numbers and strings only: n8n saves static data as JSON.
 */
const passSchema = z.object({
	/** The window start the pass reads from; another one starts the pass over. */
	lower: z.number(),
	/** Places of the list read so far. */
	end: z.number(),
	/** The last items read, in list order: the next page must share one of them. */
	tail: z.array(z.object({ id: z.string(), time: z.number().optional() })),
	/** The service's time when the pass began. */
	began: z.number(),
	/**
	 * A page shared nothing with the one before, or records read were left out of the chunk: the pass
	 * proves nothing, and the feed keeps its place when it ends.
	 */
	unproven: z.literal(true).optional(),
});

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
	/** The service's clock minus this machine's at the last reading (ms): a drop is a step back. */
	offset: z.number().optional(),
	/**
	 * When this machine began the last poll that read the feed: a step back of the service's clock
	 * came after it, so a sale made since is dated at least this plus the service's offset now.
	 */
	readAt: z.number().optional(),
	/**
	 * When its event left the list (the service's time): the feed is read until records listed
	 * late have had their Settlement Lag, then rests.
	 */
	leavingSince: z.number().optional(),
	/** A reading of a list in no usable order, cut by the poll's budget: the next goes on there. */
	pass: passSchema.optional(),
	/** The poll's time ran out before this feed was read: the next poll reads it first. */
	waiting: z.literal(true).optional(),
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
	/** Widget sales of the last hour or so: a digest to the payment time (poll/copies.ts). */
	widgetSales: z.record(z.number()).optional(),
});

export type FeedState = z.infer<typeof feedStateSchema>;
export type Pass = z.infer<typeof passSchema>;
export type WatchedEvents = z.infer<typeof watchedEventsSchema>;
export type CatalogState = z.infer<typeof catalogStateSchema>;
export type PollState = z.infer<typeof pollStateSchema>;

const KEY = 'publicEventsPoll';
/**
 * Global static data: a copy of each poll trigger's state, by node id (see loadState). The key is
 * from the versions that kept only the first state there.
 */
const MIRRORS = 'publicEventsPollSeeds';
/** A copy not rewritten for this long belongs to a trigger that is gone: the next save drops it. */
const MIRROR_KEEP_MS = 30 * 24 * 3_600_000;
/** An unchanged state's copy is dated again after this long, so it is not taken for gone. */
const MIRROR_REDATE_MS = 24 * 3_600_000;

const parse = (value: unknown) => {
	const parsed = pollStateSchema.safeParse(value);
	return parsed.success ? parsed.data : undefined;
};
const nodeKey = (context: IPollFunctions) => context.getNode().id ?? context.getNode().name;
const mirrorsOf = (context: IPollFunctions) => {
	const mirrors = context.getWorkflowStaticData('global')[MIRRORS];
	return typeof mirrors === 'object' && mirrors !== null ? (mirrors as IDataObject) : undefined;
};
const mirroredAt = (mirror: unknown) => (mirror as IDataObject | undefined)?.mirroredAt;

/**
 * A plain copy of the saved state; undefined before the first activation, or if it does not parse.
 *
 * n8n keeps a node's static data under its name, so a trigger renamed in the editor finds none of
 * its own once published again, and would take what the service lists then for history, losing
 * the sales made since its last poll. And with n8n's durable poll cursors (opt-in from 2.36:
 * N8N_POLLER_DURABLE_CURSORS_ENABLED and the scheduler's flags) the node's static data lives in a
 * table of its own (`poller_state`), created at activation from what the workflow held then; the
 * poll n8n runs at activation is a test whose node static data is dropped, so the first scheduled
 * poll finds no state. So every state is also kept in the workflow's global static data by node
 * id (the mirror; n8n saves global static data with the node's in the default mode, and at
 * activation in every mode), and a poll without a state of its own starts from it.
 */
export function loadState(context: IPollFunctions): PollState | undefined {
	const own = context.getWorkflowStaticData('node')[KEY];
	// A state that does not parse (an older version, a hand edit) starts over, not from the mirror.
	return parse(own === undefined ? mirrorsOf(context)?.[nodeKey(context)] : own);
}

/**
 * Replaces the saved state in one assignment, after every request succeeded: a poll that fails
 * leaves the state as it was (n8n keeps the workflow's static data in memory between polls).
 * n8n 2.40 writes it to its database at activation and when a poll returns items, not after a
 * poll that returns null (the durable cursors commit that too): what such a poll changed (a re-read
 * event list) is redone after a restart, and must never be needed to avoid a repeat. An unchanged
 * state is not written. The mirror (loadState) is written with it, dated; copies of triggers that
 * have not saved for 30 days (deleted ones) are dropped, so the mirrors hold the live triggers'.
 */
export function saveState(context: IPollFunctions, next: PollState, now = Date.now()): void {
	const stored = context.getWorkflowStaticData('node');
	const own = parse(stored[KEY]);
	const key = nodeKey(context);
	const mirrors = mirrorsOf(context) ?? {};
	const dated = mirroredAt(mirrors[key]);
	const unchanged = own !== undefined && JSON.stringify(own) === JSON.stringify(next);
	if (unchanged && typeof dated === 'number' && now - dated < MIRROR_REDATE_MS) return;
	if (!unchanged) stored[KEY] = JSON.parse(JSON.stringify(next)) as IDataObject;
	const kept = Object.entries(mirrors).filter(([other, mirror]) => {
		const at = mirroredAt(mirror);
		// Copies written before they were dated (the first state of an older version) stay.
		return other !== key && (typeof at !== 'number' || now - at < MIRROR_KEEP_MS);
	});
	const mirror = { ...(JSON.parse(JSON.stringify(next)) as IDataObject), mirroredAt: now };
	context.getWorkflowStaticData('global')[MIRRORS] = Object.fromEntries([...kept, [key, mirror]]);
}
