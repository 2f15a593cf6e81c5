import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { callListSearch, callLoadOptions } from '../helpers/engine';
import { credentialFor, ids, mark, runPublicEvents, since } from '../helpers/publicEvents';
import { SandboxClient } from '../helpers/sandboxClient';

/** Event 1001 has 30 places in two sectors, some sold; 1003 is sold out (sandbox seed). */
const EVENT = 1001;
const SOLD_OUT = 1003;
let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];

beforeAll(async () => {
	sb = await SandboxClient.start({
		events: 4,
		placesPerEvent: 30,
		privateEvents: 0,
		archivedEvents: 0,
		widgetOrders: 0,
	});
	store = credentialFor(sb).store;
});
afterAll(() => sb.stop());

const byId = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });
const hallPlan = (operation: string, parameters: Record<string, unknown> = {}) =>
	runPublicEvents(store, {
		resource: 'hallPlan',
		operation,
		eventId: byId(EVENT),
		returnAll: true,
		...parameters,
	});

describe('Hall Plan operations', () => {
	it('Get Sectors: one item per sector; Limit asks for no more than it needs', async () => {
		const sectors = await sb.getAll(`/event-points/${EVENT}/sectors`);
		expect(sectors.length).toBe(2);
		const all = await hallPlan('getSectors');
		expect(all.error).toBeUndefined();
		expect(ids(all.items)).toEqual(sectors.map((s) => String(s.id)));
		expect(all.items[0].json).toEqual(
			expect.objectContaining({ name: sectors[0].name, availableCount: sectors[0].availableCount }),
		);

		const before = await mark(sb);
		const one = await hallPlan('getSectors', { returnAll: false, limit: 1 });
		expect(ids(one.items)).toEqual([String(sectors[0].id)]);
		const requests = (await since(sb, before)).filter(
			(e) => e.route === '/event-points/{id}/sectors',
		);
		expect(requests.map((e) => new URLSearchParams(e.query).get('itemsPerPage'))).toEqual(['1']);
	});

	it('Get Sector Places: the sector by IRI; Only Available keeps availableCount > 0', async () => {
		const [, sector] = await sb.getAll(`/event-points/${EVENT}/sectors`);
		const places = await sb.getAll(`/event-points/${EVENT}/sectors/${sector.id}/places`);
		const free = places.filter((p) => p.availableCount > 0);
		expect(free.length).toBeGreaterThan(0);
		expect(free.length).toBeLessThan(places.length); // the seed sold some
		const sectorId = byId(`/api/v2/event-points/${EVENT}/sectors/${sector.id}`);

		const all = await hallPlan('getSectorPlaces', { sectorId });
		expect(ids(all.items)).toEqual(places.map((p) => String(p.id)));
		const available = await hallPlan('getSectorPlaces', {
			sectorId,
			options: { onlyAvailable: true },
		});
		expect(ids(available.items)).toEqual(free.map((p) => String(p.id)));
	});

	it('Get Places: every place of the event, one item each, with price categories', async () => {
		const places = await sb.getAll(`/event-points/${EVENT}/places`);
		const { items, error } = await hallPlan('getPlaces');
		expect(error).toBeUndefined();
		expect(items).toHaveLength(30);
		expect(ids(items)).toEqual(places.map((p) => String(p.id)));
		expect(items[0].json.priceCategories).toEqual(places[0].priceCategories);
		expect(
			items.every((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0),
		).toBe(true);
	});

	it('Get Places, Only Available: sold places are left out, Limit counts the places kept', async () => {
		const places = await sb.getAll(`/event-points/${EVENT}/places`);
		const free = places.filter((p) => p.availableCount > 0);
		const firstSold = places.findIndex((p) => p.availableCount === 0);
		expect(firstSold).toBeGreaterThanOrEqual(0);

		const available = await hallPlan('getPlaces', { options: { onlyAvailable: true } });
		expect(ids(available.items)).toEqual(free.map((p) => String(p.id)));
		expect(available.items.every((item) => Number(item.json.availableCount) > 0)).toBe(true);

		const limited = await hallPlan('getPlaces', {
			returnAll: false,
			limit: firstSold + 1,
			options: { onlyAvailable: true },
		});
		expect(ids(limited.items)).toEqual(free.slice(0, firstSold + 1).map((p) => String(p.id)));

		const soldOut = await runPublicEvents(store, {
			resource: 'hallPlan',
			operation: 'getPlaces',
			eventId: byId(SOLD_OUT),
			returnAll: true,
			options: { onlyAvailable: true },
		});
		expect(soldOut.error).toBeUndefined();
		expect(soldOut.items).toEqual([]);
	});

	it('a hold shows at once: the held place is no longer available', async () => {
		const place = await sb.freePlace(EVENT);
		const order = await sb.send('POST', '/orders', {
			eventPoint: String(EVENT),
			places: [place.id],
			priceCategory: place.priceCategory,
		});
		expect(order.status).toBe(201);
		const available = await hallPlan('getPlaces', { options: { onlyAvailable: true } });
		expect(ids(available.items)).not.toContain(place.id);
		await sb.send('PUT', `/orders/${order.body.id}/status`, { toStatus: 'expired' });
		expect(
			ids((await hallPlan('getPlaces', { options: { onlyAvailable: true } })).items),
		).toContain(place.id);
	});

	it('the event by expression, one run per input item, paired to its item', async () => {
		const two = await runPublicEvents(
			store,
			{
				resource: 'hallPlan',
				operation: 'getSectors',
				eventId: { __rl: true, mode: 'id', value: '={{ $json.event }}' },
				returnAll: false,
				limit: 1,
			},
			{ inputItems: [{ event: EVENT }, { event: `/api/v2/event-points/${EVENT + 1}` }] },
		);
		expect(two.error).toBeUndefined();
		expect(two.items.map((item) => [item.json.eventPointId, item.pairedItem])).toEqual([
			[EVENT, { item: 0 }],
			[EVENT + 1, { item: 1 }],
		]);
	});

	it('reads the JSON-LD envelope the same way', async () => {
		const expected = (await sb.getAll(`/event-points/${EVENT}/places`)).map((p) => String(p.id));
		await sb.admin('PUT', '/config', { envelope: 'hydra' });
		try {
			const { items, error } = await hallPlan('getPlaces');
			expect(error).toBeUndefined();
			expect(ids(items)).toEqual(expected);
		} finally {
			await sb.admin('PUT', '/config', { envelope: 'array' });
		}
	});

	it('bad input fails before any request, naming the field', async () => {
		const before = await mark(sb);
		expect((await hallPlan('getPlaces', { eventId: byId('next week') })).error?.message).toMatch(
			/^Event: expected a numeric ID/,
		);
		expect((await hallPlan('getSectorPlaces', { sectorId: byId('VIP') })).error?.message).toMatch(
			/^Sector: expected a numeric ID/,
		);
		expect(
			(await hallPlan('getSectors', { returnAll: false, limit: '={{ -1 }}' })).error?.message,
		).toMatch(/^Limit: expected a whole number/);
		expect(await since(sb, before)).toEqual([]);
	});

	it('a missing event says it is an access setting, not a fault', async () => {
		const { error } = await hallPlan('getPlaces', { eventId: byId(999999) });
		expect(error?.message).toMatch(/not linked to your company/);
	});
});

describe('lists in the editor: sector, place, price category, promo code', () => {
	const editor = (parameters: Record<string, unknown>) => ({
		nodeType: new PublicEvents(),
		type: 'CUSTOM.publicEvents',
		credentials: store,
		parameters: { resource: 'order', operation: 'create', ...parameters },
	});

	it('sectors of the chosen event, with free places', async () => {
		const sectors = await sb.getAll(`/event-points/${EVENT}/sectors`);
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

	it('places show sector, row, place and availability; the sector narrows them; text filters', async () => {
		const places = await sb.getAll(`/event-points/${EVENT}/places`);
		const [sector] = await sb.getAll(`/event-points/${EVENT}/sectors`);
		const event = { __rl: true, mode: 'id', value: `/api/v2/event-points/${EVENT}` };
		const all = await callListSearch({ ...editor({ eventId: event }), method: 'searchPlaces' });
		expect(all.results).toHaveLength(places.length);
		const first = places[0];
		expect(all.results[0]).toEqual({
			name: `${first.sectorName} · Row ${first.rowName} · Place ${first.placeName} · ${first.availableCount > 0 ? 'available' : 'not available'}`,
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
			places.filter((p) => p.sectorId === sector.id && p.rowName === '2').map((p) => String(p.id)),
		);
	});

	it('price categories come from the chosen place, with their price; read from its sector when one is chosen', async () => {
		const free = await sb.freePlace(EVENT);
		const chosen = (await sb.getAll(`/event-points/${EVENT}/places`)).find(
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

		const before = await mark(sb);
		const sectorId = byId(chosen.sectorId);
		expect(
			await callLoadOptions({
				...editor({ eventId: byId(EVENT), sectorId, places }),
				method: 'getPriceCategories',
			}),
		).toEqual(expected);
		expect(
			(await since(sb, before)).filter((e) => e.route !== '/token').map((e) => e.path),
		).toEqual([`/event-points/${EVENT}/sectors/${chosen.sectorId}/places`]);
		expect(
			await callLoadOptions({ ...editor({ eventId: byId(EVENT) }), method: 'getPriceCategories' }),
		).toEqual([
			{ name: 'Choose a place above first: its price categories are listed here', value: '' },
		]);
	});

	it("a price category set by an expression (a tool's $fromAI) lists nothing and asks nothing", async () => {
		const fromAI = (key: string) => `={{ $fromAI('${key}', 'an id', 'number') }}`;
		const before = await mark(sb);
		const parameters = {
			eventId: byId(fromAI('eventId')),
			places: byId(fromAI('placeIds')),
			priceCategory: fromAI('priceCategoryId'),
		};
		expect(await callLoadOptions({ ...editor(parameters), method: 'getPriceCategories' })).toEqual(
			[],
		);
		// As the editor sends them: expressions resolved, $fromAI to null.
		const resolved = {
			eventId: { __rl: true, mode: 'id', value: null },
			places: { __rl: true, mode: 'id', value: null },
			priceCategory: null,
		};
		expect(await callLoadOptions({ ...editor(resolved), method: 'getPriceCategories' })).toEqual(
			[],
		);
		expect(await since(sb, before)).toEqual([]);
	});

	it('promo codes are the ones the company may use now, with their discount', async () => {
		const options = await callLoadOptions({ ...editor({}), method: 'getPromoCodes' });
		expect(options.map((o) => o.value).sort()).toEqual(['PARTNER10', 'WINTER20']);
		expect(options.find((o) => o.value === 'PARTNER10')?.description).toMatch(
			/^10% off, valid until \d{4}-\d{2}-\d{2}$/,
		);
	});

	it('without an event the lists wait: one entry says to choose the event first, nothing is asked', async () => {
		const before = await mark(sb);
		const none = { __rl: true, mode: 'list', value: '' };
		expect(await callListSearch({ ...editor({}), method: 'searchPlaces' })).toEqual({
			results: [{ name: 'Choose the event above first: its places are listed here', value: '' }],
		});
		expect(await callListSearch({ ...editor({ eventId: none }), method: 'searchSectors' })).toEqual(
			{
				results: [{ name: 'Choose the event above first: its sectors are listed here', value: '' }],
			},
		);
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
		expect(await since(sb, before)).toEqual([]);
	});
});
