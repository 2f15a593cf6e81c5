/**
 * The credentials' Test button, run as n8n runs it (the function a node names with `testedBy`, in
 * n8n-core's CredentialTestContext) against the sandbox's staging and production services: each
 * mistake is told naming its field, before any request when the fields show it; the right set-ups
 * pass; no key or token shows in a message.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	NodeHelpers,
	type ICredentialDataDecryptedObject,
	type INodeCredentialTestResult,
} from 'n8n-workflow';

import {
	CREDENTIAL_TYPES,
	credentialTestOf,
	NODE_TYPES,
	runCredentialTest,
} from '../../harness/engine/credentialTest';
import { SandboxClient } from '../../harness/sandbox/client';
import { expectNoSecrets, runningSecrets } from '../../harness/secrets';

let staging: SandboxClient;
let production: SandboxClient;
const results: INodeCredentialTestResult[] = [];

beforeAll(async () => {
	staging = await SandboxClient.start({ environment: 'staging' });
	production = await SandboxClient.start({ environment: 'production' });
});

afterAll(async () => {
	await staging?.stop();
	await production?.stop();
});

/** The test's result and the requests each sandbox saw during it. */
async function tested(data: ICredentialDataDecryptedObject) {
	const since = [staging, production].map((sb) => sb.app.log.lastSeq);
	const result = await runCredentialTest('publicEventsApi', data);
	results.push(result);
	const [seenByStaging, seenByProduction] = [staging, production].map((sb, i) =>
		sb.app.log.since(since[i]).map((e) => `${e.method} ${e.route}${e.query} ${e.status ?? '-'}`),
	);
	return { ...result, seenByStaging, seenByProduction };
}

const stagingSetUp = () => ({
	environment: 'staging',
	baseUrl: staging.sandbox.baseUrl,
	apiKey: staging.keys.partner,
});
const productionSetUp = () => ({
	environment: 'production',
	baseUrl: production.sandbox.baseUrl,
	apiKey: production.keys.partner,
});
const ONE_TOKEN_ONE_EVENT = ['POST /token 200', 'GET /event-points?page=1&itemsPerPage=1 200'];

describe('n8n reaches the tests from the credential dialog', () => {
	it('the API credential has no declarative test: n8n runs the function every node names', () => {
		expect(credentialTestOf('publicEventsApi')).toBeDefined();
		for (const node of NODE_TYPES) {
			const entry = node.description.credentials!.find((c) => c.name === 'publicEventsApi')!;
			expect([node.description.name, entry.testedBy]).toEqual([
				node.description.name,
				'publicEventsApiConnection',
			]);
			expect(node.methods?.credentialTest?.publicEventsApiConnection).toBe(
				credentialTestOf('publicEventsApi'),
			);
		}
	});

	it('the webhook credential: the push trigger names its test', () => {
		const trigger = NODE_TYPES.find((n) => n.description.name === 'publicEventsTrigger')!;
		const entry = trigger.description.credentials!.find(
			(c) => c.name === 'publicEventsWebhookApi',
		)!;
		expect(entry.testedBy).toBe('webhookSecretForm');
		expect(credentialTestOf('publicEventsWebhookApi')).toBe(
			trigger.methods?.credentialTest?.webhookSecretForm,
		);
	});

	// n8n's dialog (2.40.7 and 1.123.81) runs no test while a required field is empty: an empty
	// Secret was saved without a word. Each test names an empty field itself.
	it('no field is required, so the dialog runs the test on an empty one too', () => {
		for (const type of CREDENTIAL_TYPES)
			expect(type.properties.filter((p) => p.required).map((p) => p.name)).toEqual([]);
	});
});

