import type { IDataObject } from 'n8n-workflow';

export interface ListPage {
	items: IDataObject[];
	/** Total across all pages, when the envelope states one. */
	total?: number;
}

const WRAPPERS = ['hydra:member', 'member', 'items', 'data'] as const;
const TOTALS = ['hydra:totalItems', 'totalItems', 'total'] as const;

function totalOf(body: IDataObject): number | undefined {
	const meta = body.meta as IDataObject | undefined;
	for (const source of [body, meta]) {
		if (!source || typeof source !== 'object') continue;
		for (const key of TOTALS) {
			const value = Number(source[key]);
			if (source[key] !== undefined && source[key] !== null && Number.isFinite(value)) return value;
		}
	}
	return undefined;
}

/**
 * Reads one page of any list envelope the API may use (the spec does not show it): a plain
 * array, JSON-LD `hydra:member` / `member` with their totals, or `items` / `data` wrappers.
 * Returns undefined for a body that is none of these, so the caller can report it.
 */
export function readListPage(body: unknown): ListPage | undefined {
	if (Array.isArray(body)) return { items: body as IDataObject[] };
	if (!body || typeof body !== 'object') return undefined;
	const object = body as IDataObject;
	for (const key of WRAPPERS) {
		if (Array.isArray(object[key]))
			return { items: object[key] as IDataObject[], total: totalOf(object) };
	}
	return undefined;
}
