import { createHmac } from 'node:crypto';

import { DAY, HOUR } from './clock';
import type { EventPoint, Localized, Place, PriceCategory, Sector, Ticket } from './model';
import type { SandboxOptions } from './options';
import { Random } from './random';
import { Store } from './store';
import * as words from './words';

export const ORGANISER = 'organiser';
export const PARTNER = 'partner';

/** Keys are derived from the seed, so a given seed always prints the same keys. */
export function apiKeyFor(options: SandboxOptions, slug: string): string {
	const prefix = options.environment === 'production' ? 'pe_live' : 'pe_test';
	const digest = createHmac('sha256', `seed:${options.seed}`)
		.update(`${options.environment}:${slug}`)
		.digest('hex');
	return `${prefix}_${slug}_${digest.slice(0, 24)}`;
}

export function seedStore(options: SandboxOptions, now: number): Store {
	const store = new Store();
	const random = new Random(options.seed);
	store.companies.push(
		{ id: 1, slug: ORGANISER, name: 'Stadthalle Events GmbH' },
		{ id: 2, slug: PARTNER, name: 'Ticketshop Partner AG' },
	);
	store.apiKeys = store.companies.map((company) => ({
		id: company.id,
		key: apiKeyFor(options, company.slug),
		companyId: company.id,
	}));
	seedReferences(store, random, now);

	const [organiser, partner] = store.companies;
	const kinds: Array<{ count: number; companies: number[]; archived: boolean }> = [
		{ count: options.events, companies: [organiser.id, partner.id], archived: false },
		{ count: options.privateEvents, companies: [organiser.id], archived: false },
		{ count: options.archivedEvents, companies: [organiser.id, partner.id], archived: true },
	];
	let index = 0;
	for (const kind of kinds) {
		for (let i = 0; i < kind.count; i++, index++) {
			const places =
				index === 0 && options.bigEventPlaces > 0 ? options.bigEventPlaces : options.placesPerEvent;
			const event = createEvent(store, random, options, now, {
				index,
				places,
				archived: kind.archived,
			});
			kind.companies.forEach((id) => event.companyIds.add(id));
			store.addEvent(event);
			// Event 1003 is sold out; other halls start with some seats sold elsewhere.
			const soldShare = index === 2 ? 1 : 0.15;
			for (const place of event.places)
				if (random.chance(soldShare)) store.setPlaceState(place, 'sold');
		}
	}
	for (const company of store.companies) seedWidgetOrders(store, random, options, now, company.id);
	return store;
}

function seedReferences(store: Store, random: Random, now: number): void {
	words.COUNTRIES.forEach((country, i) => store.countries.push({ id: i + 1, ...country }));
	words.CITIES.forEach((city, i) => {
		const countryId = store.countries.find((country) => country.code === city.country)!.id;
		store.cities.push({ id: 11 + i, countryId, name: city.name });
	});
	for (const city of store.cities) {
		for (const kind of words.VENUE_KINDS.slice(0, 2)) {
			const venueId = 100 + store.venues.length + 1;
			const name = `${kind} ${city.name.de}`;
			store.venues.push({
				id: venueId,
				cityId: city.id,
				name,
				address: `${random.pick(words.STREETS)} ${random.int(1, 120)}, ${city.name.de}`,
			});
			for (const hall of words.HALL_NAMES.slice(0, 2)) {
				store.venueHalls.push({
					id: 400 + store.venueHalls.length + 1,
					venueId,
					name: hall,
					capacity: random.int(3, 40) * 100,
				});
			}
		}
	}
	words.CATEGORIES.forEach((category, i) => {
		store.categories.push({ id: 21 + i, name: category.name });
		category.genres.forEach((genre) =>
			store.genres.push({ id: 51 + store.genres.length, categoryId: 21 + i, name: genre }),
		);
	});
	const codes: Array<[string, string, number, number]> = [
		[ORGANISER, 'ORGANISER15', 15, 120],
		[PARTNER, 'PARTNER10', 10, 90],
		[PARTNER, 'WINTER20', 20, 30],
		[PARTNER, 'SUMMER5', 5, -10],
	];
	codes.forEach(([slug, code, discountPercent, days], i) => {
		const companyId = store.companyBySlug(slug)!.id;
		store.promoCodes.push({
			id: 61 + i,
			companyId,
			code,
			discountPercent,
			validFrom: now - 60 * DAY,
			validTo: now + days * DAY,
		});
	});
}

