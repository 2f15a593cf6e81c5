import { PublicEvents } from '../../../../../nodes/PublicEvents/PublicEvents.node';
import { MAX_PAGES_IN_FLIGHT } from '../../../../../nodes/shared/transport';
import { callLoadOptions } from '../../../../../harness/engine';
import {
	ids,
	mark,
	runPublicEvents,
	query,
	routed as lists,
	since,
} from '../../../../../harness/nodes/publicEvents';
import { manyEventsSuite } from '../../../../../harness/nodes/suites';

const { sb, credential } = manyEventsSuite();

describe('Event: the Country filter, applied by the node to each event’s country', () => {
	let events: any[];
	let countries: any[];
	const inCountries = (wanted: number[]) =>
		events.filter((e) => wanted.includes(e.country.id)).map((e) => String(e.id));
	const getMany = (countryIds: string[], extra: object = {}, filters: object = {}) => ({
		resource: 'event',
		operation: 'getMany',
		returnAll: true,
		filters: { countryIds, ...filters },
		...extra,
	});

	beforeAll(async () => {
		events = await sb().getAll('/event-points');
		countries = await sb().getAll('/countries');
		expect(events).toHaveLength(250);
	});

	it('the dropdown lists the countries of the reference list', async () => {
		const { store } = credential();
		const options = await callLoadOptions({
			nodeType: new PublicEvents(),
			type: 'CUSTOM.publicEvents',
			credentials: store,
			parameters: { resource: 'event', operation: 'getMany' },
			method: 'getCountries',
		});
		expect(options.map((o) => o.value).sort()).toEqual(countries.map((c) => String(c.id)).sort());
	});

	it(
		'Return All: exactly the events of the chosen countries, in ' +
			'the service’s order, from 3 requests',
		async () => {
			const chosen = countries.filter((c) => c.code === 'AT' || c.code === 'CZ').map((c) => c.id);
			const expected = inCountries(chosen);
			expect(expected.length).toBeGreaterThan(0);
			expect(expected.length).toBeLessThan(250);
			const { store } = credential();
			const before = await mark(sb());

			const { items, error } = await runPublicEvents(store, getMany(chosen.map(String)));

			expect(error).toBeUndefined();
			expect(ids(items)).toEqual(expected);
			const requests = lists(await since(sb(), before), '/event-points');
			// Pages 1-3 hold the events; without a total, pages read ahead past the short page 3 are
			// fewer than a window.
			const pages = requests.map((e) => Number(query(e).get('page'))).sort((a, b) => a - b);
			expect(pages.length - 3).toBeLessThan(MAX_PAGES_IN_FLIGHT);
			expect(pages).toEqual(Array.from({ length: pages.length }, (_, i) => i + 1));
			// No country parameter goes to the service: the spec names none.
			expect(requests.every((e) => !/country/i.test(decodeURIComponent(e.query)))).toBe(true);
		},
	);

	it(
		'Limit counts matching events: one more than page 1 holds ' + 'costs exactly one more page',
		async () => {
			const cz = countries.find((c) => c.code === 'CZ').id;
			const expected = inCountries([cz]);
			const onFirstPage = events.slice(0, 100).filter((e) => e.country.id === cz).length;
			expect(expected.length).toBeGreaterThan(onFirstPage + 1);
			const { store } = credential();

			let before = await mark(sb());
			const few = await runPublicEvents(
				store,
				getMany([String(cz)], { returnAll: false, limit: onFirstPage }),
			);
			expect(ids(few.items)).toEqual(expected.slice(0, onFirstPage));
			expect(lists(await since(sb(), before), '/event-points')).toHaveLength(1);

			before = await mark(sb());
			const more = await runPublicEvents(
				store,
				getMany([String(cz)], { returnAll: false, limit: onFirstPage + 1 }),
			);
			expect(ids(more.items)).toEqual(expected.slice(0, onFirstPage + 1));
			const requests = lists(await since(sb(), before), '/event-points');
			// Full pages: a filter on this side cannot know how many a Limit needs; pages read ahead
			// of page 2 (where the Limit was reached) are fewer than a window.
			const pages = requests
				.map((e) => `${query(e).get('page')}/${query(e).get('itemsPerPage')}`)
				.sort();
			expect(pages.length - 2).toBeLessThan(MAX_PAGES_IN_FLIGHT);
			expect(pages.slice(0, 2)).toEqual(['1/100', '2/100']);
			expect(pages.every((p) => p.endsWith('/100'))).toBe(true);
		},
	);

	it(
		'with a stated total (JSON-LD): Limit reads page by page, ' + 'Return All gets every match',
		async () => {
			await sb().admin('PUT', '/config', { envelope: 'hydra' });
			const de = countries.find((c) => c.code === 'DE').id;
			const expected = inCountries([de]);
			const { store } = credential();

			let before = await mark(sb());
			const limited = await runPublicEvents(
				store,
				getMany([String(de)], { returnAll: false, limit: 10 }),
			);
			expect(ids(limited.items)).toEqual(expected.slice(0, 10));
			expect(lists(await since(sb(), before), '/event-points')).toHaveLength(1);

			before = await mark(sb());
			const all = await runPublicEvents(store, getMany([String(de)]));
			expect(ids(all.items)).toEqual(expected);
			expect(lists(await since(sb(), before), '/event-points')).toHaveLength(3);
		},
	);

	it('combines with the filters the service applies (city)', async () => {
		const city = events[0].city.id;
		const country = events[0].country.id;
		const other = countries.find((c) => c.id !== country).id;
		const { store } = credential();
		const same = await runPublicEvents(
			store,
			getMany([String(country)], {}, { cityIds: [String(city)] }),
		);
		expect(ids(same.items)).toEqual(
			events.filter((e) => e.city.id === city).map((e) => String(e.id)),
		);
		const none = await runPublicEvents(
			store,
			getMany([String(other)], {}, { cityIds: [String(city)] }),
		);
		expect(none.error).toBeUndefined();
		expect(none.items).toEqual([]);
	});

	it('applies to Get Many Archived too', async () => {
		const archived = await sb().getAll('/event-points-archived');
		const country = archived[0].country.id;
		const { store } = credential();
		const { items } = await runPublicEvents(store, {
			...getMany([String(country)]),
			operation: 'getManyArchived',
		});
		expect(ids(items)).toEqual(
			archived.filter((e) => e.country.id === country).map((e) => String(e.id)),
		);
	});

	it(
		'reads a country given as a record, a plain id, a numeric ' +
			'string or an IRI; events without one are left out',
		async () => {
			const served = [
				{ id: 1, country: { id: 4, name: 'Czechia', code: 'CZ' } },
				{ id: 2, country: 4 },
				{ id: 3, country: '/api/v2/countries/4' },
				{ id: 4, country: { id: '4' } },
				{ id: 5, country: { '@id': '/api/v2/countries/4' } },
				{ id: 6, country: 2 },
				{ id: 7, country: { id: 44 } },
				{ id: 8 },
				{ id: 9, country: null },
			];
			await sb().admin('POST', '/faults', {
				kind: 'status',
				status: 200,
				path: '/event-points',
				body: served,
				count: 1,
			});
			const { store } = credential();
			const { items, error } = await runPublicEvents(store, getMany(['/api/v2/countries/4']));
			expect(error).toBeUndefined();
			expect(ids(items)).toEqual(['1', '2', '3', '4', '5']);
		},
	);
});
