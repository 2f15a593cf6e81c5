import { PublicEvents } from '../../../../nodes/PublicEvents/PublicEvents.node';
import { callListSearch, callLoadOptions } from '../../../../harness/engine';
import { byId, mark, since } from '../../../../harness/nodes/publicEvents';
import { EVENT, hallPlanSuite } from '../../../../harness/nodes/hallPlan';

const { sb, store } = hallPlanSuite();

describe('lists in the editor: sector, place, price category, promo code', () => {
	const editor = (parameters: Record<string, unknown>) => ({
		nodeType: new PublicEvents(),
		type: 'CUSTOM.publicEvents',
		credentials: store(),
		parameters: { resource: 'order', operation: 'create', ...parameters },
	});

	it('sectors of the chosen event, with free places', async () => {
		const sectors = await sb().getAll(`/event-points/${EVENT}/sectors`);
		const { results } = await callListSearch({
			...editor({ eventId: { __rl: true, mode: 'list', value: String(EVENT) } }),
			method: 'searchSectors',
		});
		expect(results).toEqual(
			sectors.map((s) => ({
				name: `${s.name} · ${s.availableCount} available`,
				value: String(s.id),
			})),
		);
	});

	it(
		'places show sector, row, place and availability; the sector ' + 'narrows them; text filters',
		async () => {
			const places = await sb().getAll(`/event-points/${EVENT}/places`);
			const [sector] = await sb().getAll(`/event-points/${EVENT}/sectors`);
			const event = { __rl: true, mode: 'id', value: `/api/v2/event-points/${EVENT}` };
			const all = await callListSearch({ ...editor({ eventId: event }), method: 'searchPlaces' });
			expect(all.results).toHaveLength(places.length);
			const first = places[0];
			expect(all.results[0]).toEqual({
				name:
					`${first.sectorName} · Row ${first.rowName} · Place ${first.placeName}` +
					` · ${first.availableCount > 0 ? 'available' : 'not available'}`,
				value: String(first.id),
			});
			expect(all.results.filter((r) => r.name.endsWith('not available'))).toHaveLength(
				places.filter((p) => p.availableCount === 0).length,
			);

			const inSector = await callListSearch({
				...editor({
					eventId: event,
					sectorId: { __rl: true, mode: 'list', value: String(sector.id) },
				}),
				method: 'searchPlaces',
			});
			expect(inSector.results.map((r) => r.value)).toEqual(
				places.filter((p) => p.sectorId === sector.id).map((p) => String(p.id)),
			);

			const row2 = await callListSearch({
				...editor({ eventId: event }),
				method: 'searchPlaces',
				filter: `${sector.name} · row 2 ·`,
			});
			expect(row2.results.map((r) => r.value)).toEqual(
				places
					.filter((p) => p.sectorId === sector.id && p.rowName === '2')
					.map((p) => String(p.id)),
			);
		},
	);

	it(
		'price categories come from the chosen place, with their ' +
			'price; read from its sector when one is chosen',
		async () => {
			const free = await sb().freePlace(EVENT);
			const chosen = (await sb().getAll(`/event-points/${EVENT}/places`)).find(
				(p) => String(p.id) === free.id,
			);
			const expected = chosen.priceCategories.map((c: any) => ({
				name: `${c.name} · ${c.price.amount} ${c.price.currency}`,
				value: String(c.id),
			}));
			const places = { __rl: true, mode: 'list', value: free.id };
			expect(
				await callLoadOptions({
					...editor({ eventId: byId(EVENT), places }),
					method: 'getPriceCategories',
				}),
			).toEqual(expected);

			const before = await mark(sb());
			const sectorId = byId(chosen.sectorId);
			expect(
				await callLoadOptions({
					...editor({ eventId: byId(EVENT), sectorId, places }),
					method: 'getPriceCategories',
				}),
			).toEqual(expected);
			expect(
				(await since(sb(), before)).filter((e) => e.route !== '/token').map((e) => e.path),
			).toEqual([`/event-points/${EVENT}/sectors/${chosen.sectorId}/places`]);
			expect(
				await callLoadOptions({
					...editor({ eventId: byId(EVENT) }),
					method: 'getPriceCategories',
				}),
			).toEqual([
				{ name: 'Choose a place above first: its price categories are listed here', value: '' },
			]);
		},
	);

	it(
		'Hold Best Available: the price categories of the free places, cheapest first, each with ' +
			'how many are free; the sector narrows them; an expression lists nothing',
		async () => {
			const hold = (parameters: Record<string, unknown>) => ({
				...editor({ operation: 'holdBestAvailable', ...parameters }),
				method: 'getFreePriceCategories',
			});
			const expected = (places: any[]) => {
				const byId = new Map<string, { c: any; n: number }>();
				for (const p of places.filter((place) => place.availableCount > 0))
					for (const c of p.priceCategories)
						byId.set(String(c.id), { c, n: (byId.get(String(c.id))?.n ?? 0) + 1 });
				return [...byId.entries()]
					.sort(([, a], [, b]) => a.c.price.amount - b.c.price.amount)
					.map(([id, { c, n }]) => ({
						name: `${c.name} · ${c.price.amount} ${c.price.currency} · ${n} free`,
						value: id,
					}));
			};
			const places = await sb().getAll(`/event-points/${EVENT}/places`);
			const all = await callLoadOptions(hold({ eventId: byId(EVENT) }));
			expect(all).toEqual(expected(places));
			expect(all.length).toBeGreaterThan(1);

			const sectorId = places[0].sectorId;
			expect(
				await callLoadOptions(hold({ eventId: byId(EVENT), sectorId: byId(sectorId) })),
			).toEqual(expected(places.filter((p) => p.sectorId === sectorId)));
			expect(await callLoadOptions(hold({}))).toEqual([
				{
					name:
						'Choose the event above first: the price categories of its free ' +
						'places are listed here',
					value: '',
				},
			]);
			const before = await mark(sb());
			expect(
				await callLoadOptions(
					hold({
						eventId: byId(EVENT),
						price: 'category',
						priceCategoryId: "={{ $fromAI('priceCategoryId') }}",
					}),
				),
			).toEqual([]);
			expect(await since(sb(), before)).toEqual([]);
		},
	);

	it(
		"a price category set by an expression (a tool's $fromAI) " + 'lists nothing and asks nothing',
		async () => {
			const fromAI = (key: string) => `={{ $fromAI('${key}', 'an id', 'number') }}`;
			const before = await mark(sb());
			const parameters = {
				eventId: byId(fromAI('eventId')),
				places: byId(fromAI('placeIds')),
				priceCategory: fromAI('priceCategoryId'),
			};
			expect(
				await callLoadOptions({ ...editor(parameters), method: 'getPriceCategories' }),
			).toEqual([]);
			// As the editor sends them: expressions resolved, $fromAI to null.
			const resolved = {
				eventId: { __rl: true, mode: 'id', value: null },
				places: { __rl: true, mode: 'id', value: null },
				priceCategory: null,
			};
			expect(await callLoadOptions({ ...editor(resolved), method: 'getPriceCategories' })).toEqual(
				[],
			);
			expect(await since(sb(), before)).toEqual([]);
		},
	);

	it('promo codes are the ones the company may use now, with their discount', async () => {
		const options = await callLoadOptions({ ...editor({}), method: 'getPromoCodes' });
		expect(options.map((o) => o.value).sort()).toEqual(['PARTNER10', 'WINTER20']);
		expect(options.find((o) => o.value === 'PARTNER10')?.description).toMatch(
			/^10% off, valid until \d{4}-\d{2}-\d{2}$/,
		);
	});

	it(
		'without an event the lists wait: one entry says to choose ' +
			'the event first, nothing is asked',
		async () => {
			const before = await mark(sb());
			const none = { __rl: true, mode: 'list', value: '' };
			expect(await callListSearch({ ...editor({}), method: 'searchPlaces' })).toEqual({
				results: [{ name: 'Choose the event above first: its places are listed here', value: '' }],
			});
			expect(
				await callListSearch({ ...editor({ eventId: none }), method: 'searchSectors' }),
			).toEqual({
				results: [{ name: 'Choose the event above first: its sectors are listed here', value: '' }],
			});
			expect(
				await callLoadOptions({
					...editor({ eventId: none, places: none }),
					method: 'getPriceCategories',
				}),
			).toEqual([
				{
					name: 'Choose the event above first, then a place: its price categories are listed here',
					value: '',
				},
			]);
			expect(await since(sb(), before)).toEqual([]);
		},
	);
});