interface EventSpec {
	index: number;
	places: number;
	archived: boolean;
}

function createEvent(
	store: Store,
	random: Random,
	options: SandboxOptions,
	now: number,
	spec: EventSpec,
): EventPoint {
	const id = store.nextId('eventPoint');
	// Consecutive event points of one event (its dates) share eventId, name and venue.
	const previous = store.events[store.events.length - 1];
	const sameEvent =
		previous &&
		!spec.archived &&
		spec.index % 3 !== 0 &&
		random.chance(0.5) &&
		previous.dateEndOfSale > now;
	const hall = sameEvent
		? store.venueHalls.find((h) => h.id === previous.venueHallId)!
		: random.pick(store.venueHalls);
	const venue = store.venues.find((v) => v.id === hall.venueId)!;
	const city = store.cities.find((c) => c.id === venue.cityId)!;
	const genre = sameEvent
		? store.genres.find((g) => g.id === previous.genreIds[0])!
		: random.pick(store.genres);
	const name: Localized = sameEvent
		? previous.name
		: (() => {
				const title = random.pick(words.TITLES);
				const performer = random.pick(words.PERFORMERS);
				return { en: `${performer}: ${title.en}`, de: `${performer}: ${title.de}` };
			})();
	const day = Math.floor(now / DAY) * DAY;
	const dateStarted = spec.archived
		? day - (spec.index + 2) * DAY + 19 * HOUR
		: day + (7 + spec.index) * DAY + (18 + (spec.index % 3)) * HOUR;
	const eventId = sameEvent ? previous.eventId : store.nextId('eventId');
	const event: EventPoint = {
		id,
		eventId,
		name,
		description: words.describe(name, venue.name, city.name),
		poster: `https://media.sandbox.invalid/posters/${eventId}.jpg`,
		media: [
			{ type: 'image', url: `https://media.sandbox.invalid/events/${eventId}/1.jpg` },
			{ type: 'image', url: `https://media.sandbox.invalid/events/${eventId}/2.jpg` },
		],
		dateStarted,
		dateEnd: dateStarted + random.int(2, 3) * HOUR,
		dateEndOfSale: dateStarted - HOUR,
		venueId: venue.id,
		venueHallId: hall.id,
		cityId: city.id,
		countryId: city.countryId,
		categoryIds: [genre.categoryId],
		genreIds: [genre.id],
		minAgeLimit: random.pick([0, 0, 6, 12, 16, 18]),
		maxAgeLimit: random.chance(0.1) ? 14 : null,
		widgetHash: random.hex(32),
		organiserId: store.companyBySlug(ORGANISER)!.id,
		companyIds: new Set(),
		sectors: [],
		places: [],
		placeIndex: new Map(),
		available: 0,
		version: 0,
		updatedAt: now,
	};
	buildHall(store, random, event, spec.places);
	return event;
}

/** Sectors of up to 500 seats in rows of up to 20, each with a full and a reduced price. */
export function buildHall(
	store: Store,
	random: Random,
	event: EventPoint,
	placeCount: number,
): void {
	const sectorCount = Math.min(100, Math.max(placeCount > 1 ? 2 : 1, Math.ceil(placeCount / 500)));
	let remaining = placeCount;
	for (let s = 0; s < sectorCount; s++) {
		const size = Math.ceil(remaining / (sectorCount - s));
		remaining -= size;
		const base = 20 + 10 * random.int(0, 10);
		const priceCategories: PriceCategory[] = [
			{ id: store.nextId('priceCategory'), name: 'Standard', price: base },
			{
				id: store.nextId('priceCategory'),
				name: 'Reduced',
				price: Math.round(base * 0.7 * 100) / 100,
			},
		];
		const sectorName = words.SECTOR_NAMES[s] ?? `Sector ${s + 1}`;
		const sector: Sector = {
			id: store.nextId('sector'),
			eventPointId: event.id,
			name: sectorName,
			places: [],
			priceCategories,
		};
		for (let n = 0; n < size; n++) {
			const place: Place = {
				id: store.nextId('place'),
				eventPointId: event.id,
				sectorId: sector.id,
				sectorName,
				rowName: String(Math.floor(n / 20) + 1),
				placeName: String((n % 20) + 1),
				priceCategories,
				barcode: store.newBarcode(random),
				state: 'free',
			};
			sector.places.push(place);
			event.places.push(place);
			event.placeIndex.set(place.id, place);
		}
		event.sectors.push(sector);
	}
	event.available = event.places.length;
}

