import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { FeedState } from './feed';

/** The event list the Event Orders feed watches for "All Visible Events". */
export interface WatchedEvents {
	ids: string[];
	/** When the list was read (this machine's clock). */
	listedAt: number;
	/** Where the orders of an event seen for the first time later start. */
	from: number;
}

/** Compact fingerprints of the catalog: one short hash per top-level field, in `fields` order. */
export interface CatalogState {
	fields: string[];
	events: Record<string, string>;
	/** Events that left the list, and since when; kept a while so one missed listing re-emits nothing. */
	gone: Record<string, number>;
}

/** Everything the trigger remembers between polls, under one key of the node's static data. */
export interface PollState {
	version: 1;
	/** The Start From this state began with (as written). */
	startFromKey: string;
	feeds: Record<string, FeedState>;
	events?: WatchedEvents;
	catalog?: CatalogState;
}

const KEY = 'publicEventsPoll';

/** A plain copy of the saved state (undefined before the first activation, or if unreadable). */
export function loadState(context: IPollFunctions): PollState | undefined {
	const saved = context.getWorkflowStaticData('node')[KEY] as IDataObject | undefined;
	if (!saved || saved.version !== 1 || typeof saved.feeds !== 'object') return undefined;
	return JSON.parse(JSON.stringify(saved)) as PollState;
}

/**
 * Replaces the saved state in one assignment, after every request succeeded: a poll that fails
 * leaves the state as it was (n8n keeps the workflow's static data in memory between polls).
 * n8n 2.40 writes it to its database at activation and when a poll returns items, not after a
 * poll that returns null: what such a poll changed (a re-read event list) is redone after a
 * restart, and must never be needed to avoid a repeat. An unchanged state is not written.
 */
export function saveState(context: IPollFunctions, previous: PollState | undefined, next: PollState): void {
	if (previous && JSON.stringify(previous) === JSON.stringify(next)) return;
	context.getWorkflowStaticData('node')[KEY] = JSON.parse(JSON.stringify(next)) as IDataObject;
}
