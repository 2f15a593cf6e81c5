import { mark, runPublicEvents, since } from '../../../../../harness/nodes/publicEvents';
import { eventsSuite } from '../../../../../harness/nodes/suites';

const { sb, credential } = eventsSuite();

const getMany = { resource: 'event', operation: 'getMany', returnAll: true };

describe('Event operations', () => {
	it('Get takes an ID, an IRI or an expression, one output item per input item', async () => {
		const { store } = credential();
		const [first, second] = await sb().getAll('/event-points');
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
		const [first] = await sb().getAll('/event-points');
		const german = (await sb().get(`/event-points/${first.id}`, { lang: 'de' })).body.eventName;
		const english = (await sb().get(`/event-points/${first.id}`, { lang: 'en' })).body.eventName;
		expect(german).not.toBe(english);
		const { store } = credential({ language: 'de' });
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

	it('bad input fails before any request, naming the field and the item', async () => {
		const { store } = credential();
		const before = await mark(sb());
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
		expect(await since(sb(), before)).toEqual([]);
	});

	it(
		'continueOnFail: a missing event becomes an error item with ' +
			'the message and the body, and the run goes on',
		async () => {
			const { store } = credential();
			const [first] = await sb().getAll('/event-points');
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
		},
	);
});
