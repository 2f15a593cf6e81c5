import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEvents } from '../../../../../nodes/PublicEvents/PublicEvents.node';
import { MAX_PAGES_IN_FLIGHT } from '../../../../../nodes/shared/transport';
import { NODE_NAME, runNode } from '../../../../../harness/engine';
import {
	ids,
	mark,
	query,
	routed,
	runPublicEvents,
	since,
} from '../../../../../harness/nodes/publicEvents';
import { manyEventsSuite } from '../../../../../harness/nodes/suites';

/**
 * Event > Get Many's searches by words: City (a name, resolved through GET /cities to `city.id[]`)
 * and Name Contains (the API has no name search: the node keeps the matching events of the pages it
 * reads). Against the sandbox over HTTP, as the plain node and as an AI agent's tool.
 */
const { sb, credential } = manyEventsSuite();

/** The node as n8n wraps it for an agent (`publicEventsTool`): what '@tool' options key on. */
class PublicEventsTool extends PublicEvents {
	description = { ...new PublicEvents().description, name: 'publicEventsTool' };
}

const getMany = (filters: IDataObject, extra: IDataObject = {}): INodeParameters => ({
	resource: 'event',
	operation: 'getMany',
	returnAll: true,
	filters: filters as INodeParameters,
	...extra,
});
const hintsOf = (result: Awaited<ReturnType<typeof runPublicEvents>>) =>
	(result.run.data.resultData.runData[NODE_NAME][0].hints ?? []).map((h) => h.message);
