import { PublicEventsApi } from '../../../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../../../harness/engine';
import {
	byId,
	CREDENTIAL,
	credentialFor,
	ids,
	mark,
	runPublicEvents,
	type LogEntry,
	since,
} from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { eventsSuite } from '../../../../harness/nodes/suites';
import { HOUR } from '../../../../harness/time';
import type { TokenEvent } from '../../../../sandbox/auth';

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

	/** The sandbox's token events while `run` runs. */
	async function tokenEvents<T>(run: () => Promise<T>): Promise<[T, TokenEvent[]]> {
		const events: TokenEvent[] = [];
		const stop = sb().app.issuer.observe((event) => events.push(event));
		try {
			return [await run(), events];
		} finally {
			stop();
		}
	}

	const keyId = (company: string) =>
		sb().app.store.apiKeys.find((k) => k.key === sb().keys[company])!.id;

	it(
		'the API key replaced in the saved credential (partner -> organiser): the next run gets a ' +
			"token for the new key and acts as the organiser; the partner's token is not sent again",
		async () => {
			const { store, id } = credential();
			const [, before] = await tokenEvents(() => runPublicEvents(store, getMany));
			const partnerTokens = before.flatMap((e) => (e.kind === 'issued' ? [e.jti] : []));
			expect(partnerTokens).toHaveLength(1);
			// Saved as n8n's dialog saves it: the hidden token and what it was issued for are kept.
			store.edit(id, { apiKey: sb().keys.organiser });
			const start = await mark(sb());
			const [{ error }, events] = await tokenEvents(() => runPublicEvents(store, getMany));
			expect(error).toBeUndefined();
			expect(events.map((e) => ('kid' in e ? `${e.kind} ${e.kid}` : e.kind))).toEqual([
				`issued ${keyId('organiser')}`,
				`used ${keyId('organiser')}`,
			]);
			expect(events.some((e) => 'jti' in e && partnerTokens.includes(e.jti))).toBe(false);
			const organiser = sb().app.store.companies.find((c) => c.slug === 'organiser')!.id;
			const log = (await since(sb(), start)) as Array<LogEntry & { companyId?: number }>;
			expect(log.map((e) => `${e.route} ${e.companyId ?? '-'}`)).toEqual([
				'/token -',
				`/event-points ${organiser}`,
			]);
			expect(store.data(id).apiKey).toBe(sb().keys.organiser);
		},
	);

	it(
		"Order > Get after the key was replaced shows what the new key sees, not the old key's " +
			'order and barcodes',
		async () => {
			const { store, id } = credential();
			const { body: event } = await sb().admin('POST', '/events', { places: 4 });
			const free = await sb().freePlaces(event.id, 1);
			const made = await sb().send('POST', '/orders', {
				eventPoint: String(event.id),
				places: free.ids,
				priceCategory: free.priceCategory,
			});
			const paid = await sb().send('PUT', `/orders/${made.body.id}/status`, { toStatus: 'paid' });
			expect(paid.body.tickets[0].barcode).toEqual(expect.any(String));
			const get = { resource: 'order', operation: 'get', orderId: String(made.body.id) };
			expect(String((await runPublicEvents(store, get)).items[0].json.id)).toBe(
				String(made.body.id),
			);
			store.edit(id, { apiKey: sb().keys.organiser });
			const { items, error } = await runPublicEvents(store, get);
			expect(items).toEqual([]);
			expect(error?.message).toMatch(/404|not found/i);
			expect(JSON.stringify(error)).not.toContain(paid.body.tickets[0].barcode);
		},
	);

	it.each([
		['the environment', { environment: 'production' }],
		['the default language', { language: 'de' }],
	])(
		'%s edited: a new token is requested before anything else; the former one is not sent again',
		async (_, changes) => {
			const { store, id } = credential();
			const [, before] = await tokenEvents(() => runPublicEvents(store, getMany));
			const former = before.find((e) => e.kind === 'issued') as { jti: string };
			store.edit(id, changes);
			const [{ error }, events] = await tokenEvents(() => runPublicEvents(store, getMany));
			expect(error).toBeUndefined();
			expect(events.map((e) => e.kind)).toEqual(['issued', 'used']);
			expect(events.some((e) => 'jti' in e && e.jti === former.jti)).toBe(false);
		},
	);

	it.each([
		['"/api/v2" added to the Base URL', (base: string) => `${base}/api/v2`],
		['a trailing slash added to the Base URL', (base: string) => `${base}/`],
	])('%s (the same address): the token is kept', async (_, edit) => {
		const { store, id } = credential();
		await runPublicEvents(store, getMany);
		store.edit(id, { baseUrl: edit(sb().sandbox.baseUrl) });
		const [{ error }, events] = await tokenEvents(() => runPublicEvents(store, getMany));
		expect(error).toBeUndefined();
		expect(events.map((e) => e.kind)).toEqual(['used']);
	});

	it.each(['merge', 'whole'] as const)(
		'a run that must renew its token after its credential was edited under it stops, sends ' +
			'nothing with the former key, and the edit stays saved (n8n persisting the token: %s)',
		async (persist) => {
			const store = new CredentialStore([new PublicEventsApi()], persist);
			const { id } = store.add(CREDENTIAL, {
				environment: 'staging',
				baseUrl: sb().sandbox.baseUrl,
				apiKey: sb().keys.partner,
			});
			await runPublicEvents(store, getMany);
			const [first, second] = await sb().getAll('/event-points');
			// Item 2's read is refused as with an expired token: the run must renew.
			await sb().admin('POST', '/faults', {
				kind: 'status',
				status: 401,
				method: 'GET',
				path: `/event-points/${second.id}`,
			});
			let edited = false;
			const [{ error }, events] = await tokenEvents(async () => {
				const stop = sb().app.issuer.observe((event) => {
					// While item 1 is answered, the user saves the organiser's key.
					if (event.kind === 'used' && !edited) {
						edited = true;
						store.edit(id, { apiKey: sb().keys.organiser });
					}
				});
				try {
					return await runPublicEvents(
						store,
						{ resource: 'event', operation: 'get', eventId: byId('={{ $json.event }}') },
						{ inputItems: [{ event: first.id }, { event: second.id }] },
					);
				} finally {
					stop();
					await sb().admin('DELETE', '/faults');
				}
			});
			expect(error?.message).toMatch(/credential was edited while this run was going on/);
			expect(events.filter((e) => e.kind === 'issued')).toEqual([]);
			expect(store.data(id).apiKey).toBe(sb().keys.organiser);
			// The next run acts as the organiser.
			const [next, after] = await tokenEvents(() => runPublicEvents(store, getMany));
			expect(next.error).toBeUndefined();
			expect(after.map((e) => ('kid' in e ? `${e.kind} ${e.kid}` : e.kind))).toEqual([
				`issued ${keyId('organiser')}`,
				`used ${keyId('organiser')}`,
			]);
		},
	);

	it(
		'a Base URL that points elsewhere (its /token not found): the run says the address does ' +
			'not answer as the Public Events API and to check the Base URL; nothing else is sent',
		async () => {
			// The sandbox's host with another path: only /api/v2 is the API there.
			const { store } = credential({ baseUrl: `${sb().sandbox.baseUrl}/tickets` });
			const start = await mark(sb());
			const { error } = await runPublicEvents(store, getMany);
			expect(error?.message).toMatch(
				new RegExp(
					'^POST \\S+/tickets/api/v2/token answered 404: this address does not answer as ' +
						'the Public Events API .*Check the Base URL',
				),
			);
			// The sandbox logs its API only: nothing reached /api/v2 after the refused token request.
			expect(await since(sb(), start)).toEqual([]);
		},
	);
});
