import { credentialFor, ids, runPublicEvents } from '../../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../../harness/sandbox/client';

/** Event 1001 has 30 places in two sectors, some sold; 1003 is sold out (sandbox seed). */
const EVENT = 1001;

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
});