/** The words search compares: no case, no accents, punctuation as spaces. */
const plain = (text: string) =>
	text
		.normalize('NFKD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]+/gu, ' ')
		.trim();

let events: any[];
let citiesEn: any[];
let citiesDe: any[];
beforeAll(async () => {
	events = await sb().getAll('/event-points');
	citiesEn = await sb().getAll('/cities');
	citiesDe = await sb().getAll('/cities', { lang: 'de' });
	expect(events).toHaveLength(250);
});

const inCity = (id: number) => events.filter((e) => e.city.id === id).map((e) => String(e.id));

describe('Event > Get Many: City, by name', () => {
	it(
		'finds the city in the list of the language used, case and accents aside, and sends its ' +
			'id as city.id[]: exactly its events, one read of the cities',
		async () => {
			const zurich = citiesDe.find((c) => c.name === 'Zürich');
			const cologne = citiesDe.find((c) => c.name === 'Köln');
			expect([zurich, cologne]).toEqual([expect.anything(), expect.anything()]);
			const { store } = credential({ language: 'de' });
			for (const [given, city] of [
				['zurich', zurich],
				['  KÖLN ', cologne],
				['Koln', cologne],
			]) {
				const before = await mark(sb());
				const { items, error } = await runPublicEvents(store, getMany({ cityName: given }));
				expect([given, error]).toEqual([given, undefined]);
				expect(ids(items)).toEqual(inCity(city.id));
				const log = await since(sb(), before);
				expect(routed(log, '/cities')).toHaveLength(1);
				const lists = routed(log, '/event-points');
				expect(lists.map((e) => query(e).getAll('city.id[]'))).toEqual(
					lists.map(() => [String(city.id)]),
				);
			}
		},
	);

	it(
		'a name in another language than the one used is no city: the words list the ' +
			'names there are',
		async () => {
			const { store } = credential();
			const before = await mark(sb());
			const result = await runPublicEvents(store, getMany({ cityName: 'München' }));
			expect(result.error).toBeUndefined();
			expect(result.items).toEqual([]);
			const [hint] = hintsOf(result);
			expect(hint).toMatch(/^No city is named "München" in the service's list of cities/);
			// The sandbox's eight cities, in the language used (English here): Munich among them.
			for (const city of citiesEn) expect(hint).toContain(city.name);
			// Nothing is searched for a city that is not there.
			expect(routed(await since(sb(), before), '/event-points')).toEqual([]);
		},
	);

	it(
		'as a tool, a name that is no city answers words saying so (an agent reads [] as ' +
			'"nothing on"); the plain node answers no items and a hint',
		async () => {
			const { store } = credential();
			const tool = await runNode({
				nodeType: new PublicEventsTool(),
				type: 'CUSTOM.publicEventsTool',
				parameters: getMany({ cityName: 'Atlantis' }, { returnAll: false, limit: 10 }),
				credentials: store,
			});
			expect(tool.error).toBeUndefined();
			expect(tool.items.map((i) => i.json)).toEqual([
				{
					message: expect.stringMatching(
						new RegExp(
							'^No city is named "Atlantis" in the service\'s list of cities, so no events ' +
								'were searched\\. The cities are: .*Berlin',
						),
					),
				},
			]);
			const node = await runPublicEvents(store, getMany({ cityName: 'Atlantis' }));
			expect([node.items, hintsOf(node)]).toEqual([
				[],
				[expect.stringMatching(/^No city is named "Atlantis"/)],
			]);
		},
	);

	it(
		'several cities of the name: events of any of them, and a hint naming them; a country ' +
			'after the name picks one; a start of a name in whole words picks those it starts',
		async () => {
			const served = [
				{ id: 11, name: 'Berlin', country: { id: 1, name: 'Germany', code: 'DE' } },
				{ id: 31, name: 'Valencia', country: { id: 5, name: 'Spain', code: 'ES' } },
				{ id: 32, name: 'Valencia', country: { id: 6, name: 'Venezuela', code: 'VE' } },
				{ id: 33, name: 'Frankfurt am Main', country: { id: 1, name: 'Germany', code: 'DE' } },
				{ id: 34, name: 'Frankfurt (Oder)', country: { id: 1, name: 'Germany', code: 'DE' } },
				{ id: 35, name: 'Frankfurter Allee', country: { id: 1, name: 'Germany', code: 'DE' } },
			];
			const cityIdsSent = async (cityName: string) => {
				await sb().admin('POST', '/faults', {
					kind: 'status',
					status: 200,
					path: '/cities',
					body: served,
					count: 1,
				});
				const { store } = credential();
				const before = await mark(sb());
				const result = await runPublicEvents(store, getMany({ cityName }));
				expect(result.error).toBeUndefined();
				const [first] = routed(await since(sb(), before), '/event-points');
				return { sent: first && query(first).getAll('city.id[]'), hints: hintsOf(result) };
			};

			expect(await cityIdsSent('valencia')).toEqual({
				sent: ['31', '32'],
				hints: [
					'"valencia" names 2 cities: Valencia (Spain), Valencia (Venezuela). ' +
						'The events of any of them are listed.',
					expect.stringMatching(/^No event was found in Valencia \(Spain\) or Valencia/),
				],
			});
			expect((await cityIdsSent('Valencia, Spain')).sent).toEqual(['31']);
			expect((await cityIdsSent('valencia VE')).sent).toEqual(['32']);
			// Whole words: "Frankfurt" is not the start of "Frankfurter Allee".
			expect((await cityIdsSent('Frankfurt')).sent).toEqual(['33', '34']);
			expect((await cityIdsSent('frankfurt am main')).sent).toEqual(['33']);
			expect((await cityIdsSent('Berlin')).sent).toEqual(['11']);
			expect((await cityIdsSent('Frank')).sent).toBeUndefined();
		},
	);

	it('with City Names or IDs too: the cities in both; none in both searches nothing', async () => {
		const [berlin, vienna] = ['Berlin', 'Vienna'].map((n) => citiesEn.find((c) => c.name === n));
		const { store } = credential();
		const both = await runPublicEvents(
			store,
			getMany({ cityName: 'berlin', cityIds: [String(berlin.id), String(vienna.id)] }),
		);
		expect(ids(both.items)).toEqual(inCity(berlin.id));

		const before = await mark(sb());
		const none = await runPublicEvents(
			store,
			getMany({ cityName: 'Vienna', cityIds: [String(berlin.id)] }),
		);
		expect([none.error, none.items, hintsOf(none)]).toEqual([
			undefined,
			[],
			['No city chosen in City Names or IDs is named "Vienna", so no events were searched.'],
		]);
		expect(routed(await since(sb(), before), '/event-points')).toEqual([]);
	});
});

describe('Event > Get Many: Name Contains, applied by the node', () => {
	/** A performer of the seeded catalog with events on several pages. */
	let performer: string;
	let named: string[];
	beforeAll(() => {
		const byPerformer = new Map<string, string[]>();
		for (const e of events) {
			const who = String(e.eventName).split(':')[0];
			byPerformer.set(who, [...(byPerformer.get(who) ?? []), String(e.id)]);
		}
		[performer, named] = [...byPerformer].sort((a, b) => b[1].length - a[1].length)[0];
		expect(named.length).toBeGreaterThan(20);
	});

	it('keeps the events whose name holds the words, case, accents, punctuation aside', async () => {
		const { store } = credential();
		const shouted = performer.toUpperCase().replace(' ', ' -  ');
		const { items, error } = await runPublicEvents(store, getMany({ nameContains: shouted }));
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(named);
		// Accents: "Die Lachmöwen" is found as "lachmowen"; "Ö" typed as "O" too.
		const gull = events.filter((e) => e.eventName.includes('Lachmöwen')).map((e) => String(e.id));
		expect(gull.length).toBeGreaterThan(0);
		const found = await runPublicEvents(store, getMany({ nameContains: 'lachmowen' }));
		expect(ids(found.items)).toEqual(gull);
		// Nothing goes to the service for it: the API has no name search.
		expect(
			events.filter((e) => plain(e.eventName).includes(plain(shouted))).map((e) => String(e.id)),
		).toEqual(named);
	});

	it(
		'Limit counts matching events: pages are read until Limit matches, not to the end of ' +
			'the list; none to be had reads the list to its end',
		async () => {
			const onFirstPage = events.slice(0, 100).filter((e) => named.includes(String(e.id))).length;
			expect(named.length).toBeGreaterThan(onFirstPage + 1);
			const { store } = credential();

			let before = await mark(sb());
			const few = await runPublicEvents(
				store,
				getMany({ nameContains: performer }, { returnAll: false, limit: onFirstPage }),
			);
			expect(ids(few.items)).toEqual(named.slice(0, onFirstPage));
			expect(routed(await since(sb(), before), '/event-points')).toHaveLength(1);

			before = await mark(sb());
			const more = await runPublicEvents(
				store,
				getMany({ nameContains: performer }, { returnAll: false, limit: onFirstPage + 1 }),
			);
			expect(ids(more.items)).toEqual(named.slice(0, onFirstPage + 1));
			const pages = routed(await since(sb(), before), '/event-points').map((e) =>
				Number(query(e).get('page')),
			);
			expect(pages.sort((a, b) => a - b).slice(0, 2)).toEqual([1, 2]);
			expect(pages.length - 2).toBeLessThan(MAX_PAGES_IN_FLIGHT);

			before = await mark(sb());
			const none = await runPublicEvents(
				store,
				getMany({ nameContains: 'no such show' }, { returnAll: false, limit: 5 }),
			);
			expect([none.items, hintsOf(none)[0]]).toEqual([
				[],
				expect.stringMatching(/^No event was found whose name contains "no such show"\. No events/),
			]);
			// The list's end: three pages of 100 and fewer than a window read past them.
			const read = routed(await since(sb(), before), '/event-points');
			expect(read.length).toBeGreaterThanOrEqual(3);
			expect(read.length - 3).toBeLessThan(MAX_PAGES_IN_FLIGHT);
		},
	);

	it('with City: the events of that city whose name matches; words when none does', async () => {
		const city = events.find((e) => named.includes(String(e.id))).city;
		const expected = events
			.filter((e) => e.city.id === city.id && named.includes(String(e.id)))
			.map((e) => String(e.id));
		const { store } = credential();
		const { items } = await runPublicEvents(
			store,
			getMany({ nameContains: performer.toLowerCase(), cityName: city.name }),
		);
		expect(ids(items)).toEqual(expected);

		const tool = await runNode({
			nodeType: new PublicEventsTool(),
			type: 'CUSTOM.publicEventsTool',
			parameters: getMany({ nameContains: 'no such show', cityName: city.name }),
			credentials: store,
		});
		expect(tool.items.map((i) => i.json)).toEqual([
			{
				message: `No event was found whose name contains "no such show" in ${city.name} (${
					citiesEn.find((c) => c.id === city.id).country.name
				}).`,
			},
		]);
	});

	it('applies to Get Many Archived too', async () => {
		const archived = await sb().getAll('/event-points-archived');
		const word = String(archived[0].eventName).split(':')[0];
		const { store } = credential();
		const { items } = await runPublicEvents(store, {
			...getMany({ nameContains: word }),
			operation: 'getManyArchived',
		});
		expect(ids(items)).toEqual(
			archived.filter((e) => plain(e.eventName).includes(plain(word))).map((e) => String(e.id)),
		);
	});
});

describe('Event > Get Many: bad City or Name Contains', () => {
	it.each([
		['City', { cityName: { name: 'Berlin' } }, /^City: expected text, got "\{"name":"Berlin"\}"/],
		['City', { cityName: 'x'.repeat(1001) }, /^City: expected at most 1000 characters/],
		['City', { cityName: '   ' }, /^City: expected a value, got " {3}"/],
		['Name Contains', { nameContains: '!?' }, /^Name Contains: expected letters or digits/],
		['Name Contains', { nameContains: ['Gala'] }, /^Name Contains: expected text/],
	])('%s (case %#) fails naming the field before any request', async (_field, filters, message) => {
		const { store } = credential();
		const before = await mark(sb());
		const { items, error } = await runPublicEvents(store, getMany(filters));
		expect(items).toEqual([]);
		expect(error).toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(message),
		});
		expect((await since(sb(), before)).filter((e) => e.route !== '/token')).toEqual([]);
	});

	it('empty City and Name Contains are no filter (what an agent leaves out)', async () => {
		const { store } = credential();
		const before = await mark(sb());
		const { items } = await runPublicEvents(
			store,
			getMany({ cityName: '', nameContains: '' }, { returnAll: false, limit: 3 }),
		);
		expect(ids(items)).toEqual(events.slice(0, 3).map((e) => String(e.id)));
		expect(routed(await since(sb(), before), '/cities')).toEqual([]);
	});
});
