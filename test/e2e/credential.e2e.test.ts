/**
 * The credential's test in a running real n8n (any supported version), called as the editor's
 * credential dialog calls it (`POST /rest/credentials/test` for a stored credential), without a
 * browser: the right key passes, a wrong key fails saying the key was refused, and neither key
 * shows in the answer or in anything n8n printed. (editor.e2e.test.ts drives the same dialog in
 * a browser on the default version.)
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

const GOOD = { id: 'PeE2eCredTestOk1', name: 'Public Events sandbox (credential test)' };
const WRONG = { id: 'PeE2eCredTestBad', name: 'Public Events wrong key (credential test)' };
const WRONG_KEY = 'pe_wrong_key_for_the_credential_test_7d1c';
describe('real n8n: the credential test', () => {
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let cookie: string;
	const answers: unknown[] = [];

	const requestsSince = (seq: number) =>
		sandbox.app.log.since(seq).map((e) => `${e.method} ${e.route}${e.query} ${e.status ?? '-'}`);

	/** What the editor sends when it tests a stored credential; n8n answers `{ status, message }`. */
	async function testCredential(
		credential: ReturnType<typeof apiCredential>,
	): Promise<{ status: string; message: string }> {
		const answer = (await server.rest(cookie, 'POST', '/credentials/test', {
			credentials: credential,
		})) as { status: string; message: string };
		answers.push(answer);
		return answer;
	}

	beforeAll(async () => {
		({ sandbox, packed, n8n } = await n8nWithSandbox());
		const { baseUrl } = sandbox.sandbox;
		await n8n.importCredentials([
			apiCredential(GOOD, baseUrl, sandbox.keys.partner),
			apiCredential(WRONG, baseUrl, WRONG_KEY),
		]);
		server = await n8n.start();
		cookie = await server.setupOwner(OWNER);
	});

	afterAll(async () => {
		await server?.stop();
		n8n?.cleanup();
		packed?.cleanup();
		await sandbox?.stop();
	});

	it('the right key: the test passes after one token request and one one-item page', async () => {
		const seq = sandbox.app.log.lastSeq;
		const answer = await testCredential(
			apiCredential(GOOD, sandbox.sandbox.baseUrl, sandbox.keys.partner),
		);
		expect(answer.status).toBe('OK');
		expect(requestsSince(seq)).toEqual([
			'POST /token 200',
			'GET /event-points?page=1&itemsPerPage=1 200',
		]);
	});

	it(
		'a wrong key: the test fails saying the key was refused, ' + 'after one refused token request',
		async () => {
			const seq = sandbox.app.log.lastSeq;
			const answer = await testCredential(apiCredential(WRONG, sandbox.sandbox.baseUrl, WRONG_KEY));
			expect(answer.status).toBe('Error');
			expect(answer.message).toMatch(/The API key was refused by POST .*\/api\/v2\/token \(401\)/);
			expect(requestsSince(seq)).toEqual(['POST /token 401']);
		},
	);

	it("no key or token in n8n's answers, output or server log", async () => {
		await server.stop();
		expectNoSecrets(
			`${JSON.stringify(answers)}\n${n8n.printedText()}`,
			secretsOf(sandbox, { 'wrong API key': WRONG_KEY }),
			'credential test',
		);
	});
});
