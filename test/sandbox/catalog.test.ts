import { SandboxClient } from '../../harness/sandbox/client';

const ids = (events: any[]) => events.map((e) => e.id as number);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const day = (iso: string) => new Date(Date.parse(iso)).toISOString().slice(0, 10);
const midnight = (yyyyMmDd: string) => Date.parse(`${yyyyMmDd}T00:00:00Z`);

describe('sandbox catalog: event points', () => {
	let sb: SandboxClient;
	let all: any[];
	beforeAll(async () => {
		sb = await SandboxClient.start({ placesPerEvent: 20 });
		all = await sb.getAll('/event-points');
	});
	afterAll(() => sb.stop());

	describe('visibility of event points to a company', () => {
		it(
			'shows the partner exactly the default 24 ' + 'on-sale event points, each once, across pages',
			async () => {
				expect(all).toHaveLength(24);
				expect(new Set(ids(all)).size).toBe(24);
				const paged: number[] = [];
				for (let page = 1; page <= 3; page++)
					paged.push(
						...ids((await sb.get('/event-points', { query: { page, itemsPerPage: 10 } })).body),
					);
				expect(sorted(paged)).toEqual(sorted(ids(all)));
				const now = (await sb.advanceClock(0)).nowMs as number;
				all.forEach((e) => expect(Date.parse(e.dateEndOfSale)).toBeGreaterThan(now));
			},
		);

		it(
			'shows the organiser the private event ' + 'points too; those answer 404 to the partner',
			async () => {
				const organiser = await sb.getAll('/event-points', { as: 'organiser' });
				expect(organiser).toHaveLength(24 + 2);
				const partnerIds = new Set(ids(all));
				ids(all).forEach((id) => expect(ids(organiser)).toContain(id));
				const privateIds = ids(organiser).filter((id) => !partnerIds.has(id));
				expect(privateIds).toHaveLength(2);
				for (const id of privateIds) {
					const hidden = await sb.get(`/event-points/${id}`);
					expect(hidden.status).toBe(404);
					expect(hidden.body.code).toBe('not_found');
					const seen = await sb.get(`/event-points/${id}`, { as: 'organiser' });
					expect(seen.status).toBe(200);
					expect(seen.body.id).toBe(id);
				}
			},
		);

		it('answers one visible event point by id, equal to its list entry', async () => {
			const res = await sb.get(`/event-points/${all[5].id}`);
			expect(res.status).toBe(200);
			expect(res.body).toEqual(all[5]);
			expect((await sb.get('/event-points/999999')).status).toBe(404);
			expect((await sb.get('/event-points/abc')).status).toBe(400);
		});
	});

	describe('archive', () => {
		it(
			'lists only the archived event points, whose ' +
				'sales have ended, and they answer 404 by id',
			async () => {
				const archived = await sb.getAll('/event-points-archived');
				expect(archived).toHaveLength(3);
				const now = (await sb.advanceClock(0)).nowMs as number;
				archived.forEach((e) => expect(Date.parse(e.dateEndOfSale)).toBeLessThanOrEqual(now));
				const current = new Set(ids(all));
				ids(archived).forEach((id) => expect(current.has(id)).toBe(false));
				for (const id of ids(archived))
					expect((await sb.get(`/event-points/${id}`)).status).toBe(404);
			},
		);
	});

	describe('filters', () => {
		const expectIds = (res: { status: number; body: any[] }, expected: any[]) => {
			expect(res.status).toBe(200);
			expect(expected.length).toBeGreaterThan(0);
			expect(expected.length).toBeLessThan(all.length);
			expect(sorted(ids(res.body))).toEqual(sorted(ids(expected)));
		};
		const list = (query: Record<string, string | string[]>) =>
			sb.get('/event-points', { query: { itemsPerPage: 100, ...query } });

		it('city.id[]: one city, and two repeated cities give the union', async () => {
			const cities = [...new Set(all.map((e) => e.city.id as number))];
			expect(cities.length).toBeGreaterThan(2);
			const [a, b] = cities;
			expectIds(
				await list({ 'city.id[]': String(a) }),
				all.filter((e) => e.city.id === a),
			);
			expectIds(
				await list({ 'city.id[]': [String(a), String(b)] }),
				all.filter((e) => e.city.id === a || e.city.id === b),
			);
		});

		it('categories.id[] and genres.id[]', async () => {
			const category = all[0].categories[0].id;
			expectIds(
				await list({ 'categories.id[]': String(category) }),
				all.filter((e) => e.categories.some((c: any) => c.id === category)),
			);
			const genres = [...new Set(all.map((e) => e.genres[0].id as number))].slice(0, 2);
			expectIds(
				await list({ 'genres.id[]': genres.map(String) }),
				all.filter((e) => e.genres.some((g: any) => genres.includes(g.id))),
			);
		});

		it('venueHall.id', async () => {
			const hall = all[3].venueHall.id;
			expectIds(
				await list({ 'venueHall.id': String(hall) }),
				all.filter((e) => e.venueHall.id === hall),
			);
		});

		it(
			'dateStarted[after] is >= and dateStarted[before] ' + 'is <= that day at midnight UTC',
			async () => {
				const pivot = all[10];
				const d = day(pivot.dateStarted);
				const after = await list({ 'dateStarted[after]': d });
				expectIds(
					after,
					all.filter((e) => Date.parse(e.dateStarted) >= midnight(d)),
				);
				expect(ids(after.body)).toContain(pivot.id);

				const before = await list({ 'dateStarted[before]': d });
				expectIds(
					before,
					all.filter((e) => Date.parse(e.dateStarted) <= midnight(d)),
				);
				// The session on day d starts after midnight, so `before` that day leaves it out.
				expect(ids(before.body)).not.toContain(pivot.id);

				const end = day(all[15].dateStarted);
				const between = await list({ 'dateStarted[after]': d, 'dateStarted[before]': end });
				expectIds(
					between,
					all.filter(
						(e) =>
							Date.parse(e.dateStarted) >= midnight(d) &&
							Date.parse(e.dateStarted) <= midnight(end),
					),
				);
			},
		);

		it('combines filters with AND', async () => {
			const { city, categories } = all[0];
			const res = await list({
				'city.id[]': String(city.id),
				'categories.id[]': String(categories[0].id),
			});
			expect(res.status).toBe(200);
			expect(ids(res.body)).toContain(all[0].id);
			expect(sorted(ids(res.body))).toEqual(
				sorted(
					ids(
						all.filter(
							(e) =>
								e.city.id === city.id && e.categories.some((c: any) => c.id === categories[0].id),
						),
					),
				),
			);
		});

		it.each([
			['dateStarted[after]', '2026-13-01'],
			['dateStarted[before]', '05/01/2026'],
			['city.id[]', 'abc'],
			['categories.id[]', '/api/v2/categories/21'],
			['genres.id[]', '-1'],
			['venueHall.id', 'hall'],
			['order[dateStarted]', 'up'],
		])('answers 400 naming %s for the value %s', async (field, value) => {
			const res = await sb.get('/event-points', { query: { [field]: value } });
			expect(res.status).toBe(400);
			expect(res.body.code).toBe('validation_failed');
			expect(res.body.violations[0].propertyPath.startsWith(field)).toBe(true);
		});
	});

	describe('sort', () => {
		it('order[dateStarted]=asc ascends and desc descends', async () => {
			const asc = await sb.get('/event-points', {
				query: { 'order[dateStarted]': 'asc', itemsPerPage: 100 },
			});
			const desc = await sb.get('/event-points', {
				query: { 'order[dateStarted]': 'desc', itemsPerPage: 100 },
			});
			expect(asc.status).toBe(200);
			expect(desc.status).toBe(200);
			const ascTimes = asc.body.map((e: any) => Date.parse(e.dateStarted));
			const descTimes = desc.body.map((e: any) => Date.parse(e.dateStarted));
			expect(ascTimes).toHaveLength(24);
			expect(ascTimes).toEqual([...ascTimes].sort((a, b) => a - b));
			expect(descTimes).toEqual([...ascTimes].sort((a, b) => b - a));
			expect(ascTimes[0]).toBeLessThan(ascTimes[23]);
		});

		it('desc pages walk the same list from the other end', async () => {
			const first = await sb.get('/event-points', {
				query: { 'order[dateStarted]': 'desc', itemsPerPage: 5 },
			});
			const asc = await sb.getAll('/event-points', { query: { 'order[dateStarted]': 'asc' } });
			expect(ids(first.body)).toEqual(ids(asc.slice(-5)).reverse());
		});
	});

	describe('pagination', () => {
		it('answers an empty list past the end', async () => {
			const res = await sb.get('/event-points', { query: { page: 4, itemsPerPage: 10 } });
			expect(res.status).toBe(200);
			expect(res.body).toEqual([]);
			const last = await sb.get('/event-points', { query: { page: 3, itemsPerPage: 10 } });
			expect(last.body).toHaveLength(4);
		});

		it.each([
			['itemsPerPage', '101'],
			['itemsPerPage', '0'],
			['page', '0'],
			['page', '-1'],
			['page', 'two'],
		])('answers 400 naming %s=%s', async (field, value) => {
			const res = await sb.get('/event-points', { query: { [field]: value } });
			expect(res.status).toBe(400);
			expect(res.body.violations[0].propertyPath).toBe(field);
		});

		it('accepts itemsPerPage=100', async () => {
			const res = await sb.get('/event-points', { query: { itemsPerPage: 100 } });
			expect(res.status).toBe(200);
			expect(res.body).toHaveLength(24);
		});
	});

	describe('language (X-API-Language)', () => {
		it(
			'gives German and English names, descriptions and ' +
				'city names; an unknown language falls back to English',
			async () => {
				const en = await sb.get('/event-points', { query: { itemsPerPage: 100 }, lang: 'en' });
				const de = await sb.get('/event-points', { query: { itemsPerPage: 100 }, lang: 'de' });
				const fr = await sb.get('/event-points', { query: { itemsPerPage: 100 }, lang: 'fr' });
				const none = await sb.get('/event-points', { query: { itemsPerPage: 100 } });
				expect(ids(de.body)).toEqual(ids(en.body));
				en.body.forEach((e: any, i: number) => {
					expect(de.body[i].eventName).not.toBe(e.eventName);
					expect(de.body[i].description).not.toBe(e.description);
					expect(de.body[i].city.id).toBe(e.city.id);
				});
				expect(fr.body).toEqual(en.body);
				expect(none.body).toEqual(en.body);

				const citiesEn = new Map(
					(await sb.get('/cities', { lang: 'en' })).body.map((c: any) => [c.id, c.name]),
				);
				const citiesDe = new Map(
					(await sb.get('/cities', { lang: 'de' })).body.map((c: any) => [c.id, c.name]),
				);
				en.body.forEach((e: any) => expect(e.city.name).toBe(citiesEn.get(e.city.id)));
				de.body.forEach((e: any) => expect(e.city.name).toBe(citiesDe.get(e.city.id)));
				expect([...citiesDe.values()]).toContain('München');
				expect([...citiesEn.values()]).toContain('Munich');

				const single = await sb.get(`/event-points/${en.body[0].id}`, { lang: 'de' });
				expect(single.body.eventName).toBe(de.body[0].eventName);
			},
		);
	});

	describe('identifiers and fields', () => {
		const money = { amount: expect.any(Number), currency: 'EUR' };
		const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
		const named = { id: expect.any(Number), name: expect.any(String) };

		it('carries every event field with sane types', () => {
			for (const e of all) {
				expect(e).toMatchObject({
					id: expect.any(Number),
					eventId: expect.any(Number),
					eventName: expect.any(String),
					description: expect.any(String),
					poster: expect.stringMatching(/^https?:\/\//),
					media: expect.any(Array),
					dateStarted: iso,
					dateEnd: iso,
					dateEndOfSale: iso,
					venue: named,
					venueHall: named,
					city: named,
					country: { ...named, code: expect.stringMatching(/^[A-Z]{2}$/) },
					categories: expect.arrayContaining([named]),
					genres: expect.arrayContaining([named]),
					minPrice: money,
					maxPrice: money,
					countAvailableTickets: expect.any(Number),
					minAgeLimit: expect.any(Number),
					widgetHash: expect.stringMatching(/^[0-9a-f]+$/),
				});
				expect(e.eventName.length).toBeGreaterThan(0);
				expect(e.maxAgeLimit === null || typeof e.maxAgeLimit === 'number').toBe(true);
				e.media.forEach((m: any) => expect(m.url).toMatch(/^https?:\/\//));
				expect(e.minPrice.amount).toBeGreaterThan(0);
				expect(e.minPrice.amount).toBeLessThanOrEqual(e.maxPrice.amount);
				expect(Number.isInteger(e.countAvailableTickets) && e.countAvailableTickets >= 0).toBe(
					true,
				);
				expect(e.countAvailableTickets).toBeLessThanOrEqual(20);
				expect(Date.parse(e.dateEnd)).toBeGreaterThan(Date.parse(e.dateStarted));
				expect(Date.parse(e.dateEndOfSale)).toBeLessThanOrEqual(Date.parse(e.dateStarted));
			}
			// eventId groups the dates of one event: never more distinct than sessions.
			expect(new Set(all.map((e) => e.eventId)).size).toBeLessThanOrEqual(all.length);
		});
	});
});

describe('sandbox catalog: the archive follows the clock', () => {
	let sb: SandboxClient;
	beforeAll(
		async () =>
			(sb = await SandboxClient.start({
				events: 5,
				privateEvents: 0,
				archivedEvents: 1,
				placesPerEvent: 4,
			})),
	);
	afterAll(() => sb.stop());

	it('moves an event point to the archive once its dateEndOfSale passes', async () => {
		const before = await sb.getAll('/event-points');
		expect(before).toHaveLength(5);
		const first = before.reduce((a, b) =>
			Date.parse(a.dateEndOfSale) <= Date.parse(b.dateEndOfSale) ? a : b,
		);
		expect(ids(await sb.getAll('/event-points-archived'))).not.toContain(first.id);

		const { nowMs } = await sb.advanceClock(0);
		await sb.advanceClock(Date.parse(first.dateEndOfSale) - nowMs + 60_000);
		sb.forgetTokens(); // the move spans days: the old token has expired

		const after = await sb.getAll('/event-points');
		expect(ids(after)).not.toContain(first.id);
		expect(after.length).toBeLessThan(5);
		const archived = await sb.getAll('/event-points-archived');
		expect(ids(archived)).toContain(first.id);
		expect(archived.length + after.length).toBe(6);
		expect((await sb.get(`/event-points/${first.id}`)).status).toBe(404);
	});
});

describe('sandbox catalog: a large catalog', () => {
	let sb: SandboxClient;
	beforeAll(
		async () =>
			(sb = await SandboxClient.start({ events: 1234, placesPerEvent: 4, widgetOrders: 0 })),
	);
	afterAll(() => sb.stop());

	it('pages to exactly 1,234 unique ids in 13 pages of 100', async () => {
		const seen = new Set<number>();
		let pages = 0;
		for (let page = 1; page <= 14; page++) {
			const res = await sb.get('/event-points', { query: { page, itemsPerPage: 100 } });
			expect(res.status).toBe(200);
			if (res.body.length === 0) break;
			pages = page;
			expect(res.body.length).toBe(page < 13 ? 100 : 34);
			ids(res.body).forEach((id) => seen.add(id));
		}
		expect(pages).toBe(13);
		expect(seen.size).toBe(1234);
	});

	it('serves 30 per page by default', async () => {
		const first = await sb.get('/event-points');
		const second = await sb.get('/event-points', { query: { page: 2 } });
		expect(first.body).toHaveLength(30);
		expect(second.body).toHaveLength(30);
		expect(ids(second.body)[0]).toBe(
			(await sb.get('/event-points', { query: { itemsPerPage: 31 } })).body[30].id,
		);
	});

	it('answers 400 past 100 per page even with many events', async () => {
		const res = await sb.get('/event-points', { query: { itemsPerPage: 101 } });
		expect(res.status).toBe(400);
		expect(res.body.violations[0].propertyPath).toBe('itemsPerPage');
	});
});
