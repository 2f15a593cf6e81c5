import { SandboxClient } from '../../harness/sandbox/client';
import { onlyEvents, sandboxSuite } from '../../harness/sandbox/suite';
import { HOUR, DAY } from '../../harness/time';

const SMALL = onlyEvents(3, 4);

/** A token for a key, asked over HTTP without the client's cache. */
async function freshToken(sb: SandboxClient, company = 'partner'): Promise<string> {
	const res = await sb.api('POST', '/token', { body: { apiKey: sb.keys[company] } });
	expect(res.status).toBe(200);
	return res.body.token as string;
}

function decodePart(part: string): Record<string, unknown> {
	return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('sandbox auth: POST /token', () => {
	let sb: SandboxClient;
	let prod: SandboxClient;
	beforeAll(async () => {
		[sb, prod] = await Promise.all([
			SandboxClient.start({
				events: 4,
				privateEvents: 0,
				archivedEvents: 0,
				placesPerEvent: 4,
				widgetOrders: 0,
			}),
			SandboxClient.start({
				environment: 'production',
				events: 4,
				privateEvents: 0,
				archivedEvents: 0,
				placesPerEvent: 4,
				widgetOrders: 0,
			}),
		]);
	});
	afterAll(() => Promise.all([sb.stop(), prod.stop()]));

	it(
		'answers a JWT (three base64url parts, a ' + 'JSON header and payload) that opens the API',
		async () => {
			const res = await sb.api('POST', '/token', { body: { apiKey: sb.keys.partner } });
			expect(res.status).toBe(200);
			const token = res.body.token as string;
			const parts = token.split('.');
			expect(parts).toHaveLength(3);
			parts.forEach((part) => expect(part).toMatch(/^[A-Za-z0-9_-]+$/));
			expect(decodePart(parts[0])).toMatchObject({ typ: 'JWT' });
			expect(decodePart(parts[1])).toEqual(expect.objectContaining({ exp: expect.any(Number) }));

			const events = await sb.api('GET', '/event-points', { token });
			expect(events.status).toBe(200);
			expect(events.body).toHaveLength(4);
		},
	);

	it.each([
		['an empty object', { body: {} }],
		['no body at all', {}],
		['a number as apiKey', { body: { apiKey: 42 } }],
		['an empty apiKey', { body: { apiKey: '' } }],
	])('answers 400 naming apiKey for %s', async (_label, options) => {
		const res = await sb.api('POST', '/token', options);
		expect(res.status).toBe(400);
		expect(res.body.violations[0].propertyPath).toBe('apiKey');
		expect(res.body.message).toContain('apiKey');
	});

	it('answers 400 to a body that is not JSON', async () => {
		const res = await sb.api('POST', '/token', { raw: '{"apiKey": ' });
		expect(res.status).toBe(400);
		expect(res.body.code).toBe('invalid_json');
	});

	it('answers 401 to a wrong key, saying staging and production keys differ', async () => {
		const res = await sb.api('POST', '/token', {
			body: { apiKey: 'pe_test_partner_000000000000000000000000' },
		});
		expect(res.status).toBe(401);
		expect(res.body.code).toBe('invalid_api_key');
		expect(res.body.message).toMatch(/staging/);
		expect(res.body.message).toMatch(/production/);
		expect(res.body).not.toHaveProperty('token');
	});

	it(
		'gives each environment its own keys: a staging key ' +
			'is refused by production and the other way round',
		async () => {
			expect(prod.keys.partner).not.toBe(sb.keys.partner);

			const stagingKeyInProd = await prod.api('POST', '/token', {
				body: { apiKey: sb.keys.partner },
			});
			expect(stagingKeyInProd.status).toBe(401);
			expect(stagingKeyInProd.body.message).toMatch(/production/);

			const prodKeyInStaging = await sb.api('POST', '/token', {
				body: { apiKey: prod.keys.partner },
			});
			expect(prodKeyInStaging.status).toBe(401);

			const prodKeyInProd = await prod.api('POST', '/token', {
				body: { apiKey: prod.keys.partner },
			});
			expect(prodKeyInProd.status).toBe(200);
		},
	);

	it('refuses a staging token in production (401) while staging accepts it', async () => {
		const stagingToken = await freshToken(sb);
		expect((await sb.api('GET', '/event-points', { token: stagingToken })).status).toBe(200);

		const res = await prod.api('GET', '/event-points', { token: stagingToken });
		expect(res.status).toBe(401);
		expect(res.body.code).toBe('invalid_token');
	});

	it('answers 401 with no Authorization header', async () => {
		const res = await sb.api('GET', '/event-points');
		expect(res.status).toBe(401);
		expect(res.body.code).toBe('missing_token');
		expect(res.headers['www-authenticate']).toBe('Bearer');
	});

	it.each([
		['a garbage token', 'Bearer not-a-jwt'],
		['three garbage parts', 'Bearer aaa.bbb.ccc'],
		['a Basic scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
		['an empty bearer', 'Bearer '],
	])('answers 401 to %s', async (_label, authorization) => {
		const res = await sb.api('GET', '/event-points', { headers: { authorization } });
		expect(res.status).toBe(401);
		expect(typeof res.body.code).toBe('string');
	});

	it('answers 401 to a token whose payload was edited (signature no longer matches)', async () => {
		const [header, payload, signature] = (await freshToken(sb)).split('.');
		const claims = decodePart(payload);
		const forged = Buffer.from(
			JSON.stringify({ ...claims, sub: 1, exp: Number(claims.exp) + 3600 }),
		).toString('base64url');
		const res = await sb.api('GET', '/event-points', { token: `${header}.${forged}.${signature}` });
		expect(res.status).toBe(401);
		expect(res.body.code).toBe('invalid_token');
	});
});

describe('sandbox auth: token lifetime of 24 hours on the sandbox clock', () => {
	const sb = sandboxSuite(SMALL);

	it(
		'keeps a token valid 23 h later, answers 401 ' +
			'token_expired past 24 h, and a fresh token works again',
		async () => {
			const old = await freshToken(sb());
			expect((await sb().api('GET', '/countries', { token: old })).status).toBe(200);

			await sb().advanceClock(23 * HOUR);
			const at23h = await sb().api('GET', '/countries', { token: old });
			expect(at23h.status).toBe(200);

			await sb().advanceClock(HOUR + 60_000);
			const expired = await sb().api('GET', '/countries', { token: old });
			expect(expired.status).toBe(401);
			expect(expired.body.code).toBe('token_expired');

			const fresh = await freshToken(sb());
			expect(fresh).not.toBe(old);
			expect((await sb().api('GET', '/countries', { token: fresh })).status).toBe(200);

			await sb().advanceClock(23 * HOUR);
			expect((await sb().api('GET', '/countries', { token: fresh })).status).toBe(200);
			expect((await sb().api('GET', '/countries', { token: old })).status).toBe(401);

			await sb().advanceClock(DAY);
			expect((await sb().api('GET', '/countries', { token: fresh })).body.code).toBe(
				'token_expired',
			);
		},
	);
});

describe('sandbox auth: rate limit per key', () => {
	const WINDOW = 60_000;
	const sb = sandboxSuite(SMALL);

	it(
		'answers 429 with a numeric Retry-After past the limit, ' +
			'spares other keys, and lets calls through in the next window',
		async () => {
			const config = await sb().admin('PUT', '/config', {
				rateLimit: { limit: 3, windowMs: WINDOW },
			});
			expect(config.status).toBe(200);
			expect(config.body.rateLimit).toEqual({ limit: 3, windowMs: WINDOW });

			// Start just after a window boundary, so the window cannot roll over during the test.
			const { nowMs } = await sb().advanceClock(0);
			const boundary = Math.ceil(nowMs / WINDOW) * WINDOW + WINDOW + 1000;
			await sb().admin('POST', '/clock', { set: new Date(boundary).toISOString() });

			const token = await freshToken(sb()); // 1st request of the partner key (POST /token counts)
			expect((await sb().api('GET', '/countries', { token })).status).toBe(200); // 2nd
			expect((await sb().api('GET', '/countries', { token })).status).toBe(200); // 3rd
			const limited = await sb().api('GET', '/countries', { token }); // 4th
			expect(limited.status).toBe(429);
			const retryAfter = limited.headers['retry-after'];
			expect(retryAfter).toMatch(/^\d+$/);
			expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
			expect(Number(retryAfter)).toBeLessThanOrEqual(WINDOW / 1000);
			expect(limited.body).toMatchObject({ code: 'rate_limited', limit: 3 });
			expect(typeof limited.body.message).toBe('string');

			// POST /token of the same key is limited too.
			expect(
				(await sb().api('POST', '/token', { body: { apiKey: sb().keys.partner } })).status,
			).toBe(429);

			// Another key has its own budget.
			const organiser = await freshToken(sb(), 'organiser');
			expect((await sb().api('GET', '/countries', { token: organiser })).status).toBe(200);

			// The next window (moved on the sandbox clock, not waited for) lets the partner through
			// again.
			await sb().advanceClock(Number(retryAfter) * 1000);
			const again = await sb().api('GET', '/countries', { token });
			expect(again.status).toBe(200);
			expect(Array.isArray(again.body)).toBe(true);
		},
	);

	it('turns the limit off with limit 0', async () => {
		await sb().admin('PUT', '/config', { rateLimit: { limit: 0 } });
		const token = await freshToken(sb());
		const statuses = await Promise.all(
			Array.from({ length: 10 }, () =>
				sb()
					.api('GET', '/countries', { token })
					.then((r) => r.status),
			),
		);
		expect(statuses).toEqual(Array(10).fill(200));
	});
});
