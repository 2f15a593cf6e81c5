import { byId, ids, mark, runPublicEvents, since } from '../../../../../harness/nodes/publicEvents';
import { EVENT, hallPlanSuite, SOLD_OUT } from '../../../../../harness/nodes/hallPlan';

const { sb, store, hallPlan } = hallPlanSuite();

describe('Hall Plan operations', () => {
	it('Get Places: every place of the event, one item each, with price categories', async () => {
		const places = await sb().getAll(`/event-points/${EVENT}/places`);
		const { items, error } = await hallPlan('getPlaces');
		expect(error).toBeUndefined();
		expect(items).toHaveLength(30);
		expect(ids(items)).toEqual(places.map((p) => String(p.id)));
		expect(items[0].json.priceCategories).toEqual(places[0].priceCategories);
		expect(
			items.every((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0),
		).toBe(true);
	});

	it(
		'Get Places, Only Available: sold places are left out, Limit ' + 'counts the places kept',
		async () => {
			const places = await sb().getAll(`/event-points/${EVENT}/places`);
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

			const soldOut = await runPublicEvents(store(), {
				resource: 'hallPlan',
				operation: 'getPlaces',
				eventId: byId(SOLD_OUT),
				returnAll: true,
				options: { onlyAvailable: true },
			});
			expect(soldOut.error).toBeUndefined();
			expect(soldOut.items).toEqual([]);
		},
	);

	it('a hold shows at once: the held place is no longer available', async () => {
		const place = await sb().freePlace(EVENT);
		const order = await sb().send('POST', '/orders', {
			eventPoint: String(EVENT),
			places: [place.id],
			priceCategory: place.priceCategory,
		});
		expect(order.status).toBe(201);
		const available = await hallPlan('getPlaces', { options: { onlyAvailable: true } });
		expect(ids(available.items)).not.toContain(place.id);
		await sb().send('PUT', `/orders/${order.body.id}/status`, { toStatus: 'expired' });
		expect(
			ids((await hallPlan('getPlaces', { options: { onlyAvailable: true } })).items),
		).toContain(place.id);
	});

	it('reads the JSON-LD envelope the same way', async () => {
		const expected = (await sb().getAll(`/event-points/${EVENT}/places`)).map((p) => String(p.id));
		await sb().admin('PUT', '/config', { envelope: 'hydra' });
		try {
			const { items, error } = await hallPlan('getPlaces');
			expect(error).toBeUndefined();
			expect(ids(items)).toEqual(expected);
		} finally {
			await sb().admin('PUT', '/config', { envelope: 'array' });
		}
	});

	it('bad input fails before any request, naming the field', async () => {
		const before = await mark(sb());
		expect((await hallPlan('getPlaces', { eventId: byId('next week') })).error?.message).toMatch(
			/^Event: expected a numeric ID/,
		);
		expect((await hallPlan('getSectorPlaces', { sectorId: byId('VIP') })).error?.message).toMatch(
			/^Sector: expected a numeric ID/,
		);
		expect(
			(await hallPlan('getSectors', { returnAll: false, limit: '={{ -1 }}' })).error?.message,
		).toMatch(/^Limit: expected a whole number/);
		expect(await since(sb(), before)).toEqual([]);
	});

	it('a missing event says it is an access setting, not a fault', async () => {
		const { error } = await hallPlan('getPlaces', { eventId: byId(999999) });
		expect(error?.message).toMatch(/not linked to your company/);
	});
});
