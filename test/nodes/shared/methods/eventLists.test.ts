import { PublicEvents } from '../../../../nodes/PublicEvents/PublicEvents.node';
import { callListSearch, callLoadOptions } from '../../../../harness/engine';
import { credentialFor } from '../../../../harness/nodes/publicEvents';
import { eventsSuite } from '../../../../harness/nodes/suites';

const { sb, credential } = eventsSuite();

describe('what the editor asks for', () => {
	const node = (store: ReturnType<typeof credentialFor>['store']) => ({
		nodeType: new PublicEvents(),
		type: 'CUSTOM.publicEvents',
		credentials: store,
		parameters: { resource: 'event', operation: 'get' },
	});

	it('the event list shows name, date and venue, and filters by text', async () => {
		const { store } = credential();
		const [first] = await sb().getAll('/event-points', { query: { 'order[dateStarted]': 'asc' } });
		const all = await callListSearch({ ...node(store), method: 'searchEvents' });
		expect(all.results[0]).toEqual({
			name:
				`${first.eventName} · ${first.dateStarted.slice(0, 16).replace('T', ' ')}` +
				` · ${first.venue.name}`,
			value: String(first.id),
		});
		expect(all.results).toHaveLength(30);
		expect(all.paginationToken).toBeUndefined();
		const word = String(first.eventName).split(' ')[0].toLowerCase();
		const some = await callListSearch({ ...node(store), method: 'searchEvents', filter: word });
		expect(some.results.length).toBeGreaterThan(0);
		expect(some.results.every((r) => r.name.toLowerCase().includes(word))).toBe(true);
	});

	it('city, category, genre and hall filters load from the reference lists', async () => {
		const { store } = credential();
		const cities = await sb().getAll('/cities');
		const options = await callLoadOptions({ ...node(store), method: 'getCities' });
		expect(options.map((o) => o.value).sort()).toEqual(cities.map((c) => String(c.id)).sort());
		expect(options.map((o) => o.name)).toEqual(
			[...options.map((o) => o.name)].sort((a, b) => a.localeCompare(b)),
		);
		const lists = [
			['getCategories', '/categories'],
			['getGenres', '/genres'],
			['getVenueHalls', '/venue-halls'],
			['getCountries', '/countries'],
		];
		for (const [method, path] of lists) {
			const values = (await callLoadOptions({ ...node(store), method })).map((o) => o.value).sort();
			expect([method, values]).toEqual([
				method,
				(await sb().getAll(path)).map((r) => String(r.id)).sort(),
			]);
		}
	});
});
