import { z } from 'zod';

import type { Ctx } from '../context';
import { notFound } from '../http';
import type { EventPoint } from '../model';
import { check, numericId, pagination } from '../validate';

export function idParam(params: Record<string, string>, name: string): number {
	return Number(check(numericId, params[name], name));
}

/** Pagination query shared by every list endpoint, plus the endpoint's own filters. */
export function listQuery<T extends z.ZodRawShape>(
	ctx: Ctx,
	filters: T,
	repeatable: string[] = [],
) {
	const raw: Record<string, unknown> = {};
	for (const [key, value] of ctx.query) {
		const base = key.endsWith('[]') ? key.slice(0, -2) : key;
		if (repeatable.includes(base)) {
			const name = `${base}[]`;
			raw[name] = [...((raw[name] as string[] | undefined) ?? []), value];
		} else raw[key] = value;
	}
	return check(z.object({ ...pagination, ...filters }), raw, 'query');
}

/** An event point linked to the caller's company; 404 otherwise (visibility is access). */
export function linkedEvent(
	ctx: Ctx,
	id: number,
	options: { includeArchived?: boolean } = {},
): EventPoint {
	const event = ctx.app.store.eventIndex.get(id);
	const visible =
		event &&
		event.companyIds.has(ctx.company.id) &&
		(options.includeArchived || event.dateEndOfSale > ctx.app.clock.now());
	if (!event || !visible)
		throw notFound(
			`Event point ${id} (it may not be linked to your company, or its sales have ended)`,
		);
	return event;
}

/** `order[...]` as asked; under the ignore-sort quirk, newest first whatever was asked. */
export function ordered<T extends { id: number }>(
	ctx: Ctx,
	items: T[],
	key: (item: T) => number | null,
	direction: 'asc' | 'desc' | undefined,
): T[] {
	if (ctx.app.quirks.ignoreSort) return sortBy(items, key, 'desc');
	return direction ? sortBy(items, key, direction) : items;
}

/** Sorts by a timestamp field, then id, in the requested direction. */
export function sortBy<T extends { id: number }>(
	items: T[],
	key: (item: T) => number | null,
	direction: 'asc' | 'desc' = 'asc',
): T[] {
	const sign = direction === 'desc' ? -1 : 1;
	return [...items].sort((a, b) => sign * ((key(a) ?? 0) - (key(b) ?? 0) || a.id - b.id));
}
