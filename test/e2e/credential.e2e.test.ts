/**
 * The credentials' tests in a running real n8n (any supported version), called as the editor's
 * credential dialog calls them (`POST /rest/credentials/test` for a stored credential), without a
 * browser: the right set-ups pass, each mistake fails saying which field is wrong (before any
 * request when the fields show it), and no key, token or secret shows in an answer or in anything
 * n8n printed. (journeys.e2e.test.ts drives the same dialog in a browser on the default version.)
 * A credential edited as the dialog saves it (the hidden token kept) is then used as saved: the
 * next run acts with the new key. The same n8n runs the write node in graphs with `n8n execute`
 * (harness/n8n/writeGraphs.ts): Retry On Fail, Loop Over Items, two branches, Execute Once.
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
import {
	expectEachRunItsOwn,
	expectRetriedOnce,
	graphsWorkflow,
	GRAPHS_WORKFLOW_ID,
	releaseHolds,
	retryWorkflow,
	RETRY_WORKFLOW_ID,
} from '../../harness/n8n/writeGraphs';
import { manualTrigger } from '../../harness/bench/workflows';
import { forwardingWorkflow, salesPollTrigger } from '../../harness/n8n/forwardingWorkflow';
import { until } from '../../harness/sandbox/push';
import { issuedFor } from '../../nodes/shared/transport';
import type { TokenEvent } from '../../sandbox/auth';

const WRONG_KEY = 'pe_wrong_key_for_the_credential_test_7d1c';
const SECRET = 'whsec_e2e_credential_test_5b8e2a91';

type Credential = { id: string; name: string; type: string; data: Record<string, string> };

/** The credential a user edits (partner key -> organiser key); the workflow reading with it. */
const EDITED = { id: 'PeE2eCredKeyEdit', name: 'Public Events edited' };
const WRITES = { id: 'PeE2eCredWrites1', name: 'Public Events writes' };
/** The credential of a published poll trigger whose key is replaced while it polls. */
const POLLED = { id: 'PeE2eCredPolled1', name: 'Public Events polled' };
const POLL_WORKFLOW = 'PeE2eWfPolledKey';
const READ_WORKFLOW = 'PeE2eWfKeyEdited';

const readWorkflow = () => ({
	id: READ_WORKFLOW,
	name: 'e2e: one event, with the edited credential',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{ id: 'start', position: [0, 0], ...manualTrigger },
		{
			id: 'read',
			name: 'Read',
			type: 'n8n-nodes-public-events.publicEvents',
			typeVersion: 1,
			position: [240, 0],
			parameters: { resource: 'event', operation: 'getMany', limit: 1 },
			credentials: { publicEventsApi: EDITED },
		},
	],
	connections: { Start: { main: [[{ node: 'Read', type: 'main', index: 0 }]] } },
});

