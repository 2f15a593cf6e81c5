import { LoggerProxy } from 'n8n-workflow';

import { ensureEngineServices } from '../../harness/engine';
import { logPosition, logSince } from '../../harness/engine/runtime';
import { credentialFor, runPublicEvents } from '../../harness/nodes/publicEvents';
import { subscribe } from '../../harness/sandbox/push';
import { SandboxClient } from '../../harness/sandbox/client';
import {
	capturedText,
	expectNoSecrets,
	findSecrets,
	runningSecrets,
	secretsOf,
} from '../../harness/secrets';
import { post, Triggers } from '../../harness/nodes/webhookTrigger';

/**
 * The leak scan itself: which secrets it knows, the encodings it finds, and that the engine
 * harness runs it on every run (a run whose items carry a token fails, naming the token only).
 */
let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 3, placesPerEvent: 4 });
});
afterAll(() => sb.stop());

const messageOf = (fn: () => void) => {
	try {
		fn();
	} catch (error) {
		return (error as Error).message;
	}
	throw new Error('expected a throw');
};

describe('secretsOf', () => {
	test(
		'knows each API key, every token issued, push secrets (also ' +
			'after unsubscribing) and extras',
		async () => {
			const token = await sb.token('partner');
			await subscribe(sb, { url: 'http://127.0.0.1:9/hook', secret: 'whsec_scan_test_0042' });
			const secrets = secretsOf(sb, { 'webhook credential': 'made-up-secret-77' });
			expect(secrets['API key of partner']).toBe(sb.keys.partner);
			expect(secrets['API key of organiser']).toBe(sb.keys.organiser);
			expect(Object.entries(secrets).find(([, value]) => value === token)?.[0]).toMatch(
				/^token #\d+ \(partner\)$/,
			);
			expect(Object.values(secrets)).toContain('whsec_scan_test_0042');
			expect(secrets['webhook credential']).toBe('made-up-secret-77');

			await sb.admin('DELETE', '/webhooks');
			expect(Object.values(secretsOf(sb))).toContain('whsec_scan_test_0042');
			expect(Object.values(runningSecrets())).toContain(sb.keys.partner);
		},
	);
});

describe('expectNoSecrets', () => {
	const key = () => sb.keys.partner;
	const secrets = () => ({ 'API key of partner': key(), short: 'abc1234' });

	test('passes clean text, and ignores secrets shorter than 8 characters', () => {
		expect(() => expectNoSecrets('nothing to see; abc1234', secrets(), 'clean text')).not.toThrow();
	});

	test('finds a secret as is, naming it and where, never showing it', () => {
		const message = messageOf(() => expectNoSecrets(`{"apiKey":"${key()}"}`, secrets(), 'an item'));
		expect(message).toBe('Secret leak in an item: API key of partner');
		expect(message).not.toContain(key());
	});

	test(
		'finds it base64-encoded at each byte alignment (as in Basic ' + 'user:key), and base64url',
		() => {
			for (const prefix of ['', 'u:', 'us:', 'use:']) {
				const basic = `Basic ${Buffer.from(`${prefix}${key()}`).toString('base64')}`;
				expect(findSecrets(basic, secrets())).toEqual(['API key of partner (base64)']);
			}
			expect(findSecrets(Buffer.from(`~~>${key()}`).toString('base64url'), secrets())).toEqual([
				'API key of partner (base64)',
			]);
		},
	);

	test('finds it URL-encoded, form-encoded and JSON-escaped', () => {
		const odd = { odd: 'p@ss "word"/+ 1' };
		expect(findSecrets(`https://x.test/?k=${encodeURIComponent(odd.odd)}`, odd)).toEqual([
			'odd (URL-encoded)',
		]);
		expect(findSecrets(`k=${encodeURIComponent(odd.odd).replace(/%20/g, '+')}`, odd)).toEqual([
			'odd (form-encoded)',
		]);
		expect(findSecrets(JSON.stringify({ v: odd.odd }), odd)).toEqual(['odd (JSON-escaped)']);
	});

	test('capturedText reads what JSON.stringify skips: error message, stack, cause, Buffers', () => {
		const error = new Error('outer', { cause: new Error(`inner ${key()}`) });
		expect(findSecrets(JSON.stringify(error), secrets())).toEqual([]);
		expect(findSecrets(capturedText({ error }), secrets())).toEqual(['API key of partner']);
		expect(findSecrets(capturedText({ raw: Buffer.from(key()) }), secrets())).toEqual([
			'API key of partner',
		]);
	});
});

