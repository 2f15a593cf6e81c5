import { byId, ids } from '../../../../../harness/nodes/publicEvents';
import { EVENT, hallPlanSuite } from '../../../../../harness/nodes/hallPlan';

const { sb, hallPlan } = hallPlanSuite();

describe('Hall Plan operations', () => {
	it('Get Sector Places: the sector by IRI; Only Available keeps availableCount > 0', async () => {
		const [, sector] = await sb().getAll(`/event-points/${EVENT}/sectors`);
		const places = await sb().getAll(`/event-points/${EVENT}/sectors/${sector.id}/places`);
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
});
