import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { callListSearch, callLoadOptions, NODE_NAME } from '../helpers/engine';
import { credentialFor, ids, mark, runPublicEvents, since } from '../helpers/publicEvents';
import { SandboxClient } from '../helpers/sandboxClient';

const HOUR = 3_600_000;
let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 30, placesPerEvent: 2, archivedEvents: 3 });
	await sb.token(); // the test's own token, so the counters below count the node's alone
});
afterAll(() => sb.stop());
beforeEach(() => sb.admin('DELETE', '/requests'));

const getMany = { resource: 'event', operation: 'getMany', returnAll: true };

describe('Event: the token, in n8n-core', () => {
	it('50 executions of Get Many with one credential send exactly one /token request', async () => {
		const { store, id } = credentialFor(sb);
		const visible = (await sb.getAll('/event-points')).map((event) => String(event.id));
		await sb.admin('DELETE', '/requests');
		for (let run = 0; run < 50; run++) {
			const { items, error } = await runPublicEvents(store, getMany);
			expect(error).toBeUndefined();
			expect(ids(items)).toEqual(visible);
		}
		const counters = await sb.counters();
		expect(counters['POST /token']).toBe(1);
		expect(counters['GET /event-points']).toBe(50);
		expect(store.data(id).token).toEqual(expect.any(String));
	});

	it('25 hours later: one 401, one new token, complete results', async () => {
		const { store, id } = credentialFor(sb);
		await runPublicEvents(store, getMany);
		const oldToken = store.data(id).token;
		await sb.advanceClock(25 * HOUR);
		sb.forgetTokens();
		const visible = (await sb.getAll('/event-points')).map((event) => String(event.id));
		const before = await mark(sb);

		const { items, error } = await runPublicEvents(store, getMany);

		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(visible);
		const log = await since(sb, before);
		expect(
			log
				.filter((e) => e.route !== '/event-points' || e.status !== 200)
				.map((e) => `${e.method} ${e.route} ${e.status}`),
		).toEqual(['GET /event-points 401', 'POST /token 200']);
		expect(store.data(id).token).not.toBe(oldToken);
	});

	it('a key the service refuses: a message that says so, without the key', async () => {
		const wrongKey = 'pe_live_partner_0123456789abcdef';
		const { store } = credentialFor(sb, { apiKey: wrongKey });
		const { error } = await runPublicEvents(store, getMany);
		expect(error?.message).toMatch(/API key was refused.*Staging and production keys differ/);
		expect(JSON.stringify(error)).not.toContain(wrongKey);
		expect(String(error?.stack)).not.toContain(wrongKey);
		expect((await sb.counters())['GET /event-points']).toBeUndefined();
	});
});