describe('the API credential test', () => {
	it('the right staging set-up passes: one token request, one one-item page', async () => {
		const result = await tested(stagingSetUp());
		expect(result).toMatchObject({ status: 'OK', message: 'Connection successful!' });
		expect(result.seenByStaging).toEqual(ONE_TOKEN_ONE_EVENT);
	});

	it('the right production set-up passes (http is fine on this machine)', async () => {
		const result = await tested({ ...productionSetUp(), language: 'de' });
		expect(result).toMatchObject({ status: 'OK', message: 'Connection successful!' });
		expect(result.seenByProduction).toEqual(ONE_TOKEN_ONE_EVENT);
	});

	it.each(['en', 'de', 'pt-BR', 'en_US ', ' DE', 'zh-Hant-TW'])(
		'a language code passes: %j (the nodes trim it and send it so)',
		async (language) => {
			expect((await tested({ ...stagingSetUp(), language })).status).toBe('OK');
		},
	);

	it.each([
		['English', 'Default Language: use a language code such as en or de, not "English"'],
		['en US', 'Default Language: use a language code such as en or de, not "en US"'],
		['Deutsch', 'Default Language: use a language code such as en or de, not "Deutsch"'],
		['en-', 'Default Language: use a language code such as en or de, not "en-"'],
	])('a language that is not a code: %j, told before any request', async (language, message) => {
		const result = await tested({ ...stagingSetUp(), language });
		expect(result).toMatchObject({ status: 'Error', message });
		expect(result.seenByStaging).toEqual([]);
	});

	it(
		'Production with the staging service and its test key: the token names staging, so the ' +
			'test fails naming Environment, after the token request alone',
		async () => {
			const result = await tested({ ...stagingSetUp(), environment: 'production' });
			expect(result).toMatchObject({
				status: 'Error',
				message:
					'Environment: the service at this Base URL is a staging service (its token ' +
					'names the environment "staging"), but Environment is Production. Set ' +
					'Environment to Staging, or enter the production address and key.',
			});
			expect(result.seenByStaging).toEqual(['POST /token 200']);
		},
	);

	it('Staging with the production service: the token names production', async () => {
		const result = await tested({ ...productionSetUp(), environment: 'staging' });
		expect(result.status).toBe('Error');
		expect(result.message).toBe(
			'Environment: the service at this Base URL is the production service (its token names ' +
				'the environment "production"), but Environment is Staging. Set Environment to ' +
				'Production, so the key and the token travel only over https.',
		);
		expect(result.seenByProduction).toEqual(['POST /token 200']);
	});

	it('a staging key at production: refused, and the key is named like a test key', async () => {
		const result = await tested({ ...productionSetUp(), apiKey: staging.keys.partner });
		expect(result.status).toBe('Error');
		expect(result.message).toBe(
			`The API key was refused by POST ${production.sandbox.baseUrl}/api/v2/token (401). ` +
				'Staging and production keys differ: check that this key was issued for production ' +
				'and that the Base URL is the production address. Environment is Production, but ' +
				'the API key is named like a test key: if the key and the address are the staging ' +
				"service's, set Environment to Staging.",
		);
		expect(result.seenByProduction).toEqual(['POST /token 401']);
	});

	it('a wrong key: refused, after one token request', async () => {
		const result = await tested({ ...stagingSetUp(), apiKey: 'pe_wrong_key_4d1c9a' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API key was refused by POST .*\/api\/v2\/token \(401\)/);
		expect(result.seenByStaging).toEqual(['POST /token 401']);
	});

	it.each([
		[
			'a key pasted with a line break',
			{ apiKey: '\n' },
			'API Key: it starts or ends with a space or a line break, copied with the key. ' +
				'Paste the key alone',
		],
		[
			'no key',
			{ apiKey: '' },
			'API Key: empty. Paste the key the Public Events service issued to your company for ' +
				'this environment',
		],
		[
			'no Base URL',
			{ baseUrl: ' ' },
			'Base URL: empty. Enter the address the Public Events service gave your company with ' +
				'the API key',
		],
		[
			'a Base URL without https://',
			{ baseUrl: 'tickets.example.com' },
			'Base URL: "tickets.example.com" is not a web address. Start it with https:// (the ' +
				'address the Public Events service gave your company)',
		],
		[
			'Production over http',
			{ environment: 'production', baseUrl: 'http://tickets.example.com' },
			'Base URL: Production needs an https:// address: over http the API key and the token ' +
				"travel in clear. Use the service's https address (or set Environment to Staging for " +
				'a test service).',
		],
	])('%s: told before any request', async (_, change, message) => {
		const setUp: ICredentialDataDecryptedObject = { ...stagingSetUp(), ...change };
		// the line break after the right key
		if (setUp.apiKey === '\n') setUp.apiKey = `${staging.keys.partner}\n`;
		const result = await tested(setUp);
		expect(result).toMatchObject({ status: 'Error', message });
		expect(result.seenByStaging).toEqual([]);
	});

	it('nothing listens at the Base URL: the test says it could not reach it', async () => {
		const result = await tested({ ...stagingSetUp(), baseUrl: 'http://127.0.0.1:9' });
		expect(result).toMatchObject({
			status: 'Error',
			message:
				'Could not reach http://127.0.0.1:9/api/v2/token to request a token (ECONNREFUSED): ' +
				'check the Base URL',
		});
	});

	it("no key or token in any test's message", () => {
		expect(results.length).toBeGreaterThan(15);
		expectNoSecrets(JSON.stringify(results), runningSecrets(), 'credential test messages');
	});
});

describe('the webhook credential test', () => {
	const test = (secret: string) => runCredentialTest('publicEventsWebhookApi', { secret });

	it.each([
		['whsec_e2e_editor_3f9a61c2'],
		['Zx8-q2Lr0vTy5mNw3BcD7hJk1PsA4eGu'],
		['a secret with spaces inside it, 40 chars'],
	])('a well-formed secret passes: %j', async (secret) => {
		expect(await test(secret)).toEqual({
			status: 'OK',
			message: "Well formed. Only a delivery can tell whether it matches the service's secret.",
		});
	});

	const PLACEHOLDER =
		'Secret: this is a placeholder (such as "secret" or "changeme"), not a secret. Ask the ' +
		'Public Events service for the push secret, or agree one of at least 16 random characters ' +
		'with them';
	it.each([
		[
			'',
			'Secret: empty. Paste the secret agreed with the Public Events service for push ' +
				'deliveries to this trigger',
		],
		[
			'   ',
			'Secret: empty. Paste the secret agreed with the Public Events service for push ' +
				'deliveries to this trigger',
		],
		[
			'whsec_e2e_editor_3f9a61c2 ',
			'Secret: it starts or ends with a space or a line break, copied with it. Remove it: ' +
				"the service's deliveries would not match",
		],
		[
			'\twhsec_e2e_editor_3f9a61c2',
			'Secret: it starts or ends with a space or a line break, copied with it. Remove it: ' +
				"the service's deliveries would not match",
		],
		[
			'whsec_e2e_editor\n_3f9a61c2',
			'Secret: it holds a line break or a tab. Paste it on one line, as agreed with the service',
		],
		[
			't=1732700000,sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
			'Secret: this is a signature (sha256=…) copied from a delivery, not the secret it was ' +
				'signed with. Ask the Public Events service for the secret itself',
		],
		['changeme', PLACEHOLDER],
		['<your webhook secret>', PLACEHOLDER],
		['YOUR_SECRET_HERE', PLACEHOLDER],
		['paste-your-signing-secret-here', PLACEHOLDER],
		['xxxxxxxxxxxxxxxxxxxxxxxx', PLACEHOLDER],
		[
			'k3y-2024',
			'Secret: only 8 characters: whoever guesses it can start this workflow with a made-up ' +
				'sale. Agree a longer one with the Public Events service (at least 16 characters; 32 ' +
				'random ones are usual)',
		],
	])('%j is told', async (secret, message) => {
		expect(await test(secret)).toEqual({ status: 'Error', message });
	});

	it('no secret in any message', async () => {
		const secret = 'whsec_leak_check_7e2b9c41 ';
		const result = await test(secret);
		expect(result.status).toBe('Error');
		expect(result.message).not.toContain(secret.trim());
	});
});

describe('Production with a staging-looking address or a test-looking key: a warning only', () => {
	const api = CREDENTIAL_TYPES.find((t) => t.name === 'publicEventsApi')!;
	/** The notes n8n's dialog shows for these values, by its own display rule. */
	const notes = (values: Record<string, string>) =>
		api.properties
			.filter((p) => p.type === 'notice' && NodeHelpers.displayParameter(values, p, null, null))
			.map((p) => p.name);

	it.each([
		[{ baseUrl: 'https://staging.tickets.example' }, ['stagingAddressNotice']],
		[{ baseUrl: 'https://tickets-sandbox.example.com/partner' }, ['stagingAddressNotice']],
		[
			{ baseUrl: 'https://api.test.example', apiKey: 'sk_test_123' },
			['stagingAddressNotice', 'testKeyNotice'],
		],
		[{ apiKey: 'pe_test_partner_5e0c1a9d' }, ['testKeyNotice']],
		[{ baseUrl: 'https://tickets.example.com', apiKey: 'pe_live_partner_5e0c1a9d' }, []],
		[{ baseUrl: 'https://contest-tickets.example', apiKey: 'latest_key_9' }, []],
		// a saved key, as the dialog holds it when reopened
		[{ apiKey: '__n8n_BLANK_VALUE_e5362baf-c777-4d57-a609-6eaf1f9e87f6' }, []],
	])('Production, %j: %j', (values, expected) => {
		expect(notes({ environment: 'production', ...values })).toEqual(expected);
		expect(notes({ environment: 'staging', ...values })).toEqual([]);
	});

	it('no display condition of a credential or node is a regular expression', () => {
		// n8n evaluates a `regex` condition in a vm limited to 250 ms whenever it resolves the
		// credential for a run: a busy process overran it once and the run failed.
		const described = [
			...CREDENTIAL_TYPES.map((t) => t.properties),
			...NODE_TYPES.map((n) => n.description.properties),
		];
		expect(JSON.stringify(described)).not.toMatch(/"_cnd":\{"regex"/);
	});

	it('the test passes, with the warning in its message (n8n shows its own words)', async () => {
		// A service whose tokens name no environment (payload `{}`), which the sandbox is not: only
		// the key's name hints at staging, so the test passes.
		const key = 'pe_test_accepted_by_this_service_8c1f';
		const stub = createServer((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(req.method === 'POST' ? { token: 'a.e30.b' } : []));
		});
		await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
		try {
			const result = await runCredentialTest('publicEventsApi', {
				environment: 'production',
				baseUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
				apiKey: key,
			});
			expect(result).toEqual({
				status: 'OK',
				message:
					'Connection successful. Environment is Production, but the API key is named like ' +
					"a test key: if the key and the address are the staging service's, set " +
					'Environment to Staging.',
			});
		} finally {
			stub.close();
		}
	});
});

describe('a Base URL that points at another site', () => {
	// A web site, or the API's host with a wrong path: /api/v2/token is not found there.
	it.each([404, 405])(
		'its /token answers %i: the test says the address is not the API and to check the Base URL',
		async (status) => {
			const site = createServer((req, res) => {
				res.writeHead(status, { 'content-type': 'text/html' });
				res.end('<html><body>Not Found</body></html>');
			});
			await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
			try {
				const result = await runCredentialTest('publicEventsApi', {
					...stagingSetUp(),
					baseUrl: `http://127.0.0.1:${(site.address() as AddressInfo).port}/shop`,
				});
				expect(result.status).toBe('Error');
				expect(result.message).toMatch(
					new RegExp(
						`^POST http://127\\.0\\.0\\.1:\\d+/shop/api/v2/token answered ${status}: this ` +
							'address does not answer as the Public Events API .*Check the Base URL',
					),
				);
				expect(result.message).not.toMatch(/failed with status/);
			} finally {
				site.close();
			}
		},
	);
});
