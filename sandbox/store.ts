import type {
	ApiKey,
	Category,
	City,
	Company,
	Country,
	EventPoint,
	Genre,
	Order,
	Place,
	PlaceState,
	PromoCode,
	Venue,
	VenueHall,
	WidgetOrder,
	WidgetRefund,
} from './model';
import type { Random } from './random';

/** All records of one environment, and the only code that changes a place's state. */
export class Store {
	companies: Company[] = [];
	apiKeys: ApiKey[] = [];
	countries: Country[] = [];
	cities: City[] = [];
	venues: Venue[] = [];
	venueHalls: VenueHall[] = [];
	categories: Category[] = [];
	genres: Genre[] = [];
	promoCodes: PromoCode[] = [];
	/** Sorted by dateStarted, then id. */
	events: EventPoint[] = [];
	eventIndex = new Map<number, EventPoint>();
	orders = new Map<number, Order>();
	/** Orders in reserved_to_time: the only ones hold expiry has to look at. */
	liveHolds = new Set<Order>();
	widgetOrders: WidgetOrder[] = [];
	widgetRefunds: WidgetRefund[] = [];

	private sequences: Record<string, number> = {
		eventPoint: 1000,
		eventId: 500,
		sector: 2000,
		place: 100000,
		priceCategory: 300,
		order: 700000,
		ticket: 900000,
		widgetOrder: 800000,
		widgetRefund: 850000,
	};

	private readonly barcodes = new Set<string>();

	/** A 13-digit barcode no ticket of this environment has had. */
	newBarcode(random: Random): string {
		let code = random.digits(13);
		while (this.barcodes.has(code)) code = random.digits(13);
		this.barcodes.add(code);
		return code;
	}

	/** Widget orders from now on numbered as API orders are (once): the numbers of both meet. */
	shareOrderNumbers(): void {
		if (this.sequences.widgetOrder >= 800000) this.sequences.widgetOrder = 700000;
	}

	nextId(kind: keyof Store['sequences'] & string): number {
		this.sequences[kind] += 1;
		return this.sequences[kind];
	}

	companyBySlug(slug: string): Company | undefined {
		return this.companies.find((company) => company.slug === slug);
	}

	addEvent(event: EventPoint): void {
		this.eventIndex.set(event.id, event);
		this.events.push(event);
		this.events.sort((a, b) => a.dateStarted - b.dateStarted || a.id - b.id);
	}

	setPlaceState(place: Place, state: PlaceState, orderId?: number): void {
		const event = this.eventIndex.get(place.eventPointId);
		if (!event) return;
		if (place.state === 'free' && state !== 'free') event.available -= 1;
		if (place.state !== 'free' && state === 'free') event.available += 1;
		place.state = state;
		place.orderId = state === 'free' ? undefined : orderId;
		event.version += 1;
	}

	/** Tickets held right now by the company's live holds. */
	heldTickets(companyId: number): number {
		let count = 0;
		for (const order of this.liveHolds)
			if (order.companyId === companyId) count += order.tickets.length;
		return count;
	}
}
