import type { Ctx } from '../context';
import { isoTime } from '../clock';
import type { Router } from '../http';
import type { Localized } from '../model';
import { listQuery } from './common';

/** Reference lists: exported whole, paginated like every list, names in the caller's language. */
export function registerReference(router: Router<Ctx>): void {
	const list = <T extends { id: number }>(
		path: string,
		type: string,
		items: (ctx: Ctx) => T[],
		shape: (item: T, ctx: Ctx) => Record<string, unknown>,
	) =>
		router.add('GET', path, (ctx) => {
			const q = listQuery(ctx, {});
			return ctx.app.page(ctx, items(ctx), (item) => shape(item, ctx), {
				path,
				type,
				iri: (id) => `/api/v2${path}/${id}`,
				...q,
			});
		});
	const name = (n: Localized, ctx: Ctx) => n[ctx.lang];
	const store = (ctx: Ctx) => ctx.app.store;

	list(
		'/countries',
		'Country',
		(ctx) => store(ctx).countries,
		(c, ctx) => ({ id: c.id, code: c.code, name: name(c.name, ctx) }),
	);
	list(
		'/cities',
		'City',
		(ctx) => store(ctx).cities,
		(c, ctx) => {
			const country = store(ctx).countries.find((x) => x.id === c.countryId)!;
			return {
				id: c.id,
				name: name(c.name, ctx),
				country: { id: country.id, name: name(country.name, ctx), code: country.code },
			};
		},
	);
	list(
		'/venues',
		'Venue',
		(ctx) => store(ctx).venues,
		(v, ctx) => {
			const city = store(ctx).cities.find((x) => x.id === v.cityId)!;
			return {
				id: v.id,
				name: v.name,
				address: v.address,
				city: { id: city.id, name: name(city.name, ctx) },
			};
		},
	);
	list(
		'/venue-halls',
		'VenueHall',
		(ctx) => store(ctx).venueHalls,
		(h, ctx) => {
			const venue = store(ctx).venues.find((x) => x.id === h.venueId)!;
			return {
				id: h.id,
				name: h.name,
				capacity: h.capacity,
				venue: { id: venue.id, name: venue.name },
			};
		},
	);
	list(
		'/categories',
		'Category',
		(ctx) => store(ctx).categories,
		(c, ctx) => ({ id: c.id, name: name(c.name, ctx) }),
	);
	list(
		'/genres',
		'Genre',
		(ctx) => store(ctx).genres,
		(g, ctx) => {
			const category = store(ctx).categories.find((x) => x.id === g.categoryId)!;
			return {
				id: g.id,
				name: name(g.name, ctx),
				category: { id: category.id, name: name(category.name, ctx) },
			};
		},
	);
	// Only the codes of the caller's company that are valid now.
	list(
		'/promocodes',
		'PromoCode',
		(ctx) =>
			store(ctx).promoCodes.filter(
				(p) =>
					p.companyId === ctx.company.id &&
					p.validFrom <= ctx.app.clock.now() &&
					p.validTo > ctx.app.clock.now(),
			),
		(p) => ({
			id: p.id,
			code: p.code,
			discountPercent: p.discountPercent,
			validFrom: isoTime(p.validFrom),
			validTo: isoTime(p.validTo),
		}),
	);
}
