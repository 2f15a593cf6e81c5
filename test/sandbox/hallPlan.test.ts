import { SandboxClient } from '../../harness/sandbox/client';

interface Money {
	amount: number;
	currency: string;
}
interface Sector {
	id: number;
	name: string;
	placesCount: number;
	availableCount: number;
}
interface Place {
	id: number;
	sectorId: number;
	sectorName: string;
	rowName: string;
	placeName: string;
	availableCount: number;
	priceCategories: Array<{ id: number; price: Money }>;
}
interface BarcodeRecord {
	barcode: string;
	placeId: number;
	placeName: string;
	sectorId: number;
	sectorName: string;
}
interface EventPoint {
	id: number;
	countAvailableTickets: number;
}
interface Order {
	id: number;
	status: string;
	tickets?: Array<{ placeId: number; barcode: string | null }>;
}

/** On sale and linked to both seeded companies. */
const EVENT = 1002;
const SOLD_OUT = 1003;
const PLACES_PER_EVENT = 120;

describe('sandbox hall plan and barcodes', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start()));
	afterAll(() => sb.stop());

	const ids = (items: Array<{ id: number }>) => items.map((i) => i.id);

	describe('sectors and places', () => {
		it('lists the sectors of an event', async () => {
			const res = await sb.get<Sector[]>(`/event-points/${EVENT}/sectors`);
			expect(res.status).toBe(200);
			expect(res.body.length).toBeGreaterThan(0);
			for (const s of res.body)
				expect(s).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
			expect(new Set(ids(res.body)).size).toBe(res.body.length);
		});

		it('every place appears exactly once across the sectors and once in /places', async () => {
			const sectors = (await sb.get<Sector[]>(`/event-points/${EVENT}/sectors`)).body;
			const bySector: Place[] = [];
			for (const sector of sectors) {
				const list = await sb.getAll<Place>(`/event-points/${EVENT}/sectors/${sector.id}/places`);
				for (const p of list) expect(p.sectorId).toBe(sector.id);
				for (const p of list) expect(p.sectorName).toBe(sector.name);
				expect(list).toHaveLength(sector.placesCount);
				bySector.push(...list);
			}
			const all = await sb.getAll<Place>(`/event-points/${EVENT}/places`);
			expect(all).toHaveLength(PLACES_PER_EVENT);
			expect(new Set(ids(all)).size).toBe(all.length);
			expect(new Set(ids(bySector)).size).toBe(bySector.length);
			expect(ids(bySector).sort((a, b) => a - b)).toEqual(ids(all).sort((a, b) => a - b));
		});

		it(
			'each place has id, names, availableCount and price ' +
				'categories with id and price {amount, currency}',
			async () => {
				const all = await sb.getAll<Place>(`/event-points/${EVENT}/places`);
				for (const p of all) {
					expect(p).toMatchObject({
						id: expect.any(Number),
						sectorName: expect.any(String),
						rowName: expect.any(String),
						placeName: expect.any(String),
					});
					expect([0, 1]).toContain(p.availableCount);
					expect(p.priceCategories.length).toBeGreaterThan(0);
					for (const c of p.priceCategories) {
						expect(c.id).toEqual(expect.any(Number));
						expect(c.price.amount).toBeGreaterThan(0);
						expect(c.price.currency).toBe('EUR');
					}
				}
				// countAvailableTickets of the event agrees with the hall plan.
				const event = (await sb.get<EventPoint>(`/event-points/${EVENT}`)).body;
				expect(all.filter((p) => p.availableCount > 0)).toHaveLength(event.countAvailableTickets);
				expect(event.countAvailableTickets).toBeLessThan(PLACES_PER_EVENT);
			},
		);

		it(
			'pages hold at most 100 places, do not ' + 'overlap, and itemsPerPage over 100 answers 400',
			async () => {
				const first = await sb.get<Place[]>(`/event-points/${EVENT}/places`, {
					query: { itemsPerPage: 100, page: 1 },
				});
				const second = await sb.get<Place[]>(`/event-points/${EVENT}/places`, {
					query: { itemsPerPage: 100, page: 2 },
				});
				expect(first.body).toHaveLength(100);
				expect(second.body).toHaveLength(PLACES_PER_EVENT - 100);
				const overlap = ids(second.body).filter((id) => ids(first.body).includes(id));
				expect(overlap).toEqual([]);

				const small = await sb.get<Place[]>(`/event-points/${EVENT}/places`, {
					query: { itemsPerPage: 7, page: 2 },
				});
				expect(ids(small.body)).toEqual(ids(first.body).slice(7, 14));

				const tooMany = await sb.get(`/event-points/${EVENT}/places`, {
					query: { itemsPerPage: 101 },
				});
				expect(tooMany.status).toBe(400);
				expect(
					tooMany.body.violations.map((v: { propertyPath: string }) => v.propertyPath).join(' '),
				).toContain('itemsPerPage');
			},
		);

		it('a held place stays listed with availableCount 0 and the event count drops', async () => {
			const before = (await sb.get<EventPoint>(`/event-points/${EVENT}`)).body
				.countAvailableTickets;
			const free = await sb.freePlace(EVENT);
			const order = await sb.send<Order>('POST', '/orders', {
				eventPoint: String(EVENT),
				places: [free.id],
				priceCategory: free.priceCategory,
			});
			expect(order.status).toBe(201);
			const listed = (await sb.getAll<Place>(`/event-points/${EVENT}/places`)).find(
				(p) => String(p.id) === free.id,
			);
			expect(listed?.availableCount).toBe(0);
			expect((await sb.get<EventPoint>(`/event-points/${EVENT}`)).body.countAvailableTickets).toBe(
				before - 1,
			);
			await sb.send('PUT', `/orders/${order.body.id}/status`, { toStatus: 'expired' });
			expect((await sb.get<EventPoint>(`/event-points/${EVENT}`)).body.countAvailableTickets).toBe(
				before,
			);
		});

		it(
			'the sold-out event 1003 still lists all ' + 'its places, each with availableCount 0',
			async () => {
				const event = await sb.get<EventPoint>(`/event-points/${SOLD_OUT}`);
				expect(event.status).toBe(200);
				expect(event.body.countAvailableTickets).toBe(0);
				const all = await sb.getAll<Place>(`/event-points/${SOLD_OUT}/places`);
				expect(all).toHaveLength(PLACES_PER_EVENT);
				for (const p of all) expect(p.availableCount).toBe(0);
				const sectors = (await sb.get<Sector[]>(`/event-points/${SOLD_OUT}/sectors`)).body;
				for (const s of sectors) {
					expect(s.availableCount).toBe(0);
					const list = await sb.getAll<Place>(`/event-points/${SOLD_OUT}/sectors/${s.id}/places`);
					expect(list.length).toBe(s.placesCount);
					expect(list.length).toBeGreaterThan(0);
				}
			},
		);

		it('a sector of another event answers 404', async () => {
			const other = (await sb.get<Sector[]>(`/event-points/${SOLD_OUT}/sectors`)).body[0];
			const res = await sb.get(`/event-points/${EVENT}/sectors/${other.id}/places`);
			expect(res.status).toBe(404);
		});

		it(
			'the hall plan of an event hidden from the partner ' +
				'answers 404 for the partner, 200 for the organiser',
			async () => {
				const partner = ids(await sb.getAll<EventPoint>('/event-points'));
				const organiser = ids(await sb.getAll<EventPoint>('/event-points', { as: 'organiser' }));
				const hidden = organiser.filter((id) => !partner.includes(id));
				expect(hidden.length).toBeGreaterThan(0);
				const id = hidden[0];

				const sectors = await sb.get<Sector[]>(`/event-points/${id}/sectors`, { as: 'organiser' });
				expect(sectors.status).toBe(200);
				const sectorId = sectors.body[0].id;
				expect((await sb.get(`/event-points/${id}/places`, { as: 'organiser' })).status).toBe(200);

				expect((await sb.get(`/event-points/${id}/sectors`)).status).toBe(404);
				expect((await sb.get(`/event-points/${id}/places`)).status).toBe(404);
				expect((await sb.get(`/event-points/${id}/sectors/${sectorId}/places`)).status).toBe(404);
				expect((await sb.get(`/event-points/${id}/barcodes`)).status).toBe(404);
				expect((await sb.get('/event-points/999999/places')).status).toBe(404);
			},
		);
	});

	describe('barcodes', () => {
		it(
			'the organiser exports one record per place, sold and unsold, ' +
				'with barcode, placeId, placeName, sectorId, sectorName',
			async () => {
				const records = await sb.getAll<BarcodeRecord>(`/event-points/${EVENT}/barcodes`, {
					as: 'organiser',
				});
				const places = await sb.getAll<Place>(`/event-points/${EVENT}/places`, { as: 'organiser' });
				expect(records).toHaveLength(places.length);
				expect(records.map((r) => r.placeId).sort((a, b) => a - b)).toEqual(
					ids(places).sort((a, b) => a - b),
				);
				expect(new Set(records.map((r) => r.barcode)).size).toBe(records.length);
				const byId = new Map(places.map((p) => [p.id, p]));
				for (const r of records) {
					const p = byId.get(r.placeId)!;
					expect(r.barcode).toMatch(/^\d{13}$/);
					expect(r).toMatchObject({
						placeName: p.placeName,
						sectorId: p.sectorId,
						sectorName: p.sectorName,
					});
				}
				// Both kinds are in the export.
				expect(places.some((p) => p.availableCount === 0)).toBe(true);
				expect(places.some((p) => p.availableCount === 1)).toBe(true);

				const soldOut = await sb.getAll<BarcodeRecord>(`/event-points/${SOLD_OUT}/barcodes`, {
					as: 'organiser',
				});
				expect(soldOut).toHaveLength(PLACES_PER_EVENT);
			},
		);

		it('the partner key gets 403 whose message points to the paid order', async () => {
			const res = await sb.get(`/event-points/${EVENT}/barcodes`);
			expect(res.status).toBe(403);
			expect(res.body.message).toMatch(/paid order/i);
		});

		it("the barcode in a paid order's ticket equals the export record of that place", async () => {
			const p = await sb.freePlaces(EVENT, 2);
			const created = await sb.send<Order>('POST', '/orders', {
				eventPoint: String(EVENT),
				places: p.ids,
				priceCategory: p.priceCategory,
			});
			expect(created.status).toBe(201);
			const paid = await sb.send<Order>('PUT', `/orders/${created.body.id}/status`, {
				toStatus: 'paid',
			});
			expect(paid.status).toBe(200);
			const records = await sb.getAll<BarcodeRecord>(`/event-points/${EVENT}/barcodes`, {
				as: 'organiser',
			});
			for (const ticket of paid.body.tickets!) {
				const record = records.find((r) => r.placeId === ticket.placeId);
				expect(record).toBeDefined();
				expect(ticket.barcode).toMatch(/^\d{13}$/);
				expect(record!.barcode).toBe(ticket.barcode);
			}
			const read = await sb.get<Order>(`/orders/${created.body.id}`);
			expect(read.body.tickets!.map((t) => t.barcode)).toEqual(
				paid.body.tickets!.map((t) => t.barcode),
			);
		});
	});
});

