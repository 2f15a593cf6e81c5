import { request } from 'undici';

import { SandboxClient } from '../../harness/sandbox/client';

/** Installs one rule or several; fails the test when the sandbox refuses them. */
async function addFaults(
	sb: SandboxClient,
	rules: Record<string, unknown> | Array<Record<string, unknown>>,
) {
	const res = await sb.admin('POST', '/faults', rules);
	expect(res.status).toBe(201);
	return res.body as Array<{ id: number }>;
}

/** POST /orders with undici directly: resolves to the outcome, including a socket error. */
async function rawPostOrder(
	sb: SandboxClient,
	body: unknown,
	signal?: AbortSignal,
): Promise<{ status?: number; error?: Error }> {
	try {
		const res = await request(`${sb.sandbox.baseUrl}/api/v2/orders`, {
			method: 'POST',
			signal,
			headers: { authorization: `Bearer ${await sb.token()}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		await res.body.dump();
		return { status: res.statusCode };
	} catch (error) {
		return { error: error as Error };
	}
}

describe('sandbox fault injection', () => {
	let sb: SandboxClient;
	let eventId: number;

	beforeAll(async () => {
		sb = await SandboxClient.start({ events: 6, placesPerEvent: 120 });
		const events = await sb.get('/event-points', { query: { itemsPerPage: 10 } });
		eventId = events.body.find((e: any) => e.countAvailableTickets > 20).id;
	});
	afterEach(async () => {
		expect((await sb.admin('DELETE', '/faults')).body).toEqual([]);
	});
	afterAll(() => sb.stop());

	const list = () => sb.get('/event-points', { query: { itemsPerPage: 2 } });

	it('status 500 fires once, then the next call is normal', async () => {
		await addFaults(sb, { kind: 'status', status: 500, method: 'GET', path: '/event-points' });
		const failed = await list();
		expect(failed.status).toBe(500);
		expect(failed.body).toMatchObject({ code: 'injected_fault' });
		const next = await list();
		expect(next.status).toBe(200);
		expect(Array.isArray(next.body)).toBe(true);
	});

	it('401 on the next 2 calls (count 2), then normal', async () => {
		await addFaults(sb, { kind: 'status', status: 401, count: 2 });
		expect((await list()).status).toBe(401);
		expect((await sb.get('/cities')).status).toBe(401);
		expect((await list()).status).toBe(200);
		const [rule] = (await sb.admin('GET', '/faults')).body;
		expect(rule).toMatchObject({ fired: 2, count: 2 });
	});

	it('429 with Retry-After in seconds and as an HTTP date about 5 s ahead', async () => {
		await addFaults(sb, [
			{ kind: 'status', status: 429, retryAfter: 7, path: '/cities' },
			{ kind: 'status', status: 429, retryAfter: { date: 5 }, path: '/genres' },
		]);
		const seconds = await sb.get('/cities');
		expect(seconds.status).toBe(429);
		expect(seconds.headers['retry-after']).toBe('7');

		const dated = await sb.get('/genres');
		expect(dated.status).toBe(429);
		const header = String(dated.headers['retry-after']);
		expect(header).toMatch(/GMT$/);
		const ahead = Date.parse(header) - Date.now();
		expect(ahead).toBeGreaterThan(3000);
		expect(ahead).toBeLessThanOrEqual(5000);

		expect((await sb.get('/cities')).headers['retry-after']).toBeUndefined();
	});

	it(
		"drop 'before' on POST /orders: socket error, no order " +
			'made, the place stays free, the request is counted',
		async () => {
			const place = await sb.freePlace(eventId);
			const ordersBefore = (await sb.get(`/event-points/${eventId}/orders`)).body.length;
			const countBefore = (await sb.counters())['POST /orders'] ?? 0;
			await addFaults(sb, { kind: 'drop', phase: 'before', method: 'POST', path: '/orders' });

			const outcome = await rawPostOrder(sb, {
				eventPoint: String(eventId),
				places: [place.id],
				priceCategory: place.priceCategory,
			});
			expect(outcome.status).toBeUndefined();
			expect(outcome.error).toBeInstanceOf(Error);

			expect((await sb.counters())['POST /orders']).toBe(countBefore + 1);
			const { entries } = (await sb.admin('GET', '/requests')).body;
			expect(entries.filter((e: any) => e.route === '/orders').at(-1)).toMatchObject({
				method: 'POST',
				fault: 'drop-before',
			});
			expect((await sb.get(`/event-points/${eventId}/orders`)).body).toHaveLength(ordersBefore);
			const places = await sb.getAll(`/event-points/${eventId}/places`);
			expect(places.find((p: any) => String(p.id) === place.id).availableCount).toBeGreaterThan(0);
		},
	);

	it(
		"drop 'after' on POST /orders: socket error, " + 'yet the order exists and holds the place',
		async () => {
			const place = await sb.freePlace(eventId);
			const ordersBefore = (await sb.get(`/event-points/${eventId}/orders`)).body.length;
			await addFaults(sb, { kind: 'drop', phase: 'after', method: 'POST', path: '/orders' });

			const outcome = await rawPostOrder(sb, {
				eventPoint: String(eventId),
				places: [place.id],
				priceCategory: place.priceCategory,
			});
			expect(outcome.error).toBeInstanceOf(Error);

			const orders = (await sb.get(`/event-points/${eventId}/orders`)).body;
			expect(orders).toHaveLength(ordersBefore + 1);
			expect(orders.at(-1)).toMatchObject({ status: 'reserved_to_time' });
			const places = await sb.getAll(`/event-points/${eventId}/places`);
			expect(places.find((p: any) => String(p.id) === place.id).availableCount).toBe(0);
			const { entries } = (await sb.admin('GET', '/requests')).body;
			expect(entries.filter((e: any) => e.route === '/orders').at(-1)).toMatchObject({
				method: 'POST',
				fault: 'drop-after',
			});
		},
	);

	it('latency delays the answer by at least delayMs, and the answer is normal', async () => {
		await addFaults(sb, { kind: 'latency', delayMs: 150, path: '/cities' });
		const started = performance.now();
		const res = await sb.get('/cities');
		const elapsed = performance.now() - started;
		expect(res.status).toBe(200);
		expect(Array.isArray(res.body)).toBe(true);
		expect(elapsed).toBeGreaterThanOrEqual(149);
	});

	it(
		'latency on a write: the caller gives up, the ' +
			'write is still applied, late (as on a real server)',
		async () => {
			const place = await sb.freePlace(eventId);
			const orders = () => sb.app.store.orders.size;
			const before = orders();
			await addFaults(sb, { kind: 'latency', delayMs: 400, method: 'POST', path: '/orders' });
			const outcome = await rawPostOrder(
				sb,
				{ eventPoint: String(eventId), places: [place.id], priceCategory: place.priceCategory },
				AbortSignal.timeout(50),
			);
			expect(outcome.error?.name).toMatch(/Abort|Timeout/);
			expect(orders()).toBe(before);
			await sb.app.idle();
			expect(orders()).toBe(before + 1);
			const places = await sb.getAll(`/event-points/${eventId}/places`);
			expect(places.find((p: any) => String(p.id) === place.id).availableCount).toBe(0);
		},
	);

	it('html, malformed and empty bodies', async () => {
		await addFaults(sb, [
			{ kind: 'html', path: '/cities' },
			{ kind: 'malformed', path: '/genres' },
			{ kind: 'empty', path: '/categories' },
		]);
		const html = await sb.get('/cities');
		expect(html.status).toBe(502);
		expect(html.headers['content-type']).toMatch(/^text\/html/);
		expect(html.text).toMatch(/^<html/);

		const malformed = await sb.get('/genres');
		expect(malformed.status).toBe(200);
		expect(malformed.headers['content-type']).toMatch(/json/);
		expect(malformed.text.length).toBeGreaterThan(0);
		expect(() => JSON.parse(malformed.text)).toThrow(SyntaxError);

		const empty = await sb.get('/categories');
		expect(empty.status).toBe(200);
		expect(empty.text).toBe('');
	});

	it(
		'query matching fires on page 3 of the places ' + 'only; skip lets the first matches through',
		async () => {
			await addFaults(sb, {
				kind: 'status',
				status: 503,
				path: '/event-points/{id}/places',
				query: { page: '3' },
			});
			const page = (n: number) =>
				sb.get(`/event-points/${eventId}/places`, { query: { page: n, itemsPerPage: 10 } });
			expect((await page(1)).status).toBe(200);
			expect((await page(2)).status).toBe(200);
			expect((await page(3)).status).toBe(503);
			expect((await page(4)).status).toBe(200);
			const third = await page(3);
			expect(third.status).toBe(200);
			expect(third.body).toHaveLength(10);

			await sb.admin('DELETE', '/faults');
			await addFaults(sb, { kind: 'status', status: 500, path: '/cities', skip: 2 });
			const statuses = [];
			for (let i = 0; i < 4; i++) statuses.push((await sb.get('/cities')).status);
			expect(statuses).toEqual([200, 200, 500, 200]);
		},
	);

	it('count 0 fires on every match until cleared', async () => {
		await addFaults(sb, { kind: 'status', status: 503, path: '/cities', count: 0 });
		for (let i = 0; i < 4; i++) expect((await sb.get('/cities')).status).toBe(503);
		expect((await sb.get('/genres')).status).toBe(200);
		expect((await sb.admin('DELETE', '/faults')).status).toBe(200);
		expect((await sb.get('/cities')).status).toBe(200);
	});

	it(
		'path as a route template, a concrete path, ' + 'or a prefix ending in *; method matching',
		async () => {
			const other = (await sb.get('/event-points', { query: { itemsPerPage: 10 } })).body.find(
				(e: any) => e.id !== eventId,
			).id;
			const places = (id: number) =>
				sb.get(`/event-points/${id}/places`, { query: { itemsPerPage: 5 } });

			await addFaults(sb, {
				kind: 'status',
				status: 500,
				path: '/event-points/{id}/places',
				count: 2,
			});
			expect((await sb.get(`/event-points/${eventId}`)).status).toBe(200);
			expect((await places(eventId)).status).toBe(500);
			expect((await places(other)).status).toBe(500);
			await sb.admin('DELETE', '/faults');

			await addFaults(sb, {
				kind: 'status',
				status: 500,
				path: `/event-points/${eventId}/places`,
				count: 0,
			});
			expect((await places(other)).status).toBe(200);
			expect((await places(eventId)).status).toBe(500);
			await sb.admin('DELETE', '/faults');

			await addFaults(sb, {
				kind: 'status',
				status: 500,
				path: `/event-points/${eventId}*`,
				count: 0,
			});
			expect((await sb.get(`/event-points/${eventId}`)).status).toBe(500);
			expect((await sb.get(`/event-points/${eventId}/sectors`)).status).toBe(500);
			expect((await sb.get(`/event-points/${other}`)).status).toBe(200);
			expect((await sb.get('/event-points', { query: { itemsPerPage: 1 } })).status).toBe(200);
			await sb.admin('DELETE', '/faults');

			await addFaults(sb, { kind: 'status', status: 500, method: 'post', count: 0 });
			expect((await sb.get('/cities')).status).toBe(200);
			const created = await rawPostOrder(sb, {});
			expect(created.status).toBe(500);
		},
	);

	it('rejects an invalid rule with 400', async () => {
		expect((await sb.admin('POST', '/faults', { kind: 'explode' })).status).toBe(400);
		expect((await sb.admin('POST', '/faults', { kind: 'latency', delayMs: -1 })).status).toBe(400);
		expect((await sb.admin('GET', '/faults')).body).toEqual([]);
	});
});

describe('sandbox request log', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start({ events: 3, placesPerEvent: 30 })));
	afterAll(() => sb.stop());

	it('counts per METHOD /route-template; DELETE /requests resets', async () => {
		const token = await sb.token();
		const events = await sb.get('/event-points');
		expect((await sb.admin('DELETE', '/requests')).status).toBe(200);
		expect(await sb.counters()).toEqual({});

		sb.forgetTokens();
		await sb.token();
		await sb.get(`/event-points/${events.body[0].id}/places`);
		await sb.get(`/event-points/${events.body[1].id}/places`);
		await sb.api('GET', '/event-points', { token: 'not-a-token' });
		const counters = await sb.counters();
		expect(counters).toEqual({
			'POST /token': 1,
			'GET /event-points/{id}/places': 2,
			'GET /event-points': 1,
		});
		const total = (await sb.admin('GET', '/counters')).body.total;
		expect(total).toBe(4);
		expect(token).not.toBe('');
	});

	it(
		'GET /requests?since=N returns only newer ' + 'entries with method, route, status and fault',
		async () => {
			const { lastSeq } = (await sb.admin('GET', '/requests')).body;
			expect(lastSeq).toBeGreaterThan(0);
			await addFaults(sb, { kind: 'status', status: 503, path: '/genres' });
			await sb.get('/genres');
			await sb.get('/cities');

			const { entries } = (await sb.admin('GET', `/requests?since=${lastSeq}`)).body;
			expect(entries).toHaveLength(2);
			expect(entries[0]).toMatchObject({
				seq: lastSeq + 1,
				method: 'GET',
				route: '/genres',
				status: 503,
				fault: 'status',
			});
			expect(entries[1]).toMatchObject({
				seq: lastSeq + 2,
				method: 'GET',
				route: '/cities',
				status: 200,
			});
			expect(entries[1].fault).toBeUndefined();

			const all = (await sb.admin('GET', '/requests')).body.entries;
			expect(all.length).toBeGreaterThan(entries.length);

			const token = await sb.token();
			for (const path of ['/requests', '/counters']) {
				const text = (await sb.admin('GET', path)).text;
				expect(text).not.toContain(token);
				expect(text).not.toContain(sb.keys.partner);
			}
		},
	);
});
