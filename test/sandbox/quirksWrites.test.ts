import { gunzipSync } from 'node:zlib';
import { fetch, request } from 'undici';

import { SandboxClient } from '../../harness/sandbox/client';

const EVENT = 1002;

/** POST /orders with undici's request: the outcome, a socket or parser error included. */
async function rawPostOrder(sb: SandboxClient, body: unknown) {
	try {
		const res = await request(`${sb.sandbox.baseUrl}/api/v2/orders`, {
			method: 'POST',
			headers: { authorization: `Bearer ${await sb.token()}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		const bytes = Buffer.from(await res.body.arrayBuffer());
		return { status: res.statusCode, headers: res.headers, bytes };
	} catch (error) {
		return { error: error as Error };
	}
}

describe('sandbox quirks: redirects and mangled write answers', () => {
	let sb: SandboxClient;

	beforeAll(async () => {
		sb = await SandboxClient.start({ events: 6, placesPerEvent: 120 });
	});
	afterEach(async () => {
		await sb.setQuirks({});
		await sb.clearOtherOrigin();
	});
	afterAll(() => sb.stop());

	describe('redirects', () => {
		it(
			'same-origin: GETs answer 302 to /moved/api/v2/..., ' +
				'which answers normally; writes and /token do not move',
			async () => {
				const token = await sb.token();
				await sb.setQuirks('redirect=same-origin');
				const moved = await sb.get('/event-points', { query: { itemsPerPage: 2 } });
				expect(moved.status).toBe(302);
				const location = String(moved.headers.location);
				expect(location).toBe(`${sb.sandbox.baseUrl}/moved/api/v2/event-points?itemsPerPage=2`);
				const landed = await request(location, { headers: { authorization: `Bearer ${token}` } });
				expect(landed.statusCode).toBe(200);
				expect(await landed.body.json()).toHaveLength(2);
				sb.forgetTokens();
				expect((await sb.api('POST', '/token', { body: { apiKey: sb.keys.partner } })).status).toBe(
					200,
				);
				expect((await sb.send('PUT', '/orders/1/reserve', {})).status).toBe(404);
			},
		);

		it('cross-origin: the other origin records what a client carries there', async () => {
			const token = await sb.token();
			const { otherOrigin } = await sb.setQuirks('redirect=cross-origin');
			const moved = await sb.get('/cities');
			expect(moved.status).toBe(302);
			expect(String(moved.headers.location)).toBe(`${otherOrigin}/api/v2/cities`);
			expect(otherOrigin).not.toBe(sb.sandbox.baseUrl);

			// A careless client re-sends the token by hand; fetch drops it across origins.
			await request(String(moved.headers.location), {
				headers: { authorization: `Bearer ${token}` },
			}).then((r) => r.body.dump());
			const followed = await fetch(`${sb.sandbox.baseUrl}/api/v2/genres`, {
				headers: { authorization: `Bearer ${token}` },
			});
			expect(followed.status).toBe(200);
			expect(await followed.json()).toMatchObject({ otherOrigin: true });

			const seen = await sb.otherOriginRequests();
			expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
				'GET /api/v2/cities',
				'GET /api/v2/genres',
			]);
			expect(seen[0].headers.authorization).toBe(`Bearer ${token}`);
			expect(seen[1].headers.authorization).toBeUndefined();
			expect(sb.sandbox.otherOrigin().requests).toHaveLength(2);
		});

		it(
			'redirect-token: POST /token answers 307 to the ' +
				'other origin; following it carries the key there',
			async () => {
				await sb.setQuirks('redirect-token');
				const res = await sb.api('POST', '/token', { body: { apiKey: sb.keys.partner } });
				expect(res.status).toBe(307);
				const followed = await fetch(`${sb.sandbox.baseUrl}/api/v2/token`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ apiKey: sb.keys.partner }),
				});
				expect(followed.status).toBe(200);
				const [seen] = await sb.otherOriginRequests();
				expect(seen).toMatchObject({ method: 'POST', path: '/api/v2/token' });
				expect(seen.body).toContain(sb.keys.partner);
				expect((await sb.get('/cities')).status).toBe(200);
			},
		);

		it('redirect-writes: POST and PUT answer 307 unapplied; GETs are served', async () => {
			const place = await sb.freePlace(EVENT);
			const before = (await sb.admin('GET', '/state')).body.orders;
			await sb.setQuirks({ redirectWrites: true });
			const created = await sb.send('POST', '/orders', {
				eventPoint: String(EVENT),
				places: [place.id],
				priceCategory: place.priceCategory,
			});
			expect(created.status).toBe(307);
			expect(String(created.headers.location)).toMatch(
				/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/orders$/,
			);
			expect((await sb.send('PUT', '/orders/700001/reserve', {})).status).toBe(307);
			expect((await sb.admin('GET', '/state')).body.orders).toBe(before);
			expect((await sb.get('/cities')).status).toBe(200);
		});
	});

	describe('mangle-write-answers', () => {
		const newOrder = async () => {
			const place = await sb.freePlace(EVENT);
			return { eventPoint: String(EVENT), places: [place.id], priceCategory: place.priceCategory };
		};
		/** The write was applied: the order holds the place, whatever the answer was. */
		const expectApplied = async (body: { places: string[] }) => {
			const places = await sb.getAll(`/event-points/${EVENT}/places`);
			expect(places.find((p: any) => String(p.id) === body.places[0]).availableCount).toBe(0);
		};

		it('gzip: labelled gzip over plain JSON, so decoding fails; the order exists', async () => {
			await sb.setQuirks('mangle-write-answers=gzip');
			const body = await newOrder();
			const res = await rawPostOrder(sb, body);
			expect(res.status).toBe(201);
			expect(res.headers?.['content-encoding']).toBe('gzip');
			expect(() => gunzipSync(res.bytes!)).toThrow();
			const viaFetch = await fetch(`${sb.sandbox.baseUrl}/api/v2/orders`, {
				method: 'POST',
				headers: {
					authorization: `Bearer ${await sb.token()}`,
					'content-type': 'application/json',
				},
				body: JSON.stringify(await newOrder()),
			});
			await expect(viaFetch.json()).rejects.toThrow();
			await sb.setQuirks({});
			await expectApplied(body);
		});

		it('html: a 200 HTML page; the order exists', async () => {
			await sb.setQuirks('mangle-write-answers=html');
			const body = await newOrder();
			const res = await rawPostOrder(sb, body);
			expect(res.status).toBe(200);
			expect(String(res.headers?.['content-type'])).toMatch(/text\/html/);
			expect(() => JSON.parse(res.bytes!.toString())).toThrow();
			await expectApplied(body);
		});

		it('garbage: not HTTP at all, the client fails to parse; the order exists', async () => {
			await sb.setQuirks('mangle-write-answers=garbage');
			const body = await newOrder();
			const res = await rawPostOrder(sb, body);
			expect(res.error?.message).toMatch(/parse|invalid|expected/i);
			await expectApplied(body);
		});

		it('truncated: Content-Length beyond the body, then closed; the order exists', async () => {
			await sb.setQuirks('mangle-write-answers=truncated');
			const body = await newOrder();
			const res = await rawPostOrder(sb, body);
			expect(res.error?.message).toMatch(/closed|terminated|mismatch/i);
			await expectApplied(body);
		});

		it('count: only the first N writes are mangled', async () => {
			await sb.setQuirks('mangle-write-answers=html,mangle-write-answers-count=1');
			const first = await rawPostOrder(sb, await newOrder());
			const second = await rawPostOrder(sb, await newOrder());
			expect(String(first.headers?.['content-type'])).toMatch(/text\/html/);
			expect(second.status).toBe(201);
			expect(JSON.parse(second.bytes!.toString())).toMatchObject({ status: 'reserved_to_time' });
		});

		it('rate: some writes mangled, the same ones for the same seed', async () => {
			const pattern = async (client: SandboxClient) => {
				const place = await client.freePlace(EVENT);
				const order = await client.send('POST', '/orders', {
					eventPoint: String(EVENT),
					places: [place.id],
					priceCategory: place.priceCategory,
				});
				await client.setQuirks('mangle-write-answers=gzip,mangle-write-answers-rate=0.5');
				const marks: string[] = [];
				for (let i = 0; i < 16; i++) {
					const res = await client.send('PUT', `/orders/${order.body.id}/reserve`, {});
					expect(res.status).toBe(200);
					marks.push(res.headers['content-encoding'] === 'gzip' ? 'x' : '.');
				}
				return marks.join('');
			};
			const other = await SandboxClient.start({ events: 6, seed: 1 });
			try {
				const a = await pattern(sb);
				const b = await pattern(other);
				expect(a).toBe(b);
				expect(a).toContain('x');
				expect(a).toContain('.');
			} finally {
				await other.stop();
			}
		});
	});
});
