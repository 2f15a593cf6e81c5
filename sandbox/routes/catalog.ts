import { z } from 'zod';

import type { Ctx } from '../context';
import { badRequest, HttpError, type Router } from '../http';
import type { EventPoint } from '../model';
import { isoDay, numericId, sortDirection } from '../validate';
import { idParam, linkedEvent, listQuery, ordered } from './common';

const ids = z.array(numericId);
const eventFilters = {
	'order[dateStarted]': sortDirection.optional(),
	'dateStarted[after]': isoDay.optional(),
	'dateStarted[before]': isoDay.optional(),
	'city.id[]': ids.optional(),
	'categories.id[]': ids.optional(),
	'genres.id[]': ids.optional(),
	'venueHall.id': numericId.optional(),
};
const REPEATABLE = ['city.id', 'categories.id', 'genres.id'];

function listEvents(ctx: Ctx, archived: boolean) {
	const q = listQuery(ctx, eventFilters, REPEATABLE);
	const now = ctx.app.clock.now();
	const has = (wanted: string[] | undefined, values: number[]) =>
		!wanted || values.some((v) => wanted.includes(String(v)));
	// API Platform's date filter: `after` is >=, `before` is <=, compared with the day's midnight.
	let events = ctx.app.store.events.filter(
		(e: EventPoint) =>
			e.companyIds.has(ctx.company.id) &&
			(archived ? e.dateEndOfSale <= now : e.dateEndOfSale > now) &&
			(q['dateStarted[after]'] === undefined || e.dateStarted >= q['dateStarted[after]']) &&
			(q['dateStarted[before]'] === undefined || e.dateStarted <= q['dateStarted[before]']) &&
			has(q['city.id[]'], [e.cityId]) &&
			has(q['categories.id[]'], e.categoryIds) &&
			has(q['genres.id[]'], e.genreIds) &&
			(q['venueHall.id'] === undefined || String(e.venueHallId) === q['venueHall.id']),
	);
	if (ctx.app.quirks.ignoreSort) events = ordered(ctx, events, (e) => e.dateStarted, undefined);
	else if (q['order[dateStarted]'] === 'desc') events = [...events].reverse();
	return ctx.app.page(ctx, events, (e) => ctx.app.serialize.event(e, ctx.lang), {
		path: archived ? '/event-points-archived' : '/event-points',
		type: 'EventPoint',
		iri: (id) => `/api/v2/event-points/${id}`,
		page: q.page,
		itemsPerPage: q.itemsPerPage,
	});
}

export function registerCatalog(router: Router<Ctx>): void {
	router.add('POST', '/token', (ctx) => {
		const body = ctx.body as { apiKey?: unknown } | undefined;
		if (typeof body?.apiKey !== 'string' || body.apiKey === '')
			throw badRequest('apiKey', 'is required (a string)');
		const key = ctx.app.store.apiKeys.find((k) => k.key === body.apiKey);
		if (!key) {
			throw new HttpError(401, {
				code: 'invalid_api_key',
				message:
					`The API key is not valid for the ${ctx.app.options.environment} environment ` +
					'(staging and production keys differ)',
			});
		}
		ctx.app.rateLimit(key.id);
		return { body: { token: ctx.app.issuer.issue(key, ctx.app.clock.now()) } };
	});
	router.add('GET', '/event-points', (ctx) => listEvents(ctx, false));
	router.add('GET', '/event-points-archived', (ctx) => listEvents(ctx, true));
	router.add('GET', '/event-points/{id}', (ctx, params) => {
		const event = linkedEvent(ctx, idParam(params, 'id'));
		return ctx.app.item(
			'EventPoint',
			`/event-points/${event.id}`,
			ctx.app.serialize.event(event, ctx.lang),
		);
	});
}
