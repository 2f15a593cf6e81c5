import { credentialFor, ids, runPublicEvents } from '../../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../../harness/sandbox/client';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 30, placesPerEvent: 2, archivedEvents: 3 });
	await sb.token(); // the test's own token, so the counters below count the node's alone
});

afterAll(() => sb.stop());

beforeEach(() => sb.admin('DELETE', '/requests'));

describe('Event operations', () => {
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
});
