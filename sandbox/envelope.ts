import type { Envelope } from './options';

export const DEFAULT_ITEMS_PER_PAGE = 30;
export const API_PREFIX = '/api/v2';

export interface Collection {
	/** Path of the collection under /api/v2, e.g. `/event-points`. */
	path: string;
	/** JSON-LD type of one member, e.g. `EventPoint`. */
	type: string;
	/** IRI of a member (JSON-LD envelopes add it as `@id`); none for records without one. */
	iri?: (item: Record<string, unknown>) => string;
	query: URLSearchParams;
	page?: number;
	itemsPerPage?: number;
}

/** One page of `items` in the envelope the sandbox is switched to (DESIGN section 4). */
export function renderPage<T>(envelope: Envelope, all: readonly T[], serialize: (item: T) => Record<string, unknown>, c: Collection): unknown {
	const page = c.page ?? 1;
	const perPage = c.itemsPerPage ?? DEFAULT_ITEMS_PER_PAGE;
	const start = (page - 1) * perPage;
	const members = all.slice(start, start + perPage).map(serialize);
	const total = all.length;
	switch (envelope) {
		case 'array':
			return members;
		case 'items':
			return { items: members };
		case 'data':
			return { data: members, meta: { total, page, itemsPerPage: perPage } };
		case 'hydra':
		case 'member': {
			const p = envelope === 'hydra' ? 'hydra:' : '';
			const decorated = members.map((m) => ({ ...(c.iri ? { '@id': c.iri(m) } : {}), '@type': c.type, ...m }));
			const last = Math.max(1, Math.ceil(total / perPage));
			const link = (n: number) => {
				const q = new URLSearchParams(c.query);
				q.set('page', String(n));
				return `${API_PREFIX}${c.path}?${q.toString()}`;
			};
			const view: Record<string, string> = { '@id': link(page), '@type': `${p}PartialCollectionView`, [`${p}first`]: link(1), [`${p}last`]: link(last) };
			if (page > 1) view[`${p}previous`] = link(page - 1);
			if (page < last) view[`${p}next`] = link(page + 1);
			return {
				'@context': `${API_PREFIX}/contexts/${c.type}`,
				'@id': `${API_PREFIX}${c.path}`,
				'@type': envelope === 'hydra' ? 'hydra:Collection' : 'Collection',
				[`${p}member`]: decorated,
				[`${p}totalItems`]: total,
				[`${p}view`]: view,
			};
		}
	}
}

/** A single resource: JSON-LD envelopes add `@context`, `@id` and `@type`. */
export function renderItem(envelope: Envelope, type: string, iri: string, item: Record<string, unknown>): unknown {
	if (envelope !== 'hydra' && envelope !== 'member') return item;
	return { '@context': `${API_PREFIX}/contexts/${type}`, '@id': `${API_PREFIX}${iri}`, '@type': type, ...item };
}
