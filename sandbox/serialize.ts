import { isoTime } from './clock';
import type {
	EventPoint,
	Lang,
	Money,
	Order,
	Place,
	Sector,
	Ticket,
	WidgetOrder,
	WidgetRefund,
} from './model';
import type { Store } from './store';

/** Wire shapes of every record. Only this file decides field names and formats. */
export class Serializer {
	/** The plain-totals quirk: totals and refund amounts as plain numbers. */
	plainTotals = false;

	constructor(
		private readonly store: Store,
		private readonly currency: string,
	) {}

	/** An order's total or a refund's amount: `{ amount, currency }`, or a number (plain-totals). */
	total(amount: number): Money | number {
		const money = this.money(amount);
		return this.plainTotals ? money.amount : money;
	}

	money(amount: number): Money {
		return { amount: Math.round(amount * 100) / 100, currency: this.currency };
	}

	event(event: EventPoint, lang: Lang): Record<string, unknown> {
		const s = this.store;
		const venue = s.venues.find((v) => v.id === event.venueId)!;
		const hall = s.venueHalls.find((h) => h.id === event.venueHallId)!;
		const city = s.cities.find((c) => c.id === event.cityId)!;
		const country = s.countries.find((c) => c.id === event.countryId)!;
		const prices = event.sectors.flatMap((sector) => sector.priceCategories.map((c) => c.price));
		return {
			id: event.id,
			eventId: event.eventId,
			eventName: event.name[lang],
			description: event.description[lang],
			poster: event.poster,
			media: event.media,
			dateStarted: isoTime(event.dateStarted),
			dateEnd: isoTime(event.dateEnd),
			dateEndOfSale: isoTime(event.dateEndOfSale),
			venue: { id: venue.id, name: venue.name, address: venue.address },
			venueHall: { id: hall.id, name: hall.name },
			city: { id: city.id, name: city.name[lang] },
			country: { id: country.id, name: country.name[lang], code: country.code },
			categories: event.categoryIds.map((id) => ({
				id,
				name: s.categories.find((c) => c.id === id)!.name[lang],
			})),
			genres: event.genreIds.map((id) => ({
				id,
				name: s.genres.find((g) => g.id === id)!.name[lang],
			})),
			minPrice: this.money(Math.min(...prices)),
			maxPrice: this.money(Math.max(...prices)),
			countAvailableTickets: event.available,
			minAgeLimit: event.minAgeLimit,
			maxAgeLimit: event.maxAgeLimit,
			widgetHash: event.widgetHash,
		};
	}

	sector(sector: Sector): Record<string, unknown> {
		return {
			id: sector.id,
			eventPointId: sector.eventPointId,
			name: sector.name,
			placesCount: sector.places.length,
			availableCount: sector.places.reduce((n, p) => n + (p.state === 'free' ? 1 : 0), 0),
			priceCategories: sector.priceCategories.map((c) => ({
				id: c.id,
				name: c.name,
				price: this.money(c.price),
			})),
		};
	}

	private readonly placeTexts = new WeakMap<Place, { state: Place['state']; text: string }>();

	/** A place's JSON, cached until its availability changes: hall plans are the heaviest lists. */
	placeJson(place: Place): string {
		const cached = this.placeTexts.get(place);
		if (cached && cached.state === place.state) return cached.text;
		const text = JSON.stringify(this.place(place));
		this.placeTexts.set(place, { state: place.state, text });
		return text;
	}

	place(place: Place): Record<string, unknown> {
		return {
			id: place.id,
			eventPointId: place.eventPointId,
			sectorId: place.sectorId,
			sectorName: place.sectorName,
			rowName: place.rowName,
			placeName: place.placeName,
			availableCount: place.state === 'free' ? 1 : 0,
			priceCategories: place.priceCategories.map((c) => ({
				id: c.id,
				name: c.name,
				price: this.money(c.price),
			})),
		};
	}

	ticket(ticket: Ticket, eventPointId: number): Record<string, unknown> {
		const place = this.store.eventIndex.get(eventPointId)!.placeIndex.get(ticket.placeId)!;
		return {
			ticketId: ticket.ticketId,
			status: ticket.status,
			barcode: ticket.barcode,
			placeId: place.id,
			placeName: place.placeName,
			sectorName: place.sectorName,
			rowName: place.rowName,
			priceCategory: ticket.priceCategoryId,
			price: this.money(ticket.price),
			discountPrice: this.money(ticket.discountPrice),
			...(ticket.refundedAt === undefined ? {} : { refundedAt: isoTime(ticket.refundedAt) }),
		};
	}

	order(order: Order, withTickets: boolean): Record<string, unknown> {
		const live = order.tickets.filter((t) => t.status !== 'refund');
		const totalPrice = live.reduce((n, t) => n + t.discountPrice, 0);
		const totalDiscount = live.reduce((n, t) => n + t.price - t.discountPrice, 0);
		return {
			id: order.id,
			eventPoint: order.eventPointId,
			status: order.status,
			createdAt: isoTime(order.createdAt),
			reservedToDate: isoTime(order.reservedToDate),
			payAt: order.payAt === null ? null : isoTime(order.payAt),
			promocode: order.promoCode,
			ticketsCount: order.tickets.length,
			totalPrice: this.total(totalPrice),
			totalDiscount: this.total(totalDiscount),
			...(withTickets
				? { tickets: order.tickets.map((t) => this.ticket(t, order.eventPointId)) }
				: {}),
		};
	}

	/** A widget order: its total is what was paid, refunds or not (they are records of their own). */
	widgetOrder(order: WidgetOrder, withTickets = true): Record<string, unknown> {
		const total = order.tickets.reduce((n, t) => n + t.discountPrice, 0);
		return {
			id: order.id,
			eventPoint: order.eventPointId,
			status: order.status,
			createdAt: isoTime(order.createdAt),
			payAt: isoTime(order.payAt),
			...(withTickets ? { email: order.email } : {}),
			totalPrice: this.total(total),
			totalDiscount: this.total(0),
			...(withTickets
				? { tickets: order.tickets.map((t) => this.ticket(t, order.eventPointId)) }
				: { ticketsCount: order.tickets.length }),
		};
	}

	widgetRefund(refund: WidgetRefund): Record<string, unknown> {
		return {
			id: refund.id,
			order: refund.orderId,
			eventPoint: refund.eventPointId,
			refundedAt: isoTime(refund.refundedAt),
			tickets: refund.ticketIds,
			amount: this.total(refund.amount),
		};
	}

	barcode(place: Place): Record<string, unknown> {
		return {
			barcode: place.barcode,
			placeId: place.id,
			placeName: place.placeName,
			sectorId: place.sectorId,
			sectorName: place.sectorName,
			rowName: place.rowName,
			sold: place.state === 'sold',
		};
	}
}
