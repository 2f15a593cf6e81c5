import {
	fetchToken,
	mark,
	runPublicEvents,
	query,
	routed as lists,
	since,
} from '../../../../../harness/nodes/publicEvents';
import { manyEventsSuite } from '../../../../../harness/nodes/suites';

const { sb, credential } = manyEventsSuite();

describe('Reference: Get Many', () => {
	it.each([
		['getManyCategories', '/categories'],
		['getManyCities', '/cities'],
		['getManyCountries', '/countries'],
		['getManyGenres', '/genres'],
		['getManyPromoCodes', '/promocodes'],
		['getManyVenueHalls', '/venue-halls'],
		['getManyVenues', '/venues'],
	])(
		'%s: Return All gives every record of GET %s, one item each, in one request',
		async (operation, path) => {
			const expected = await sb().getAll(path);
			expect(expected.length).toBeGreaterThan(0);
			const { store } = credential();
			await fetchToken(store);
			const before = await mark(sb());

			const { items, error } = await runPublicEvents(store, {
				resource: 'reference',
				operation,
				returnAll: true,
			});

			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(expected);
			expect(items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
			const log = await since(sb(), before);
			expect(log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([`GET ${path} 200`]);
			expect(query(log[0]).get('itemsPerPage')).toBe('100');
		},
	);

	it('Limit 2: two cities from one request for two', async () => {
		const cities = await sb().getAll('/cities');
		const { store } = credential();
		const before = await mark(sb());
		const { items } = await runPublicEvents(store, {
			resource: 'reference',
			operation: 'getManyCities',
			returnAll: false,
			limit: 2,
		});
		expect(items.map((item) => item.json)).toEqual(cities.slice(0, 2));
		const requests = lists(await since(sb(), before), '/cities');
		expect(requests).toHaveLength(1);
		expect(query(requests[0]).get('itemsPerPage')).toBe('2');
	});

	it('the Language option names the records in that language', async () => {
		const { store } = credential();
		const run = (language: string) =>
			runPublicEvents(store, {
				resource: 'reference',
				operation: 'getManyCountries',
				returnAll: true,
				options: { language },
			});
		const german = (await run('de')).items.map((item) => item.json.name);
		const english = (await run('en')).items.map((item) => item.json.name);
		expect(german).toContain('Deutschland');
		expect(english).toContain('Germany');
	});

	it('promo codes are those of the key’s company', async () => {
		const partner = (await sb().getAll('/promocodes')).map((p) => p.code);
		const organiser = (await sb().getAll('/promocodes', { as: 'organiser' })).map((p) => p.code);
		expect(partner).not.toEqual(organiser);
		const { store } = credential();
		const { items } = await runPublicEvents(store, {
			resource: 'reference',
			operation: 'getManyPromoCodes',
			returnAll: true,
		});
		expect(items.map((item) => item.json.code)).toEqual(partner);
	});

	it('a JSON-LD envelope gives the same records in one request', async () => {
		const venues = await sb().getAll('/venues');
		await sb().admin('PUT', '/config', { envelope: 'hydra' });
		const { store } = credential();
		const before = await mark(sb());
		const { items } = await runPublicEvents(store, {
			resource: 'reference',
			operation: 'getManyVenues',
			returnAll: true,
		});
		expect(items.map((item) => item.json.id)).toEqual(venues.map((v) => v.id));
		expect(lists(await since(sb(), before), '/venues')).toHaveLength(1);
	});
});
