import { MAX_PAGES_IN_FLIGHT } from '../../../../nodes/shared/transport';
import {
	credentialFor,
	ids,
	mark,
	runPublicEvents,
	since,
} from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';

const getMany = { resource: 'event', operation: 'getMany', returnAll: true };

describe('Return All over 1,234 events', () => {
	let sb: SandboxClient;
	let visible: string[];

	beforeAll(async () => {
		sb = await SandboxClient.start({ events: 1234, placesPerEvent: 1 });
		visible = (await sb.getAll('/event-points')).map((event) => String(event.id));
	});
	afterAll(() => sb.stop());
	afterEach(() => sb.admin('PUT', '/config', { envelope: 'array' }));

	it.each(['array', 'hydra', 'member', 'items', 'data'])(
		'%s envelope: pages 1-13 once each, every event once, in order',
		async (envelope) => {
			expect(visible).toHaveLength(1234);
			await sb.admin('PUT', '/config', { envelope });
			const { store } = credentialFor(sb);
			const before = await mark(sb);

			const { items, error } = await runPublicEvents(store, getMany);

			expect(error).toBeUndefined();
			expect(ids(items)).toEqual(visible);
			const lists = (await since(sb, before)).filter((e) => e.route === '/event-points');
			// Pages go out several at a time: compare them sorted. Without a total (array) the pages
			// sent before the short page 13 answered come on top, at most a window's worth.
			const pages = lists
				.map((e) => Number(new URLSearchParams(e.query).get('page')))
				.sort((a, b) => a - b);
			const beyond = pages.length - 13;
			expect(beyond).toBeLessThan(
				envelope === 'array' || envelope === 'items' ? MAX_PAGES_IN_FLIGHT : 1,
			);
			expect(pages).toEqual(Array.from({ length: 13 + beyond }, (_, i) => i + 1));
			expect(lists.every((e) => new URLSearchParams(e.query).get('itemsPerPage') === '100')).toBe(
				true,
			);
		},
	);

	it.each(['array', 'hydra'])('%s envelope, Limit 150: 2 requests, 150 items', async (envelope) => {
		await sb.admin('PUT', '/config', { envelope });
		const { store } = credentialFor(sb);
		const before = await mark(sb);

		const { items } = await runPublicEvents(store, { ...getMany, returnAll: false, limit: 150 });

		expect(ids(items)).toEqual(visible.slice(0, 150));
		expect((await since(sb, before)).filter((e) => e.route === '/event-points')).toHaveLength(2);
	});

	it.each(['array', 'hydra'])(
		'%s envelope, a service that ignores page: an error, never page 1 twice',
		async (envelope) => {
			await sb.admin('PUT', '/config', { envelope });
			const first = (await sb.get('/event-points', { query: { page: 1, itemsPerPage: 100 } })).body;
			await sb.admin('POST', '/faults', {
				kind: 'status',
				status: 200,
				path: '/event-points',
				query: { page: '2' },
				body: first,
				count: 0,
			});
			try {
				const { items, error } = await runPublicEvents(credentialFor(sb).store, getMany);
				expect(items).toEqual([]);
				expect(error?.message).toBe(
					'Page 2 of GET /event-points repeats page 1: the service ' +
						'seems to ignore the page parameter',
				);
			} finally {
				await sb.admin('DELETE', '/faults');
			}
		},
	);

	it('a total that is a multiple of the page size costs no extra request', async () => {
		await sb.admin('PUT', '/config', { envelope: 'hydra' });
		const { store } = credentialFor(sb);
		const before = await mark(sb);
		const { items } = await runPublicEvents(store, { ...getMany, returnAll: false, limit: 200 });
		expect(items).toHaveLength(200);
		expect((await since(sb, before)).filter((e) => e.route === '/event-points')).toHaveLength(2);
	});
});

describe('a 401 in the middle of a 20-page fetch', () => {
	let sb: SandboxClient;

	beforeAll(async () => {
		sb = await SandboxClient.start({ events: 1990, placesPerEvent: 1 });
	});
	afterAll(() => sb.stop());

	afterEach(() => sb.admin('PUT', '/config', { envelope: 'array' }));

	it('with a total (pages in a window): every item once, in order', async () => {
		const visible = (await sb.getAll('/event-points')).map((event) => String(event.id));
		await sb.admin('PUT', '/config', { envelope: 'hydra' });
		const { store } = credentialFor(sb);
		await runPublicEvents(store, { ...getMany, returnAll: false, limit: 1 });
		await sb.admin('POST', '/faults', {
			kind: 'status',
			status: 401,
			method: 'GET',
			path: '/event-points',
			query: { page: '11' },
		});
		const before = await mark(sb);

		const { items, error } = await runPublicEvents(store, getMany);

		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(visible);
		const log = await since(sb, before);
		expect(log.filter((e) => e.route === '/token')).toHaveLength(1);
		const pages = log
			.filter((e) => e.route === '/event-points' && e.status === 200)
			.map((e) => Number(new URLSearchParams(e.query).get('page')));
		expect(pages.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
	});

	it('refreshes the token once and loses or repeats no item', async () => {
		const visible = (await sb.getAll('/event-points')).map((event) => String(event.id));
		const { store, id } = credentialFor(sb);
		await runPublicEvents(store, { ...getMany, returnAll: false, limit: 1 });
		const firstToken = store.data(id).token;
		await sb.admin('POST', '/faults', {
			kind: 'status',
			status: 401,
			method: 'GET',
			path: '/event-points',
			query: { page: '11' },
		});
		const before = await mark(sb);

		const { items, error } = await runPublicEvents(store, getMany);

		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(visible);
		expect(new Set(ids(items)).size).toBe(1990);
		const log = (await since(sb, before)).map(
			(e) => `${e.route} ${new URLSearchParams(e.query).get('page') ?? ''} ${e.status}`,
		);
		// No total (array): pages read ahead in a window, the pages past the short page 20 fewer than a
		// window.
		const beyond = log.filter((line) => Number(line.split(' ')[1]) > 20);
		expect(beyond.length).toBeLessThan(MAX_PAGES_IN_FLIGHT);
		expect(log.sort()).toEqual(
			[
				...Array.from({ length: 20 + beyond.length }, (_, i) => `/event-points ${i + 1} 200`),
				'/event-points 11 401',
				'/token  200',
			].sort(),
		);
		expect(store.data(id).token).not.toBe(firstToken);
	});
});
