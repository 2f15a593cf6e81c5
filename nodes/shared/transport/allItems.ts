import type { IDataObject } from 'n8n-workflow';

import { apiError } from './errors';
import type { ListPage } from './listEnvelope';
import { MAX_PAGES_IN_FLIGHT } from './pages';
import { MAX_PAGE_SIZE, Pager } from './paging';
import type { RequestSettings } from './request';
import type { ApiContext } from './target';

export interface PageSettings extends RequestSettings {
	/** Stop once this many items are collected; undefined = Return All. */
	limit?: number;
	/**
	 * Ceiling of the pages fetched at once (Max Pages in Flight); MAX_PAGES_IN_FLIGHT when absent.
	 */
	maxPagesInFlight?: number;
	/** Keeps only the items it accepts (filters the API lacks); Limit counts kept items. */
	keep?: (item: IDataObject) => boolean;
}

/**
 * Every item of a list, page by page (`page` from 1, `itemsPerPage` at most 100), for any
 * envelope, in order. Page 1 comes alone; then pages go out ahead in a window (paging.ts) up to
 * the last page a stated total or Limit allows, or, without a total, until a short page. A service
 * that pages by fewer items than asked while its total says more is asked for pages of its own
 * size; one whose next page is empty or the same is read to its end, the total being too high.
 */
export async function apiRequestAllItems(
	this: ApiContext,
	path: string,
	qs: IDataObject = {},
	settings: PageSettings = {},
): Promise<IDataObject[]> {
	const { limit, keep } = settings;
	// A client-side filter cannot know how many pages Limit needs: read full pages.
	const perPage = Math.min(MAX_PAGE_SIZE, keep ? MAX_PAGE_SIZE : (limit ?? MAX_PAGE_SIZE));
	// What the pages after the first ask: the service's own page size once page 1 shows it.
	let size = perPage;
	const pager = new Pager(this, {
		path,
		qs,
		settings,
		pageOf: (page) => ({ page, itemsPerPage: size }),
		unreadable: (reason, body) =>
			apiError(this.getNode(), {
				method: 'GET',
				path,
				status: 200,
				body,
				attempts: 1,
				waitedMs: 0,
				itemIndex: settings.itemIndex,
				reason,
			}),
	});
	const kept = (items: IDataObject[]) => (keep ? items.filter(keep) : items);
	const wanted = limit ?? Infinity;

	let previous = await pager.first();
	const collected = kept(previous.items);
	let read = previous.items.length;
	const finished = (list: ListPage) =>
		collected.length >= wanted ||
		read >= (list.total ?? Infinity) ||
		list.items.length === 0 ||
		(list.total === undefined && list.items.length < perPage);
	if (!finished(previous)) {
		// The last page that can hold an item needed: from the total and, without a filter, from Limit.
		const needed = Math.min(previous.total ?? Infinity, keep ? Infinity : wanted);
		size = Math.min(perPage, previous.items.length);
		const ceiling = settings.maxPagesInFlight ?? MAX_PAGES_IN_FLIGHT;
		await pager.window(2, Math.ceil(needed / size), ceiling, (page, answered) => {
			// No budget: every page is answered.
			const list = answered!;
			// Past a short page 1, an empty page or page 1 again means the total was too high.
			if (size < perPage && (list.items.length === 0 || pager.repeats(previous, list)))
				return false;
			pager.expectMoved(page, previous, list);
			read += list.items.length;
			collected.push(...kept(list.items));
			previous = list;
			return !finished(list);
		});
	}
	return limit === undefined ? collected : collected.slice(0, limit);
}
