import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequest, MAX_PAGE_SIZE, readListPage } from '../transport';
import { CHOOSE_EVENT, currentId, eventLabel, waitingFor } from './loadOptions';

/**
 * One page of a list as locator results, filtered by text on this side (the API has no text
 * search).
 */
async function searchPage(
	context: ILoadOptionsFunctions,
	path: string,
	label: (record: IDataObject) => string,
	filter?: string,
	paginationToken?: string,
	qs: IDataObject = {},
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken ?? 1) || 1;
	const list = readListPage(
		await apiRequest.call(context, 'GET', path, {
			qs: { ...qs, page, itemsPerPage: MAX_PAGE_SIZE },
		}),
	);
	const records = list?.items ?? [];
	const wanted = filter?.trim().toLowerCase();
	const results = records
		.map((record) => ({ name: label(record), value: String(record.id) }))
		.filter(
			(result) => !wanted || result.name.toLowerCase().includes(wanted) || result.value === wanted,
		);
	const more =
		list?.total !== undefined
			? page * MAX_PAGE_SIZE < list.total
			: records.length === MAX_PAGE_SIZE;
	return { results, paginationToken: more ? String(page + 1) : undefined };
}

/** Events as `name · start · venue`, soonest first, one page per scroll. */
export async function searchEvents(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(this, '/event-points', eventLabel, filter, paginationToken, {
		'order[dateStarted]': 'asc',
	});
}

const availability = (record: IDataObject) =>
	Number(record.availableCount) > 0 ? 'available' : 'not available';

/** Sectors of the chosen event, with how many places are free when the service says. */
export async function searchSectors(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const eventId = currentId(this, 'eventId');
	if (!eventId) return { results: waitingFor(`${CHOOSE_EVENT}: its sectors are listed here`) };
	return await searchPage(
		this,
		`/event-points/${eventId}/sectors`,
		(sector) => {
			const name = String(sector.name ?? `Sector ${String(sector.id)}`);
			return sector.availableCount === undefined
				? name
				: `${name} · ${String(sector.availableCount)} available`;
		},
		filter,
		paginationToken,
	);
}

/**
 * Places of the chosen event, or of the chosen sector when the operation has one: sector · row ·
 * place · availability.
 */
export async function searchPlaces(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const eventId = currentId(this, 'eventId');
	if (!eventId) return { results: waitingFor(`${CHOOSE_EVENT}: its places are listed here`) };
	const sectorId = currentId(this, 'sectorId');
	const path = sectorId
		? `/event-points/${eventId}/sectors/${sectorId}/places`
		: `/event-points/${eventId}/places`;
	return await searchPage(
		this,
		path,
		(place) =>
			[
				place.sectorName,
				place.rowName && `Row ${String(place.rowName)}`,
				`Place ${String(place.placeName ?? place.id)}`,
				availability(place),
			]
				.filter(Boolean)
				.join(' · '),
		filter,
		paginationToken,
	);
}
