/** In-memory records of one sandbox environment. Wire shapes are built in the routes. */
export type Lang = 'en' | 'de';
export type Localized = Record<Lang, string>;

export interface Money {
	amount: number;
	currency: string;
}

export interface Company {
	id: number;
	slug: string;
	name: string;
}

export interface ApiKey {
	id: number;
	key: string;
	companyId: number;
}

export interface Country {
	id: number;
	code: string;
	name: Localized;
}
export interface City {
	id: number;
	countryId: number;
	name: Localized;
}
export interface Venue {
	id: number;
	cityId: number;
	name: string;
	address: string;
}
export interface VenueHall {
	id: number;
	venueId: number;
	name: string;
	capacity: number;
}
export interface Category {
	id: number;
	name: Localized;
}
export interface Genre {
	id: number;
	categoryId: number;
	name: Localized;
}
export interface PromoCode {
	id: number;
	companyId: number;
	code: string;
	discountPercent: number;
	validFrom: number;
	validTo: number;
}

export interface PriceCategory {
	id: number;
	name: string;
	price: number;
}

export type PlaceState = 'free' | 'held' | 'sold';

export interface Place {
	id: number;
	eventPointId: number;
	sectorId: number;
	sectorName: string;
	rowName: string;
	placeName: string;
	/** Shared by every place of the sector. */
	priceCategories: PriceCategory[];
	barcode: string;
	state: PlaceState;
	orderId?: number;
}

export interface Sector {
	id: number;
	eventPointId: number;
	name: string;
	places: Place[];
	priceCategories: PriceCategory[];
}

export interface EventPoint {
	id: number;
	eventId: number;
	name: Localized;
	description: Localized;
	poster: string;
	media: Array<{ type: string; url: string }>;
	dateStarted: number;
	dateEnd: number;
	dateEndOfSale: number;
	venueId: number;
	venueHallId: number;
	cityId: number;
	countryId: number;
	categoryIds: number[];
	genreIds: number[];
	minAgeLimit: number;
	maxAgeLimit: number | null;
	widgetHash: string;
	organiserId: number;
	companyIds: Set<number>;
	sectors: Sector[];
	places: Place[];
	placeIndex: Map<number, Place>;
	/** Kept in step with place states so lists need not count 50,000 places. */
	available: number;
	/** Bumped on every place change: hall-plan pages are cached per version. */
	version: number;
	updatedAt: number;
}

export type OrderStatus = 'created' | 'reserved_to_time' | 'paid' | 'refund' | 'expired';
export type TicketStatus = 'reserved' | 'sold' | 'refund';

export interface Ticket {
	ticketId: number;
	placeId: number;
	priceCategoryId: number;
	price: number;
	discountPrice: number;
	status: TicketStatus;
	barcode: string | null;
	/** When the ticket was refunded. */
	refundedAt?: number;
}

export interface Order {
	id: number;
	companyId: number;
	eventPointId: number;
	status: OrderStatus;
	createdAt: number;
	reservedToDate: number;
	payAt: number | null;
	refundedAt: number | null;
	promoCode: string | null;
	discountPercent: number;
	tickets: Ticket[];
}

export interface WidgetOrder {
	id: number;
	companyId: number;
	eventPointId: number;
	status: 'paid' | 'refund';
	createdAt: number;
	payAt: number;
	email: string;
	tickets: Ticket[];
}

export interface WidgetRefund {
	id: number;
	companyId: number;
	orderId: number;
	eventPointId: number;
	refundedAt: number;
	ticketIds: number[];
	amount: number;
}
