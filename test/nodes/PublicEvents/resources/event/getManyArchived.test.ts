import { ids, runPublicEvents } from '../../../../../harness/nodes/publicEvents';
import { eventsSuite } from '../../../../../harness/nodes/suites';

const { sb, credential } = eventsSuite();

describe('Event operations', () => {
	it('Get Many Archived lists the events whose sale ended', async () => {
		const { store } = credential();
		const archived = (await sb().getAll('/event-points-archived')).map((e) => String(e.id));
		expect(archived.length).toBeGreaterThan(0);
		const { items } = await runPublicEvents(store, {
			resource: 'event',
			operation: 'getManyArchived',
			returnAll: true,
		});
		expect(ids(items)).toEqual(archived);
	});
});
