import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	credentialFor,
	mark,
	runPublicEvents,
	since,
} from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { capturedText, expectNoSecrets, secretsOf } from '../../../../harness/secrets';

/**
 * Error paths carry no secret: a failing POST /token (whose request body holds the API key),
 * a 401 on a request (whose header holds the token), and a service or proxy that echoes the
 * request back in its error body. The engine harness already fails any run that leaks; each
 * test also scans the error (message, description, stack, body) and the error item itself.
 */
let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 3, placesPerEvent: 4 });
});
afterAll(() => sb.stop());
afterEach(() => sb.admin('DELETE', '/faults'));

const fault = async (rule: IDataObject) =>
	expect((await sb.admin('POST', '/faults', rule)).status).toBe(201);
const COUNTRIES: INodeParameters = {
	resource: 'reference',
	operation: 'getManyCountries',
	returnAll: true,
};
const lines = async (from: number) =>
	(await since(sb, from)).map((e) => `${e.method} ${e.route} ${e.status}`);

/**
 * Runs an operation with and without continueOnFail, scans both, and returns the stopped run's
 * error.
 */
async function failingRun(
	store: ReturnType<typeof credentialFor>['store'],
	parameters: INodeParameters,
	faults: IDataObject[] = [],
) {
	const outcomes = [];
	for (const onError of [undefined, 'continueRegularOutput'] as const) {
		for (const rule of faults) await fault(rule);
		const result = await runPublicEvents(store, parameters, onError ? { onError } : {});
		await sb.admin('DELETE', '/faults');
		expectNoSecrets(
			capturedText(result.error, result.items),
			secretsOf(sb),
			`the ${onError ?? 'stopped'} run`,
		);
		outcomes.push(result);
	}
	const [stopped, continued] = outcomes;
	expect(stopped.error).toBeDefined();
	expect(continued.items.map((item) => item.json.error)).toEqual([stopped.error!.message]);
	return stopped.error!;
}

describe('POST /token fails while an operation runs: the key is in no error', () => {
	// The request body of POST /token is `{"apiKey": ...}`: a proxy or service may echo it back.
	const echo = () => ({ received: { apiKey: sb.keys.partner }, raw: `apiKey=${sb.keys.partner}` });

	test.each([
		[
			'500 echoing the request',
			{ kind: 'status', status: 500 },
			/^POST \S+\/token failed with status 500 while requesting a token$/,
		],
		[
			'401 echoing the request',
			{ kind: 'status', status: 401 },
			/^The API key was refused by POST \S+\/token \(401\)/,
		],
		[
			'an HTML error page',
			{ kind: 'html', status: 502 },
			/^POST \S+\/token failed with status 502/,
		],
	])('%s', async (_what, rule, message) => {
		const { store } = credentialFor(sb);
		const before = await mark(sb);
		const body = rule.kind === 'status' ? echo() : undefined;
		const error = await failingRun(store, COUNTRIES, [
			{ ...rule, body, method: 'POST', path: '/token' },
		]);
		expect(error.message).toMatch(message);
		expect(await lines(before)).toEqual([
			`POST /token ${rule.status}`,
			`POST /token ${rule.status}`,
		]);
	});
});

describe('a request answered 401: the token is in no error', () => {
	test(
		'401 twice (before and after a new token), the body echoing ' + 'the Authorization header',
		async () => {
			const { store, id } = credentialFor(sb);
			await runPublicEvents(store, COUNTRIES);
			const token = String(store.data(id).token);
			const echo = {
				code: 'invalid_token',
				message: `Token rejected: Bearer ${token}`,
				request: { headers: { Authorization: `Bearer ${token}` } },
				token,
			};
			const error = await failingRun(store, COUNTRIES, [
				{ kind: 'status', status: 401, path: '/countries', count: 2, body: echo },
			]);
			expect(error.message).toMatch(
				/^The service refused the token even after requesting a new one/,
			);
			expect(capturedText(error)).toContain('Token rejected: Bearer [redacted]');
		},
	);
});

describe('a 4xx whose body echoes the request: no secret in the error', () => {
	const jsonEcho = (token: string) => ({
		message: 'Bad request',
		request: {
			method: 'GET',
			headers: { authorization: `Bearer ${token}`, 'x-api-key': sb.keys.partner },
			body: { apiKey: sb.keys.partner, access_token: token },
		},
	});
	const textEcho = (token: string) =>
		`400 Bad Request\nGET /api/v2/countries\nAuthorization: Bearer ${token}` +
		`\nX-Api-Key: ${sb.keys.partner}\n{"apiKey":"${sb.keys.partner}"}`;

	test.each([
		['as JSON fields', jsonEcho, /^The service rejected the request: Bad request$/],
		['as plain text', textEcho, /^The service rejected the request: 400 Bad Request/],
	])('%s', async (_what, body, message) => {
		const { store, id } = credentialFor(sb);
		await runPublicEvents(store, COUNTRIES);
		const token = String(store.data(id).token);
		const error = await failingRun(store, COUNTRIES, [
			{ kind: 'status', status: 400, path: '/countries', count: 1, body: body(token) },
		]);
		expect(error.message).toMatch(message);
		// What is not secret stays, so the error still says what came back.
		expect(capturedText(error)).toMatch(/GET|Bad Request/);
	});

	test(
		'a token-shaped value that is no token of ours is redacted ' +
			'too (JWTs are recognised by shape)',
		async () => {
			const { store } = credentialFor(sb);
			const jwtLike = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjF9.c2lnbmF0dXJlLXRoYXQtaXMtbG9uZw';
			const error = await failingRun(store, COUNTRIES, [
				{
					kind: 'status',
					status: 400,
					path: '/countries',
					count: 1,
					body: { message: `stale ${jwtLike}` },
				},
			]);
			expect(error.message).toBe('The service rejected the request: stale [redacted]');
		},
	);

	test('a gateway echo keyed by the key and the token: the names are cleaned too', async () => {
		const { store, id } = credentialFor(sb);
		await runPublicEvents(store, COUNTRIES);
		const token = String(store.data(id).token);
		const error = await failingRun(store, COUNTRIES, [
			{
				kind: 'status',
				status: 400,
				path: '/countries',
				count: 1,
				body: {
					message: 'Bad request',
					[sb.keys.partner]: 'seen',
					[token]: { seen: true },
					[`Bearer ${token}`]: 1,
					route: '/countries',
				},
			},
		]);
		expect(error.message).toBe('The service rejected the request: Bad request');
		const body = (error as { context?: { body?: IDataObject } }).context?.body;
		expect(body).toEqual({
			message: 'Bad request',
			'[redacted]': 'seen',
			'[redacted] 2': { seen: true },
			'Bearer [redacted]': 1,
			route: '/countries',
		});
	});
});