describe('sandbox hall plan: a big event (bigEventPlaces 5000)', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start({ bigEventPlaces: 5000 })));
	afterAll(() => sb.stop());

	it('pages of 100 give 5000 unique places', async () => {
		const all = await sb.getAll<Place>('/event-points/1001/places');
		expect(all).toHaveLength(5000);
		expect(new Set(ids(all)).size).toBe(5000);
		const last = await sb.get<Place[]>('/event-points/1001/places', {
			query: { itemsPerPage: 100, page: 50 },
		});
		expect(last.body).toHaveLength(100);
		const beyond = await sb.get<Place[]>('/event-points/1001/places', {
			query: { itemsPerPage: 100, page: 51 },
		});
		expect(beyond.status).toBe(200);
		expect(beyond.body).toHaveLength(0);
	});

	it('the sectors of the big event partition its 5000 places', async () => {
		const sectors = (
			await sb.get<Sector[]>('/event-points/1001/sectors', { query: { itemsPerPage: 100 } })
		).body;
		expect(sectors.reduce((n, s) => n + s.placesCount, 0)).toBe(5000);
		const seen = new Set<number>();
		for (const s of sectors) {
			const list = await sb.getAll<Place>(`/event-points/1001/sectors/${s.id}/places`);
			expect(list).toHaveLength(s.placesCount);
			for (const p of list) seen.add(p.id);
		}
		expect(seen.size).toBe(5000);
	});

	function ids(items: Array<{ id: number }>) {
		return items.map((i) => i.id);
	}
});

