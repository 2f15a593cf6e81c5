import type { ILoadOptionsFunctions, INodePropertyOptions, IPollFunctions } from 'n8n-workflow';

import { eventLabel } from '../../shared/methods/loadOptions';
import { apiRequestAllItems, type RequestSettings } from '../../shared/transport';
import { recordId } from './feed';
import type { WatchedEvents } from './state';

/** The spec's catalog guidance: sync the catalog every 5 to 15 minutes. */
export const EVENT_LIST_MAX_AGE_MS = 15 * 60_000;

export interface EventWatch {
	/** Events whose orders this poll reads. */
	ids: string[];
	/**
	 * Events that left the list since the last reading: their feeds are read until records listed
	 * late have had their Settlement Lag, then rest.
	 */
	left: string[];
	/**
	 * The list to save; `from` (where an event seen for the first time later starts) is the caller's
	 * on a first reading.
	 */
	events: Omit<WatchedEvents, 'from'> & { from?: number };
}

/**
 * The visible events, from static data while the list is younger than 15 minutes (this machine's
 * clock: only the list's age), else read again (every page).
 */
export async function watchedEvents(
	this: IPollFunctions,
	saved: WatchedEvents | undefined,
	now: number,
	settings: RequestSettings,
): Promise<EventWatch> {
	const age = saved ? now - saved.listedAt : Infinity;
	if (saved && age >= 0 && age < EVENT_LIST_MAX_AGE_MS)
		return { ids: saved.ids, left: [], events: saved };
	const ids = (await apiRequestAllItems.call(this, '/event-points', {}, settings)).map(recordId);
	const listed = new Set(ids);
	return {
		ids,
		left: (saved?.ids ?? []).filter((id) => !listed.has(id)),
		events: { ids, listedAt: now, from: saved?.from },
	};
}

/** The Events dropdown: visible events as "name · start · venue". */
export async function getWatchableEvents(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const events = await apiRequestAllItems.call(this, '/event-points', {
		'order[dateStarted]': 'asc',
	});
	return events.map((event) => ({ name: eventLabel(event), value: recordId(event) }));
}