function seedWidgetOrders(
	store: Store,
	random: Random,
	options: SandboxOptions,
	now: number,
	companyId: number,
): void {
	const onSale = store.events.filter(
		(e) => e.companyIds.has(companyId) && e.dateEndOfSale > now && e.available > 0,
	);
	if (onSale.length === 0) return;
	const at: number[] = [];
	for (let i = 0; i < options.widgetOrders; i++)
		at.push(now - random.int(1, 30 * 24 * 60) * 60_000);
	at.sort((a, b) => a - b);
	for (const time of at) {
		const event = random.pick(onSale);
		const free = event.places.filter((p) => p.state === 'free').slice(0, random.int(1, 3));
		if (free.length === 0) continue;
		const order = recordWidgetSale(store, random, event, free, companyId, time);
		if (random.chance(1 / 6))
			recordWidgetRefund(store, random, order.id, Math.min(now, time + random.int(1, 48) * HOUR));
	}
}

/** A sale made in the partner's site widget: places sold, barcodes issued at once. */
export function recordWidgetSale(
	store: Store,
	random: Random,
	event: EventPoint,
	places: Place[],
	companyId: number,
	at: number,
) {
	const id = store.nextId('widgetOrder');
	const tickets: Ticket[] = places.map((place) => {
		store.setPlaceState(place, 'sold');
		const category = place.priceCategories[0];
		return {
			ticketId: store.nextId('ticket'),
			placeId: place.id,
			priceCategoryId: category.id,
			price: category.price,
			discountPrice: category.price,
			status: 'sold',
			barcode: place.barcode,
		};
	});
	const order = {
		id,
		companyId,
		eventPointId: event.id,
		status: 'paid' as const,
		createdAt: at,
		payAt: at,
		email: `buyer${id}@example.com`,
		tickets,
	};
	store.widgetOrders.push(order);
	return order;
}

/**
 * A refund of some (`tickets`, a count) or all of a widget order's tickets still sold: a record of
 * its own, so one order can have several; the order is `refund` once none is left sold.
 */
export function recordWidgetRefund(
	store: Store,
	random: Random,
	orderId: number,
	at: number,
	tickets?: number,
) {
	const order = store.widgetOrders.find((o) => o.id === orderId);
	if (!order || order.status !== 'paid') return undefined;
	const event = store.eventIndex.get(order.eventPointId)!;
	const sold = order.tickets.filter((t) => t.status === 'sold');
	const taken = sold.slice(0, Math.max(1, Math.min(tickets ?? sold.length, sold.length)));
	for (const ticket of taken) {
		ticket.status = 'refund';
		ticket.refundedAt = at;
		const place = event.placeIndex.get(ticket.placeId)!;
		place.barcode = store.newBarcode(random);
		store.setPlaceState(place, 'free');
	}
	if (order.tickets.every((t) => t.status === 'refund')) order.status = 'refund';
	const amount = taken.reduce((sum, t) => sum + t.discountPrice, 0);
	const refund = {
		id: store.nextId('widgetRefund'),
		companyId: order.companyId,
		orderId,
		eventPointId: order.eventPointId,
		refundedAt: at,
		ticketIds: taken.map((t) => t.ticketId),
		amount,
	};
	store.widgetRefunds.push(refund);
	return refund;
}
