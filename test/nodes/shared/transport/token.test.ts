import {
	credentialFor,
	ids,
	mark,
	runPublicEvents,
	since,
} from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { eventsSuite } from '../../../../harness/nodes/suites';
import { HOUR } from '../../../../harness/time';

const { sb, credential } = eventsSuite();

const getMany = { resource: 'event', operation: 'getMany', returnAll: true };

describe('Event: the token, in n8n-core', () => {
	it('50 executions of Get Many with one credential send exactly one /token request', async () => {
		const { store, id } = credential();
		const visible = (await sb().getAll('/event-points')).map((event) => String(event.id));
		await sb().admin('DELETE', '/requests');
		for (let run = 0; run < 50; run++) {
			const { items, error } = await runPublicEvents(store, getMany);
			expect(error).toBeUndefined();
			expect(ids(items)).toEqual(visible);
		}
		const counters = await sb().counters();
		expect(counters['POST /token']).toBe(1);
		expect(counters['GET /event-points']).toBe(50);
		expect(store.data(id).token).toEqual(expect.any(String));
	});

	it('25 hours later: one 401, one new token, complete results', async () => {
		const { store, id } = credential();
		await runPublicEvents(store, getMany);
		const oldToken = store.data(id).token;
		await sb().advanceClock(25 * HOUR);
		sb().forgetTokens();
		const visible = (await sb().getAll('/event-points')).map((event) => String(event.id));
		const before = await mark(sb());

		const { items, error } = await runPublicEvents(store, getMany);

		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(visible);
		const log = await since(sb(), before);
		expect(
			log
				.filter((e) => e.route !== '/event-points' || e.status !== 200)
				.map((e) => `${e.method} ${e.route} ${e.status}`),
		).toEqual(['GET /event-points 401', 'POST /token 200']);
		expect(store.data(id).token).not.toBe(oldToken);
	});

	it('a key the service refuses: a message that says so, without the key', async () => {
		const wrongKey = 'pe_live_partner_0123456789abcdef';
		const { store } = credential({ apiKey: wrongKey });
		const { error } = await runPublicEvents(store, getMany);
		expect(error?.message).toMatch(/API key was refused.*Staging and production keys differ/);
		expect(JSON.stringify(error)).not.toContain(wrongKey);
		expect(String(error?.stack)).not.toContain(wrongKey);
		expect((await sb().counters())['GET /event-points']).toBeUndefined();
	});

	it(
		'the Base URL edited to another address: the stored token is not sent there; a /token ' +
			'request there comes first, and the new token is bound to it',
		async () => {
			const { store, id } = credential();
			await runPublicEvents(store, getMany);
			const first = store.data(id);
			expect(first.issuedBy).toBe(new URL(sb().sandbox.baseUrl).origin);
			const elsewhere = await SandboxClient.start({ events: 2, placesPerEvent: 4 });
			try {
				// The same credential, its Base URL edited (n8n keeps the hidden token as it was).
				const edited = credentialFor(elsewhere, {
					...first,
					baseUrl: elsewhere.sandbox.baseUrl,
					apiKey: elsewhere.keys.partner,
				});
				const { error } = await runPublicEvents(edited.store, getMany);
				expect(error).toBeUndefined();
				const log = (await since(elsewhere, 0)).map((e) => `${e.method} ${e.route} ${e.status}`);
				expect(log).toEqual(['POST /token 200', 'GET /event-points 200']);
				const now = edited.store.data(edited.id);
				expect(now.token).not.toBe(first.token);
				expect(now.issuedBy).toBe(new URL(elsewhere.sandbox.baseUrl).origin);
			} finally {
				await elsewhere.stop();
			}
		},
	);
});
