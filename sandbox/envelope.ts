import { JsonText } from './http';
import type { Envelope } from './options';

export const DEFAULT_ITEMS_PER_PAGE = 30;
export const API_PREFIX = '/api/v2';

export interface Collection {
	/** Path of the collection under /api/v2, e.g. `/event-points`. */
	path: string;
	/** JSON-LD type of one member, e.g. `EventPoint`. */
	type: string;
	/** IRI of a member (JSON-LD envelopes add it as `@id`); none for records without one. */
	iri?: (id: unknown) => string;
	query: URLSearchParams;
	page?: number;
	itemsPerPage?: number;
	/** Added to the reported total (the total-drift quirk). */
	totalShift?: number;
}

const MEMBERS = '\u0000members\u0000';

/**
 * One page of `all` in the envelope the sandbox is switched to (docs/architecture.md,
 * "List envelopes"). Members arrive as JSON texts (`toJson`), so hot lists can serve cached
 * texts without re-serializing.
 */
export function renderPage<T extends { id?: unknown }>(
	envelope: Envelope,
	all: readonly T[],
	toJson: (item: T) => string,
	c: Collection,
): JsonText {
	const page = c.page ?? 1;
	const perPage = c.itemsPerPage ?? DEFAULT_ITEMS_PER_PAGE;
	const start = (page - 1) * perPage;
	const slice = all.slice(start, start + perPage);
	const total = all.length + (c.totalShift ?? 0);
	let members: string[];
	let wrapper: unknown;
	if (envelope === 'hydra' || envelope === 'member') {
		const p = envelope === 'hydra' ? 'hydra:' : '';
		// JSON-LD members lead with @id and @type, as API Platform writes them.
		members = slice.map((item) => {
			const head = JSON.stringify({ ...(c.iri ? { '@id': c.iri(item.id) } : {}), '@type': c.type });
			const body = toJson(item);
			return body === '{}' ? head : `${head.slice(0, -1)},${body.slice(1)}`;
		});
		const last = Math.max(1, Math.ceil(total / perPage));
		const link = (n: number) => {
			const q = new URLSearchParams(c.query);
			q.set('page', String(n));
			return `${API_PREFIX}${c.path}?${q.toString()}`;
		};
		const view: Record<string, string> = {
			'@id': link(page),
			'@type': `${p}PartialCollectionView`,
			[`${p}first`]: link(1),
			[`${p}last`]: link(last),
		};
		if (page > 1) view[`${p}previous`] = link(page - 1);
		if (page < last) view[`${p}next`] = link(page + 1);
		wrapper = {
			'@context': `${API_PREFIX}/contexts/${c.type}`,
			'@id': `${API_PREFIX}${c.path}`,
			'@type': envelope === 'hydra' ? 'hydra:Collection' : 'Collection',
			[`${p}member`]: MEMBERS,
			[`${p}totalItems`]: total,
			[`${p}view`]: view,
		};
	} else {
		members = slice.map(toJson);
		wrapper =
			envelope === 'items'
				? { items: MEMBERS }
				: envelope === 'data'
					? { data: MEMBERS, meta: { total, page, itemsPerPage: perPage } }
					: MEMBERS;
	}
	return new JsonText(
		JSON.stringify(wrapper).replace(JSON.stringify(MEMBERS), () => `[${members.join(',')}]`),
	);
}

/** A single resource: JSON-LD envelopes add `@context`, `@id` and `@type`. */
export function renderItem(
	envelope: Envelope,
	type: string,
	iri: string,
	item: Record<string, unknown>,
): unknown {
	if (envelope !== 'hydra' && envelope !== 'member') return item;
	return {
		'@context': `${API_PREFIX}/contexts/${type}`,
		'@id': `${API_PREFIX}${iri}`,
		'@type': type,
		...item,
	};
}
