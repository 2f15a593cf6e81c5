import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequest, MAX_PAGE_SIZE } from '../transport';
import { readListPage } from '../transport/listEnvelope';
import { nameOf } from './loadOptions';


/** Events for the resource locator: one page per scroll, filtered by name on this side (the API has no text search). */
export async function searchEvents(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken ?? 1) || 1;
	const body = await apiRequest.call(this, 'GET', '/event-points', {
		qs: { page, itemsPerPage: MAX_PAGE_SIZE, 'order[dateStarted]': 'asc' },
	});
	const list = readListPage(body);
	const events = list?.items ?? [];
	const wanted = filter?.trim().toLowerCase();
	const results = events
		.map((event) => {
			const day = String(event.dateStarted ?? '').slice(0, 16).replace('T', ' ');
			const venue = nameOf(event.venue);
			return {
				name: [event.eventName ?? `Event ${String(event.id)}`, day, venue].filter(Boolean).join(' · '),
				value: String(event.id),
			};
		})
		.filter((result) => !wanted || result.name.toLowerCase().includes(wanted) || result.value === wanted);
	const more = list?.total !== undefined ? page * MAX_PAGE_SIZE < list.total : events.length === MAX_PAGE_SIZE;
	return { results, paginationToken: more ? String(page + 1) : undefined };
}
