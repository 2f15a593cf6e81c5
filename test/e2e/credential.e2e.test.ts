/**
 * The credentials' tests in a running real n8n (any supported version), called as the editor's
 * credential dialog calls them (`POST /rest/credentials/test` for a stored credential), without a
 * browser: the right set-ups pass, each mistake fails saying which field is wrong (before any
 * request when the fields show it), and no key, token or secret shows in an answer or in anything
 * n8n printed. (journeys.e2e.test.ts drives the same dialog in a browser on the default version.)
 */
import {
	apiCredential,
	N8nInstance,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { n8nWithSandbox } from '../../harness/n8n/withSandbox';
import { SandboxClient } from '../../harness/sandbox/client';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { OWNER } from '../../harness/n8n/owner';

const WRONG_KEY = 'pe_wrong_key_for_the_credential_test_7d1c';
const SECRET = 'whsec_e2e_credential_test_5b8e2a91';

type Credential = { id: string; name: string; type: string; data: Record<string, string> };

describe('real n8n: the credential tests', () => {
	let sandbox: SandboxClient;
	let production: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let cookie: string;
	const answers: unknown[] = [];
	const credentials: Record<string, Credential> = {};

	/** A stored credential per case, each with its own id, as the dialog tests saved ones. */
	function api(
		id: string,
		change: { environment?: string; baseUrl?: string; apiKey?: string; language?: string },
	): Credential {
		const base = apiCredential(
			{ id, name: `Public Events ${id}` },
			change.baseUrl ?? sandbox.sandbox.baseUrl,
			change.apiKey ?? sandbox.keys.partner,
			change.environment,
		);
		const data: Record<string, string> = { ...base.data };
		if (change.language !== undefined) data.language = change.language;
		return { ...base, data };
	}
	const webhook = (id: string, secret: string): Credential => ({
		id,
		name: `Public Events webhook ${id}`,
		type: 'publicEventsWebhookApi',
		data: { secret },
	});

	const requestsSince = (sb: SandboxClient, seq: number) =>
		sb.app.log.since(seq).map((e) => `${e.method} ${e.route}${e.query} ${e.status ?? '-'}`);

	/**
	 * What the editor sends when it tests a stored credential; n8n answers `{ status, message }`.
	 * Also the requests each sandbox saw meanwhile.
	 */
	async function testCredential(id: string) {
		const seq = [sandbox, production].map((sb) => sb.app.log.lastSeq);
		const answer = (await server.rest(cookie, 'POST', '/credentials/test', {
			credentials: credentials[id],
		})) as { status: string; message: string };
		answers.push(answer);
		return {
			answer,
			staging: requestsSince(sandbox, seq[0]),
			production: requestsSince(production, seq[1]),
		};
	}

	beforeAll(async () => {
		[{ sandbox, packed, n8n }, production] = await Promise.all([
			n8nWithSandbox(),
			SandboxClient.start({ environment: 'production' }),
		]);
		const all = [
			api('PeE2eCredTestOk1', {}),
			api('PeE2eCredTestBad', { apiKey: WRONG_KEY }),
			api('PeE2eCredProdOk1', {
				environment: 'production',
				baseUrl: production.sandbox.baseUrl,
				apiKey: production.keys.partner,
			}),
			api('PeE2eCredLangEng', { language: 'English' }),
			api('PeE2eCredLangDe1', { language: 'de' }),
			api('PeE2eCredProdStg', { environment: 'production' }),
			webhook('PeE2eHookOk00001', SECRET),
			webhook('PeE2eHookSpace01', `${SECRET} `),
			webhook('PeE2eHookEmpty01', ''),
		];
		for (const credential of all) credentials[credential.id] = credential;
		await n8n.importCredentials(all);
		server = await n8n.start();
		cookie = await server.setupOwner(OWNER);
	});

	afterAll(async () => {
		await server?.stop();
		n8n?.cleanup();
		packed?.cleanup();
		await sandbox?.stop();
		await production?.stop();
	});

	const ONE_TOKEN_ONE_EVENT = ['POST /token 200', 'GET /event-points?page=1&itemsPerPage=1 200'];

	it('the right staging key passes after one token request and one one-item page', async () => {
		const { answer, staging } = await testCredential('PeE2eCredTestOk1');
		expect(answer).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(staging).toEqual(ONE_TOKEN_ONE_EVENT);
	});

	it('the right production set-up passes, and so does the language de', async () => {
		const prod = await testCredential('PeE2eCredProdOk1');
		expect(prod.answer).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(prod.production).toEqual(ONE_TOKEN_ONE_EVENT);
		const de = await testCredential('PeE2eCredLangDe1');
		expect(de.answer.status).toBe('OK');
	});

	it('a wrong key fails saying the key was refused, after one refused token request', async () => {
		const { answer, staging } = await testCredential('PeE2eCredTestBad');
		expect(answer.status).toBe('Error');
		expect(answer.message).toMatch(/The API key was refused by POST .*\/api\/v2\/token \(401\)/);
		expect(staging).toEqual(['POST /token 401']);
	});

	it('Default Language "English" fails naming the field, before any request', async () => {
		const { answer, staging } = await testCredential('PeE2eCredLangEng');
		expect(answer).toEqual({
			status: 'Error',
			message: 'Default Language: use a language code such as en or de, not "English"',
		});
		expect(staging).toEqual([]);
	});

	it(
		'Production with the staging service at its loopback address and its test key fails ' +
			'naming Environment, after the token request alone',
		async () => {
			const { answer, staging } = await testCredential('PeE2eCredProdStg');
			expect(answer).toEqual({
				status: 'Error',
				message:
					'Environment: the service at this Base URL is a staging service (its token names ' +
					'the environment "staging"), but Environment is Production. Set Environment to ' +
					'Staging, or enter the production address and key.',
			});
			expect(staging).toEqual(['POST /token 200']);
		},
	);

	it('the webhook secret: a right one passes; a trailing space or none is told', async () => {
		expect((await testCredential('PeE2eHookOk00001')).answer).toEqual({
			status: 'OK',
			message: "Well formed. Only a delivery can tell whether it matches the service's secret.",
		});
		expect((await testCredential('PeE2eHookSpace01')).answer).toEqual({
			status: 'Error',
			message:
				'Secret: it starts or ends with a space or a line break, copied with it. Remove it: ' +
				"the service's deliveries would not match",
		});
		expect((await testCredential('PeE2eHookEmpty01')).answer).toEqual({
			status: 'Error',
			message:
				'Secret: empty. Paste the secret agreed with the Public Events service for push ' +
				'deliveries to this trigger',
		});
	});

	it("no key, token or secret in n8n's answers, output or server log", async () => {
		expect(answers.length).toBeGreaterThanOrEqual(9);
		await server.stop();
		expectNoSecrets(
			`${JSON.stringify(answers)}\n${n8n.printedText()}`,
			{
				...secretsOf(sandbox, { 'wrong API key': WRONG_KEY, 'webhook secret': SECRET }),
				...Object.fromEntries(
					Object.entries(secretsOf(production)).map(([name, value]) => [
						`production ${name}`,
						value,
					]),
				),
			},
			'credential test',
		);
	});
});
