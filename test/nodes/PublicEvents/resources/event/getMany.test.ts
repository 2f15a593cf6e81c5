import { NODE_NAME } from '../../../../../harness/engine';
import { ids, mark, runPublicEvents, since } from '../../../../../harness/nodes/publicEvents';
import { eventsSuite } from '../../../../../harness/nodes/suites';

const { sb, credential } = eventsSuite();

const getMany = { resource: 'event', operation: 'getMany', returnAll: true };

describe('Event operations', () => {
	it('Get Many: Limit, filters and sort are sent as the spec names them', async () => {
		const { store } = credential();
		const all = await sb().getAll('/event-points');
		const city = all[0].city.id;
		const expected = (
			await sb().getAll('/event-points', {
				query: { 'city.id[]': [city], 'order[dateStarted]': 'desc' },
			})
		).map((e) => String(e.id));
		const before = await mark(sb());
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
		const [request, ...more] = (await since(sb(), before)).filter(
			(e) => e.route === '/event-points',
		);
		expect(more).toEqual([]);
		const query = new URLSearchParams(request.query);
		expect(query.getAll('city.id[]')).toEqual([String(city)]);
		expect(query.get('dateStarted[after]')).toBe('2000-01-01');
		expect(query.get('order[dateStarted]')).toBe('desc');
		expect(query.get('itemsPerPage')).toBe('3');
	});

	it(
		'a credential Default Language that is not a code (here with ' +
			'a header injected) fails naming it; nothing is sent',
		async () => {
			const { store } = credential({ language: 'de\r\nX-Injected: 1' });
			const before = (await sb().admin('GET', '/requests')).body.entries.length;
			const { items, error } = await runPublicEvents(store, getMany);
			expect(items).toEqual([]);
			expect(error).toMatchObject({
				name: 'NodeOperationError',
				message: expect.stringMatching(
					/^The credential's Default Language must be a language code such as en or pt-BR/,
				),
			});
			expect((await sb().admin('GET', '/requests')).body.entries.length).toBe(before);
		},
	);

	it(
		'an empty list carries one hint, for the whole run: a missing ' + 'event is an access setting',
		async () => {
			const { store } = credential();
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
		},
	);
});