describe('sandbox hall plan pages are never served stale', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start()));
	afterAll(() => sb.stop());

	const firstPage = async (path: string) =>
		(await sb.get<Place[]>(path, { query: { page: 1, itemsPerPage: 100 } })).body;

	it(
		'a page read twice reflects a hold and its ' +
			'release in between, for /places and a sector list',
		async () => {
			const sector = (await sb.get<Sector[]>(`/event-points/${EVENT}/sectors`)).body[0];
			const paths = [
				`/event-points/${EVENT}/places`,
				`/event-points/${EVENT}/sectors/${sector.id}/places`,
			];
			const before = await Promise.all(paths.map(firstPage));
			const free = before[0].find((p) => p.availableCount === 1 && p.sectorId === sector.id)!;

			const order = await sb.send('POST', '/orders', {
				eventPoint: String(EVENT),
				places: [String(free.id)],
				priceCategory: String(free.priceCategories[0].id),
			});
			expect(order.status).toBe(201);
			for (const page of await Promise.all(paths.map(firstPage)))
				expect(page.find((p) => p.id === free.id)?.availableCount).toBe(0);

			expect(
				(await sb.send('PUT', `/orders/${order.body.id}/status`, { toStatus: 'expired' })).status,
			).toBe(200);
			for (const page of await Promise.all(paths.map(firstPage)))
				expect(page.find((p) => p.id === free.id)?.availableCount).toBe(1);
		},
	);

	it('switching the envelope changes the page served for the same URL', async () => {
		const path = `/event-points/${EVENT}/places`;
		expect(Array.isArray(await firstPage(path))).toBe(true);
		await sb.admin('PUT', '/config', { envelope: 'hydra' });
		const hydra = (await sb.get(path, { query: { page: 1, itemsPerPage: 100 } })).body;
		expect(hydra['hydra:member']).toHaveLength(100);
		await sb.admin('PUT', '/config', { envelope: 'array' });
	});
});