describe('Event operations', () => {
	it('Get Many: Limit, filters and sort are sent as the spec names them', async () => {
		const { store } = credentialFor(sb);
		const all = await sb.getAll('/event-points');
		const city = all[0].city.id;
		const expected = (
			await sb.getAll('/event-points', {
				query: { 'city.id[]': [city], 'order[dateStarted]': 'desc' },
			})
		).map((e) => String(e.id));
		const before = await mark(sb);
		const { items, error } = await runPublicEvents(store, {
			resource: 'event',
			operation: 'getMany',
			returnAll: false,
			limit: 3,
			filters: { cityIds: [String(city)], dateStartedAfter: '2000-01-01T00:00:00' },
			options: { sort: 'desc' },
		});
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(expected.slice(0, 3));
		const [request, ...more] = (await since(sb, before)).filter((e) => e.route === '/event-points');
		expect(more).toEqual([]);
		const query = new URLSearchParams(request.query);
		expect(query.getAll('city.id[]')).toEqual([String(city)]);
		expect(query.get('dateStarted[after]')).toBe('2000-01-01');
		expect(query.get('order[dateStarted]')).toBe('desc');
		expect(query.get('itemsPerPage')).toBe('3');
	});

	it('Get takes an ID, an IRI or an expression, one output item per input item', async () => {
		const { store } = credentialFor(sb);
		const [first, second] = await sb.getAll('/event-points');
		const { items, error } = await runPublicEvents(
			store,
			{
				resource: 'event',
				operation: 'get',
				eventId: { __rl: true, mode: 'id', value: '={{ $json.ref }}' },
			},
			{ inputItems: [{ ref: String(first.id) }, { ref: `/api/v2/event-points/${second.id}` }] },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			[first.id, { item: 0 }],
			[second.id, { item: 1 }],
		]);
	});

	it('the credential default language is sent, and the node option overrides it', async () => {
		const [first] = await sb.getAll('/event-points');
		const german = (await sb.get(`/event-points/${first.id}`, { lang: 'de' })).body.eventName;
		const english = (await sb.get(`/event-points/${first.id}`, { lang: 'en' })).body.eventName;
		expect(german).not.toBe(english);
		const { store } = credentialFor(sb, { language: 'de' });
		const get = {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: String(first.id) },
		};
		expect((await runPublicEvents(store, get)).items[0].json.eventName).toBe(german);
		expect(
			(await runPublicEvents(store, { ...get, options: { language: 'en' } })).items[0].json
				.eventName,
		).toBe(english);
	});

	it('a credential Default Language that is not a code (here with a header injected) fails naming it; nothing is sent', async () => {
		const { store } = credentialFor(sb, { language: 'de\r\nX-Injected: 1' });
		const before = (await sb.admin('GET', '/requests')).body.entries.length;
		const { items, error } = await runPublicEvents(store, getMany);
		expect(items).toEqual([]);
		expect(error).toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(
				/^The credential's Default Language must be a language code such as en or pt-BR/,
			),
		});
		expect((await sb.admin('GET', '/requests')).body.entries.length).toBe(before);
	});

	it('an empty list carries one hint, for the whole run: a missing event is an access setting', async () => {
		const { store } = credentialFor(sb);
		const hintsOf = (result: Awaited<ReturnType<typeof runPublicEvents>>) =>
			result.run.data.resultData.runData[NODE_NAME][0].hints;
		const empty = await runPublicEvents(
			store,
			{ ...getMany, filters: { dateStartedAfter: '2999-01-01' } },
			{ inputItems: [{}, {}] },
		);
		expect(empty.error).toBeUndefined();
		expect(empty.items).toEqual([]);
		expect(hintsOf(empty)).toEqual([
			{
				message: expect.stringMatching(
					/an access setting on the service side, not a fault\. .*Get Many Archived\.$/,
				),
				location: 'outputPane',
			},
		]);
		expect(
			hintsOf(await runPublicEvents(store, { ...getMany, returnAll: false, limit: 1 })),
		).toEqual([]);
	});

	it('Get Many Archived lists the events whose sale ended', async () => {
		const { store } = credentialFor(sb);
		const archived = (await sb.getAll('/event-points-archived')).map((e) => String(e.id));
		expect(archived.length).toBeGreaterThan(0);
		const { items } = await runPublicEvents(store, {
			resource: 'event',
			operation: 'getManyArchived',
			returnAll: true,
		});
		expect(ids(items)).toEqual(archived);
	});

	it('bad input fails before any request, naming the field and the item', async () => {
		const { store } = credentialFor(sb);
		const before = await mark(sb);
		const bad = await runPublicEvents(store, {
			resource: 'event',
			operation: 'get',
			eventId: { __rl: true, mode: 'id', value: 'abc' },
		});
		expect(bad.error?.message).toMatch(/^Event: expected a numeric ID/);
		const badDay = await runPublicEvents(store, {
			...getMany,
			filters: { dateStartedBefore: '31/12/2026' },
		});
		expect(badDay.error?.message).toMatch(/^Starts On or Before: expected a date/);
		const badLimit = await runPublicEvents(store, {
			...getMany,
			returnAll: false,
			limit: '={{ 0 }}',
		});
		expect(badLimit.error?.message).toMatch(/^Limit: expected a whole number/);
		const badRetries = await runPublicEvents(store, {
			...getMany,
			options: { maxRetries: '={{ "many" }}' },
		});
		expect(badRetries.error?.message).toMatch(
			/^Max Retries: expected a whole number of at least 0 and at most 20/,
		);
		expect(await since(sb, before)).toEqual([]);
	});

	it('continueOnFail: a missing event becomes an error item with the message and the body, and the run goes on', async () => {
		const { store } = credentialFor(sb);
		const [first] = await sb.getAll('/event-points');
		const { items, error } = await runPublicEvents(
			store,
			{
				resource: 'event',
				operation: 'get',
				eventId: { __rl: true, mode: 'id', value: '={{ $json.ref }}' },
			},
			{
				inputItems: [{ ref: '999999' }, { ref: String(first.id) }],
				onError: 'continueRegularOutput',
			},
		);
		expect(error).toBeUndefined();
		expect(items[0].json.error).toMatch(/not linked to your company/);
		expect(items[0].json.httpCode).toBe('404');
		expect(items[0].json.body).toEqual(expect.objectContaining({ code: expect.any(String) }));
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[1].json.id).toBe(first.id);
	});
});

describe('what the editor asks for', () => {
	const node = (store: ReturnType<typeof credentialFor>['store']) => ({
		nodeType: new PublicEvents(),
		type: 'CUSTOM.publicEvents',
		credentials: store,
		parameters: { resource: 'event', operation: 'get' },
	});

	it('the event list shows name, date and venue, and filters by text', async () => {
		const { store } = credentialFor(sb);
		const [first] = await sb.getAll('/event-points', { query: { 'order[dateStarted]': 'asc' } });
		const all = await callListSearch({ ...node(store), method: 'searchEvents' });
		expect(all.results[0]).toEqual({
			name: `${first.eventName} · ${first.dateStarted.slice(0, 16).replace('T', ' ')} · ${first.venue.name}`,
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
		const { store } = credentialFor(sb);
		const cities = await sb.getAll('/cities');
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
				(await sb.getAll(path)).map((r) => String(r.id)).sort(),
			]);
		}
	});
});
