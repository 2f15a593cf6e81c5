import { readListPage } from '../../../../nodes/shared/transport/listEnvelope';
import { SandboxClient } from '../../../../harness/sandbox/client';

describe('readListPage reads every envelope the sandbox serves', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start({ events: 150, placesPerEvent: 4 })));
	afterAll(() => sb.stop());

	it.each([
		['array', undefined],
		['hydra', 150],
		['member', 150],
		['items', undefined],
		['data', 150],
	])('%s envelope: the page items, and the total when stated', async (envelope, total) => {
		await sb.admin('PUT', '/config', { envelope });
		const first = readListPage(
			(await sb.get('/event-points', { query: { itemsPerPage: 100 } })).body,
		);
		const second = readListPage(
			(await sb.get('/event-points', { query: { itemsPerPage: 100, page: 2 } })).body,
		);
		expect(first?.items).toHaveLength(100);
		expect(second?.items).toHaveLength(50);
		expect(first?.total).toBe(total);
		const ids = new Set([...first!.items, ...second!.items].map((event) => Number(event.id)));
		expect(ids.size).toBe(150);
	});

	it('returns undefined for bodies that are not a list', () => {
		expect(readListPage({ code: 'not_found' })).toBeUndefined();
		expect(readListPage('<html></html>')).toBeUndefined();
		expect(readListPage(undefined)).toBeUndefined();
	});

	it('reads a total given as a numeric string', () => {
		expect(readListPage({ member: [], totalItems: '12' })?.total).toBe(12);
	});
});