describe('the engine harness scans every run', () => {
	test(
		'a run whose input item carries the token fails, naming the ' + 'token and not showing it',
		async () => {
			const { store } = credentialFor(sb);
			const token = await sb.token('partner');
			const run = runPublicEvents(
				store,
				{ resource: 'reference', operation: 'getManyCountries', returnAll: false, limit: 1 },
				{ inputItems: [{ note: `Bearer ${token}` }] },
			);
			const error = await run.then(
				() => undefined,
				(e: Error) => e,
			);
			expect(error?.message).toMatch(
				/^Secret leak in the run of "Engine harness" or what n8n logged: token #\d+ \(partner\)$/,
			);
			expect(error?.message).not.toContain(token);
		},
	);

	test('an expression that puts the key in a parameter fails the run as well', async () => {
		const { store } = credentialFor(sb);
		const run = runPublicEvents(
			store,
			{
				resource: 'event',
				operation: 'get',
				eventId: { __rl: true, mode: 'id', value: '={{ $json.k }}' },
			},
			{ inputItems: [{ k: Buffer.from(sb.keys.partner).toString('base64') }] },
		);
		await expect(run).rejects.toThrow(/^Secret leak in .*API key of partner \(base64\)/);
	});

	test('a clean run passes the scan', async () => {
		const { store } = credentialFor(sb);
		const result = await runPublicEvents(store, {
			resource: 'reference',
			operation: 'getManyCountries',
			returnAll: false,
			limit: 1,
		});
		expect(result.items).toHaveLength(1);
	});

	test(
		"a failing run's lines from n8n-core (its ErrorReporter's " +
			'error line too) are among those scanned',
		async () => {
			const { store } = credentialFor(sb);
			const start = logPosition();
			const { error } = await runPublicEvents(store, {
				resource: 'event',
				operation: 'get',
				eventId: { __rl: true, mode: 'id', value: '999999' },
			});
			expect(error?.message).toMatch(/^Event 999999 was not found/);
			const lines = logSince(start);
			expect(lines).toContain('debug: Workflow execution started\n{"workflowId":"engine-harness"}');
			expect(lines.some((line) => line.startsWith(`error: ${error!.message}`))).toBe(true);
		},
	);

	test(
		'a webhook answer carrying the key fails the test at the next ' +
			'read of the trigger, and at close',
		async () => {
			const trigger = await new Triggers(() => sb).start({
				events: ['sale'],
				authentication: 'none',
			});
			// The node echoes an unrecognised type name back in its "ignored" answer: here, the key.
			const answer = await post(trigger.url, JSON.stringify({ type: sb.keys.partner }));
			expect(answer.status).toBe(200);
			expect(() => trigger.calls).toThrow(
				new RegExp(
					'^Secret leak in webhook call 1: API key of partner, publicEv' +
						'entsApi.apiKey of credential 2$',
				),
			);
			await expect(trigger.close()).rejects.toThrow(/^Secret leak in webhook call 1/);
		},
	);

	test("n8n's log lines are captured for the scan, whatever the log level", () => {
		ensureEngineServices();
		const start = logPosition();
		LoggerProxy.warn('about to leak', { header: `Bearer ${sb.keys.organiser}` });
		const lines = logSince(start);
		expect(lines).toHaveLength(1);
		expect(findSecrets(lines.join('\n'), secretsOf(sb))).toEqual(['API key of organiser']);
	});
});
