import type { IDataObject } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { apiUrl, issuedFor } from '../../nodes/shared/transport';

const credential = new PublicEventsApi();

describe('the API address', () => {
	it.each([
		['https://tickets.example', 'https://tickets.example/api/v2'],
		['https://tickets.example/', 'https://tickets.example/api/v2'],
		[' https://tickets.example/api/v2// ', 'https://tickets.example/api/v2'],
		['http://127.0.0.1:4010/partner', 'http://127.0.0.1:4010/partner/api/v2'],
	])('%j -> %s', (baseUrl, expected) => {
		expect(apiUrl(baseUrl)).toBe(expected);
	});
});

describe('the credential', () => {
	const BASE = 'https://tickets.example';
	const fields = { baseUrl: BASE, apiKey: 'pe_live_partner_0123', environment: 'production' };
	// As preAuthentication stored it: the token, its origin, and what it was issued for.
	const bound = {
		...fields,
		token: 'abc.def.ghi',
		issuedBy: BASE,
		issuedFor: issuedFor(fields, 'abc.def.ghi'),
	};
	const authorization = async (credentials: IDataObject, request: IDataObject) =>
		(
			(await credential.authenticate(credentials as never, request as never)).headers as
				| IDataObject
				| undefined
		)?.Authorization;

	it('sends the stored token as a bearer token to the origin that issued it', async () => {
		expect(await authorization(bound, { url: `${BASE}/api/v2/event-points` })).toBe(
			'Bearer abc.def.ghi',
		);
		expect(await authorization(bound, { baseURL: `${BASE}/api/v2`, url: '/event-points' })).toBe(
			'Bearer abc.def.ghi',
		);
	});

	it.each([
		['the Base URL was edited since', { ...bound, baseUrl: 'https://elsewhere.example' }],
		['the token names no origin (stored before origins were)', { ...bound, issuedBy: '' }],
		['the API key was replaced since', { ...bound, apiKey: 'pe_live_organiser_4567' }],
		['the environment was changed since', { ...bound, environment: 'staging' }],
		['the default language was set since', { ...bound, language: 'de' }],
		['the token names no key (stored before keys were)', { ...bound, issuedFor: '' }],
		["another token's binding", { ...bound, token: 'xyz.def.ghi' }],
		['no token yet', { ...bound, token: '' }],
	])('sends no token when %s', async (_, credentials) => {
		expect(await authorization(credentials, { url: `${BASE}/api/v2/event-points` })).toBe(
			undefined,
		);
	});

	it('sends no token to another address (the HTTP Request node with this credential)', async () => {
		expect(await authorization(bound, { url: 'https://collector.example/x' })).toBeUndefined();
		expect(await authorization(bound, { url: 'http://tickets.example/api/v2/x' })).toBeUndefined();
	});

	// n8n's HTTP Request node (versions 3 to 4.x) hands n8n legacy options: the address as `uri`,
	// which n8n reads when there is no `url`, and passes them to authenticate as they are.
	it("HTTP Request node options ({ uri }): the token on the Base URL's origin only", async () => {
		const legacy = { headers: {}, method: 'GET', gzip: true, resolveWithFullResponse: true };
		expect(await authorization(bound, { ...legacy, uri: `${BASE}/api/v2/event-points` })).toBe(
			'Bearer abc.def.ghi',
		);
		expect(
			await authorization(bound, { ...legacy, uri: 'https://collector.attacker.example/x' }),
		).toBeUndefined();
		expect(
			await authorization(bound, { ...legacy, uri: 'http://tickets.example/api/v2/x' }),
		).toBeUndefined();
		// n8n takes `url` first: so does the check.
		expect(
			await authorization(bound, {
				url: 'https://collector.attacker.example/x',
				uri: `${BASE}/api/v2/x`,
			}),
		).toBeUndefined();
	});

	it.each([
		['no address at all', {}],
		['a path with no base', { url: '/api/v2/event-points' }],
		['an address that is not a URL', { uri: 'tickets example' }],
	])('fails closed: %s gets no token', async (_, request) => {
		expect(await authorization(bound, request)).toBeUndefined();
	});

	it('keeps the key and the token out of sight', () => {
		const byName = Object.fromEntries(credential.properties.map((p) => [p.name, p]));
		expect(byName.apiKey.typeOptions?.password).toBe(true);
		expect(byName.token.type).toBe('hidden');
		expect(byName.token.typeOptions?.expirable).toBe(true);
		expect(byName.issuedBy.type).toBe('hidden');
	});
});
