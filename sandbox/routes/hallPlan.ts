import type { Ctx } from '../context';
import { HttpError, notFound, type Router } from '../http';
import { idParam, linkedEvent, listQuery } from './common';

const placeIri = (id: unknown) => `/api/v2/places/${id}`;

export function registerHallPlan(router: Router<Ctx>): void {
	router.add('GET', '/event-points/{id}/sectors', (ctx, params) => {
		const event = linkedEvent(ctx, idParam(params, 'id'));
		const q = listQuery(ctx, {});
		return ctx.app.page(ctx, event.sectors, (s) => ctx.app.serialize.sector(s), {
			path: `/event-points/${event.id}/sectors`,
			type: 'Sector',
			iri: (id) => `/api/v2/event-points/${event.id}/sectors/${id}`,
			...q,
		});
	});

	router.add('GET', '/event-points/{id}/sectors/{sectorId}/places', (ctx, params) => {
		const event = linkedEvent(ctx, idParam(params, 'id'));
		const sectorId = idParam(params, 'sectorId');
		const sector = event.sectors.find((s) => s.id === sectorId);
		if (!sector) throw notFound(`Sector ${sectorId} of event point ${event.id}`);
		const q = listQuery(ctx, {});
		return ctx.app.cachedPage(`sector ${sector.id}@${event.version} ${ctx.query}`, () =>
			ctx.app.page(ctx, sector.places, (p) => ctx.app.serialize.placeJson(p), {
				path: `/event-points/${event.id}/sectors/${sector.id}/places`,
				type: 'Place',
				iri: placeIri,
				...q,
			}),
		);
	});

	router.add('GET', '/event-points/{id}/places', (ctx, params) => {
		const event = linkedEvent(ctx, idParam(params, 'id'));
		const q = listQuery(ctx, {});
		return ctx.app.cachedPage(`places ${event.id}@${event.version} ${ctx.query}`, () =>
			ctx.app.page(ctx, event.places, (p) => ctx.app.serialize.placeJson(p), {
				path: `/event-points/${event.id}/places`,
				type: 'Place',
				iri: placeIri,
				...q,
			}),
		);
	});

	router.add('GET', '/event-points/{id}/barcodes', (ctx, params) => {
		const event = linkedEvent(ctx, idParam(params, 'id'), { includeArchived: true });
		if (event.organiserId !== ctx.company.id) {
			throw new HttpError(403, {
				code: 'barcodes_forbidden',
				message:
					'Barcode export is allowed only for events organised by your company; ' +
					'as a partner, take barcodes from the paid order (GET /orders/{id})',
			});
		}
		const q = listQuery(ctx, {});
		return ctx.app.page(ctx, event.places, (p) => ctx.app.serialize.barcode(p), {
			path: `/event-points/${event.id}/barcodes`,
			type: 'Barcode',
			...q,
		});
	});
}
