import type { SandboxClient } from '../sandbox/client';

/** Wire shapes read by these tests (only the fields asserted on). */
export interface Money {
	amount: number;
	currency: string;
}
export interface Ticket {
	ticketId: number;
	status: string;
	barcode: string | null;
	placeId: number;
	placeName: string;
	sectorName: string;
	rowName: string;
	priceCategory: number;
	price: Money;
	discountPrice: Money;
}
export interface Order {
	id: number;
	status: string;
	createdAt: string;
	reservedToDate: string;
	payAt: string | null;
	totalPrice: Money;
	totalDiscount: Money;
	tickets?: Ticket[];
}
export interface Place {
	id: number;
	sectorId: number;
	sectorName: string;
	rowName: string;
	placeName: string;
	availableCount: number;
	priceCategories: Array<{ id: number; name: string; price: Money }>;
}
export interface Violation {
	propertyPath: string;
	message: string;
}

/** On sale and linked to both seeded companies. */
export const EVENT = 1002;
export const OTHER_EVENT = 1004;

/** Order helpers bound to the suite's sandbox (read lazily: it starts in beforeAll). */
export function orderHelpers(client: () => SandboxClient) {
	async function hold(
		count = 1,
		extra: Record<string, unknown> = {},
		as = 'partner',
		eventId = EVENT,
	) {
		const places = await client().freePlaces(eventId, count, as);
		const res = await client().send<Order>(
			'POST',
			'/orders',
			{
				eventPoint: String(eventId),
				places: places.ids,
				priceCategory: places.priceCategory,
				...extra,
			},
			as,
		);
		expect(res.status).toBe(201);
		return { order: res.body, places };
	}

	const getOrder = (id: number, as = 'partner') => client().get<Order>(`/orders/${id}`, { as });
	const setStatus = (id: number, toStatus: string, as = 'partner') =>
		client().send<Order>('PUT', `/orders/${id}/status`, { toStatus }, as);

	async function place(placeId: string | number, eventId = EVENT): Promise<Place> {
		const all = await client().getAll<Place>(`/event-points/${eventId}/places`);
		const found = all.find((p) => String(p.id) === String(placeId));
		if (!found) throw new Error(`place ${placeId} not listed`);
		return found;
	}

	async function available(eventId = EVENT): Promise<number> {
		const res = await client().get<{ countAvailableTickets: number }>(`/event-points/${eventId}`);
		expect(res.status).toBe(200);
		return res.body.countAvailableTickets;
	}

	const ms = (iso: string) => Date.parse(iso);

	return { hold, getOrder, setStatus, place, available, ms };
}