describe('real n8n: the credential tests', () => {
	let sandbox: SandboxClient;
	let production: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let cookie: string;
	const answers: unknown[] = [];
	const credentials: Record<string, Credential> = {};
	/** The workflows saved for the cases below: their ids as the file gives them, and n8n's. */
	const ids = new Map<string, string>();
	/** The write graphs' events, one each: Retry On Fail, the loop, the branches, Execute Once. */
	const events = { retry: 0, loop: 0, branches: 0, once: 0 };

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
		// As n8n stores it after a run: the partner's token, where it came from, what it is for.
		const edited = api(EDITED.id, {});
		const token = await sandbox.token('partner');
		Object.assign(edited.data, {
			token,
			issuedBy: new URL(sandbox.sandbox.baseUrl).origin,
			issuedFor: issuedFor(edited.data, token),
		});
		await n8n.importCredentials([
			...all,
			{ ...edited, name: EDITED.name },
			api(WRITES.id, {}),
			{ ...api(POLLED.id, {}), name: POLLED.name },
		]);
		for (const name of Object.keys(events) as Array<keyof typeof events>)
			events[name] = (await sandbox.admin('POST', '/events', { places: 10 })).body.id;
		server = await n8n.start();
		cookie = await server.setupOwner(OWNER);
		// Saved through the editor's REST API (n8n 1.x picks new ids): no CLI start-up each.
		for (const made of [
			readWorkflow(),
			retryWorkflow(WRITES, events.retry),
			graphsWorkflow(WRITES, events, await sandbox.freePlaces(events.once, 3)),
			forwardingWorkflow(POLL_WORKFLOW, salesPollTrigger(POLLED), 'http://127.0.0.1:9/none'),
		])
			ids.set(
				made.id,
				((await server.rest(cookie, 'POST', '/workflows', made)) as { id: string }).id,
			);
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

	it(
		'the API key replaced in the dialog (partner -> organiser; n8n keeps the hidden token): the ' +
			"next run gets a token for the organiser's key and acts as the organiser",
		async () => {
			const keyId = (company: string) =>
				sandbox.app.store.apiKeys.find((k) => k.key === sandbox.keys[company])!.id;
			// What the dialog does: it reads the credential (secrets blanked) and saves it back.
			const shown = (await server.rest(
				cookie,
				'GET',
				`/credentials/${EDITED.id}?includeData=true`,
			)) as { data: Record<string, unknown> };
			await server.rest(cookie, 'PATCH', `/credentials/${EDITED.id}`, {
				name: EDITED.name,
				type: 'publicEventsApi',
				data: { ...shown.data, apiKey: sandbox.keys.organiser },
			});
			const seen: TokenEvent[] = [];
			const stop = sandbox.app.issuer.observe((event) => seen.push(event));
			const seq = sandbox.app.log.lastSeq;
			const run = await n8n.execute(ids.get(READ_WORKFLOW)!).finally(stop);
			expect(run.status).toBe('success');
			const organiser = sandbox.app.store.companies.find((c) => c.slug === 'organiser')!.id;
			expect(
				sandbox.app.log.since(seq).map((e) => `${e.route} ${e.status} ${e.companyId ?? '-'}`),
			).toEqual(['/token 200 -', `/event-points 200 ${organiser}`]);
			expect(seen.map((e) => ('kid' in e ? `${e.kind} ${e.kid}` : e.kind))).toEqual([
				`issued ${keyId('organiser')}`,
				`used ${keyId('organiser')}`,
			]);
		},
	);

	it(
		'a published poll trigger whose key is replaced in the dialog (n8n keeps polling with one ' +
			'context): the polls after the edit read as the organiser',
		async () => {
			const company = (slug: string) =>
				sandbox.app.store.companies.find((c) => c.slug === slug)!.id;
			const reads = (seq: number) =>
				sandbox.app.log
					.since(seq)
					.filter((e) => e.route === '/widget-orders' && e.status !== undefined)
					.map((e) => e.companyId);
			const published = sandbox.app.log.lastSeq;
			await server.activateWorkflow(cookie, ids.get(POLL_WORKFLOW)!);
			await until(async () => reads(published).length >= 2, 'two polls', 60_000, 500);
			expect(new Set(reads(published))).toEqual(new Set([company('partner')]));
			const shown = (await server.rest(
				cookie,
				'GET',
				`/credentials/${POLLED.id}?includeData=true`,
			)) as { data: Record<string, unknown> };
			await server.rest(cookie, 'PATCH', `/credentials/${POLLED.id}`, {
				name: POLLED.name,
				type: 'publicEventsApi',
				data: { ...shown.data, apiKey: sandbox.keys.organiser },
			});
			const edited = sandbox.app.log.lastSeq;
			await until(async () => reads(edited).length >= 2, 'two polls after the edit', 60_000, 500);
			await server.rest(cookie, 'POST', `/workflows/${ids.get(POLL_WORKFLOW)!}/deactivate`, {});
			expect(new Set(reads(edited))).toEqual(new Set([company('organiser')]));
		},
	);

	it(
		'Retry On Fail with Keep Holds, a later item refused: item 1 is held once, and the last ' +
			"try's error names its order as still held",
		async () => {
			const seq = sandbox.app.log.lastSeq;
			const run = await n8n.executeAllowingFailure(ids.get(RETRY_WORKFLOW_ID)!);
			expectRetriedOnce(run, sandbox, seq, events.retry);
			await releaseHolds(sandbox, events.retry);
		},
	);

	it(
		'Loop Over Items over copies of one item, two branches into one node, Execute Once with ' +
			'Retry On Fail, every write answer lost: each run of a node sends its write once and ' +
			"names its own order, never another run's",
		async () => {
			await sandbox.setQuirks({ loseWriteAnswersRate: 1, loseWriteAnswersSeed: 7 });
			const seq = sandbox.app.log.lastSeq;
			const run = await n8n
				.execute(ids.get(GRAPHS_WORKFLOW_ID)!)
				.finally(() => sandbox.setQuirks({}));
			expectEachRunItsOwn(run, sandbox, seq, events);
			for (const eventId of [events.loop, events.branches, events.once])
				await releaseHolds(sandbox, eventId);
		},
	);

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
