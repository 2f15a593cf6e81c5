/**
 * Invariant: the key you save is the key that is used. Over generated sequences of credential
 * edits (any field: Base URL, API key, environment, language), runs on several n8n processes
 * sharing the one stored credential (each its own copy of the package's modules, so its own token
 * cache), tokens expiring, and edits saved while a run is under way, as the service sees it:
 * 1. a run started after an edit acts only with a token issued after that edit, for the key as
 *    saved, at the address as saved: no request acts with the previous key's identity, and no
 *    token reaches an address that did not issue it;
 * 2. a run under way when its credential's identity changed sends no token request with the
 *    previous fields: once it needs a token it stops, naming the edit;
 * 3. the stored credential always holds the fields as last saved, whether n8n persists a renewed
 *    token by merging it (2.x) or by writing the run's copy back (1.x).
 * Both sandboxes are loopback origins of the same seed (the same keys work at both).
 */
import fc from 'fast-check';
import * as workflow from 'n8n-workflow';
import type { INodeType } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../harness/engine';
import { byId, CREDENTIAL, runPublicEvents } from '../../harness/nodes/publicEvents';
import { checkProperty } from '../../harness/props/property';
import { SandboxClient } from '../../harness/sandbox/client';
import { HOUR } from '../../harness/time';
import type { TokenEvent } from '../../sandbox/auth';

type Where = 'A' | 'A/api/v2' | 'B' | 'B/';
interface Fields {
	baseUrl: Where;
	apiKey: 'partner' | 'organiser';
	environment: 'staging' | 'production';
	language: '' | 'en' | 'de';
}
type Edit = { [F in keyof Fields]: { field: F; value: Fields[F] } }[keyof Fields];
type Step =
	| { kind: 'run'; process: number }
	| { kind: 'edit'; edit: Edit }
	| { kind: 'expire' }
	| { kind: 'editDuringRun'; process: number; edit: Edit };
interface Case {
	persist: 'merge' | 'whole';
	steps: Step[];
}

const PROCESSES = 3;
const START: Fields = { baseUrl: 'A', apiKey: 'partner', environment: 'staging', language: '' };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
	fc.record({
		field: fc.constant('baseUrl' as const),
		value: fc.constantFrom<Where>('A', 'A/api/v2', 'B', 'B/'),
	}),
	fc.record({
		field: fc.constant('apiKey' as const),
		value: fc.constantFrom('partner' as const, 'organiser' as const),
	}),
	fc.record({
		field: fc.constant('environment' as const),
		value: fc.constantFrom('staging' as const, 'production' as const),
	}),
	fc.record({
		field: fc.constant('language' as const),
		value: fc.constantFrom('' as const, 'en' as const, 'de' as const),
	}),
);
const processArb = fc.integer({ min: 0, max: PROCESSES - 1 });
const caseArb: fc.Arbitrary<Case> = fc.record({
	persist: fc.constantFrom('merge' as const, 'whole' as const),
	steps: fc.array(
		fc.oneof(
			{
				weight: 4,
				arbitrary: fc.record({ kind: fc.constant('run' as const), process: processArb }),
			},
			{ weight: 3, arbitrary: fc.record({ kind: fc.constant('edit' as const), edit: editArb }) },
			{ weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const) }) },
			{
				weight: 1,
				arbitrary: fc.record({
					kind: fc.constant('editDuringRun' as const),
					process: processArb,
					edit: editArb,
				}),
			},
		),
		{ minLength: 2, maxLength: 10 },
	),
});

/**
 * Kept: the outside round's reproduction (the partner's key replaced by the organiser's, the next
 * run on another process), and counterexamples the generator found before tokens were bound to
 * what they were issued for: the language edited, the next run sent the token issued before; the
 * Base URL edited under a run, which then failed with "the service refused the token even after
 * requesting a new one: check the API key" instead of naming the edit; a key edited under a run on
 * n8n 1.x's persistence.
 */
const KEPT: Case[] = [
	{
		persist: 'merge',
		steps: [
			{ kind: 'run', process: 0 },
			{ kind: 'edit', edit: { field: 'apiKey', value: 'organiser' } },
			{ kind: 'run', process: 1 },
		],
	},
	{
		persist: 'merge',
		steps: [
			{ kind: 'run', process: 0 },
			{ kind: 'edit', edit: { field: 'language', value: 'en' } },
			{ kind: 'run', process: 0 },
		],
	},
	{
		persist: 'merge',
		steps: [
			{ kind: 'editDuringRun', process: 0, edit: { field: 'baseUrl', value: 'B' } },
			{ kind: 'run', process: 0 },
			{ kind: 'run', process: 0 },
		],
	},
	{
		persist: 'whole',
		steps: [
			{ kind: 'run', process: 0 },
			{ kind: 'expire' },
			{ kind: 'editDuringRun', process: 1, edit: { field: 'apiKey', value: 'organiser' } },
			{ kind: 'run', process: 2 },
		],
	},
];

/** One n8n process: the package's modules loaded afresh (its own token cache), n8n's shared. */
function processNode(): INodeType {
	let node: INodeType | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => workflow);
		const { PublicEvents } = jest.requireActual<
			typeof import('../../nodes/PublicEvents/PublicEvents.node')
		>('../../nodes/PublicEvents/PublicEvents.node');
		node = new PublicEvents();
	});
	return node!;
}

/** Who a credential speaks as, by the test's own reading of the fields (not the package's). */
const identity = (f: Fields) =>
	JSON.stringify([f.baseUrl.charAt(0), f.apiKey, f.environment, f.language]);

interface Seen {
	at: 'A' | 'B';
	event: TokenEvent;
}

let cases = 0;
let identityEdits = 0;
let staleStops = 0;

async function run(c: Case): Promise<void> {
	const sandboxes = {
		A: await SandboxClient.start({ events: 2, placesPerEvent: 1 }),
		B: await SandboxClient.start({ events: 2, placesPerEvent: 1 }),
	};
	const seen: Seen[] = [];
	let saved = { ...START };
	/** The identity saved when each token was issued: who it may act for. */
	const issuedAs = new Map<string, string>();
	const stops = (['A', 'B'] as const).map((at) =>
		sandboxes[at].app.issuer.observe((event) => {
			seen.push({ at, event });
			if (event.kind === 'issued') issuedAs.set(event.jti, identity(saved));
		}),
	);
	try {
		const processes = Array.from({ length: PROCESSES }, processNode);
		const store = new CredentialStore([new PublicEventsApi()], c.persist);
		const address = (where: Where) =>
			sandboxes[where.charAt(0) as 'A' | 'B'].sandbox.baseUrl +
			(where.length > 1 ? where.slice(1) : '');
		const stored = (f: Fields) => ({
			baseUrl: address(f.baseUrl),
			apiKey: sandboxes.A.keys[f.apiKey],
			environment: f.environment,
			language: f.language,
		});
		const keyId = (company: Fields['apiKey']) =>
			sandboxes.A.app.store.apiKeys.find((k) => k.key === sandboxes.A.keys[company])!.id;
		const { id } = store.add(CREDENTIAL, stored(saved));
		/** Saves `edit`; says whether it changed who the credential speaks as. */
		const save = (edit: Edit): boolean => {
			const next = { ...saved, [edit.field]: edit.value } as Fields;
			const changed = identity(next) !== identity(saved);
			if (changed) identityEdits++;
			saved = next;
			store.edit(id, stored(saved));
			return changed;
		};
		const context = (step: Step, index: number) => ({ case: c, step: index, kind: step.kind });
		const expectSaved = (step: Step, index: number) => {
			const data = store.data(id);
			const now = stored(saved);
			expect({ ...context(step, index), stored: [data.baseUrl, data.apiKey] }).toEqual({
				...context(step, index),
				stored: [now.baseUrl, now.apiKey],
			});
			expect([data.environment, data.language]).toEqual([now.environment, now.language]);
		};

		for (const [index, step] of c.steps.entries()) {
			const from = seen.length;
			if (step.kind === 'edit') save(step.edit);
			else if (step.kind === 'expire') {
				for (const sandbox of [sandboxes.A, sandboxes.B]) {
					await sandbox.advanceClock(25 * HOUR);
					sandbox.forgetTokens();
				}
			} else if (step.kind === 'run') {
				const { error } = await runPublicEvents(
					store,
					{ resource: 'reference', operation: 'getManyCountries', returnAll: false, limit: 1 },
					{ nodeType: processes[step.process] },
				);
				expect({ ...context(step, index), error: error?.message }).toEqual(context(step, index));
				// 1. Every token the service saw in this run: the saved key's, at the saved address,
				// issued while the credential was saved as it is now (a token from before an edit of
				// who it speaks as is never sent again, unless the edit was undone).
				const at = saved.baseUrl.charAt(0);
				for (const { at: where, event } of seen.slice(from)) {
					const got =
						'kid' in event
							? { kind: event.kind, at: where, kid: event.kid, as: issuedAs.get(event.jti) }
							: { kind: event.kind, at: where };
					expect({ ...context(step, index), got }).toEqual({
						...context(step, index),
						got: { kind: got.kind, at, kid: keyId(saved.apiKey), as: identity(saved) },
					});
				}
			} else {
				await editDuringRun(step, index);
			}
			expectSaved(step, index);
		}

		/** A run of Event > Get over two events; while the first is answered, `step.edit` is saved. */
		async function editDuringRun(step: Extract<Step, { kind: 'editDuringRun' }>, index: number) {
			const sandbox = sandboxes[saved.baseUrl.charAt(0) as 'A' | 'B'];
			const [first, second] = await sandbox.getAll('/event-points');
			// The second read is refused as with an expired token: the run must renew.
			await sandbox.admin('POST', '/faults', {
				kind: 'status',
				status: 401,
				method: 'GET',
				path: `/event-points/${second.id}`,
			});
			let editedAt: number | undefined;
			let changed = false;
			const stop = sandbox.app.issuer.observe((event) => {
				if (event.kind !== 'used' || editedAt !== undefined) return;
				editedAt = seen.length + 1;
				changed = save(step.edit);
			});
			const result = await runPublicEvents(
				store,
				{ resource: 'event', operation: 'get', eventId: byId('={{ $json.event }}') },
				{
					nodeType: processes[step.process],
					inputItems: [{ event: first.id }, { event: second.id }],
				},
			).finally(async () => {
				stop();
				await sandbox.admin('DELETE', '/faults');
			});
			const after = seen.slice(editedAt ?? seen.length);
			if (changed) {
				// 2. Stopped, naming the edit, with no token request after it.
				staleStops++;
				expect({ ...context(step, index), error: result.error?.message }).toEqual({
					...context(step, index),
					error: expect.stringMatching(/credential was edited while this run was going on/),
				});
				expect({ ...context(step, index), after: after.map((s) => s.event.kind) }).toEqual({
					...context(step, index),
					after: [],
				});
			} else {
				expect({ ...context(step, index), error: result.error?.message }).toEqual(
					context(step, index),
				);
			}
		}
		// No token ever reached the address that did not issue it.
		expect(seen.filter((s) => s.event.kind === 'foreign')).toEqual([]);
		cases++;
	} finally {
		for (const stop of stops) stop();
		await sandboxes.A.stop();
		await sandboxes.B.stop();
	}
}

describe('credential edits: the key you save is the key that is used', () => {
	it.each(KEPT.map((c) => [JSON.stringify(c), c] as const))('kept: %s', async (_, c) => {
		await run(c);
	});

	it('property: no request after an edit acts with the previous identity', async () => {
		await checkProperty('credential edits', caseArb, run, 50);
		expect(identityEdits).toBeGreaterThan(0);
		process.stdout.write(
			`credential edits: ${cases} cases, ${identityEdits} identity edits, ` +
				`${staleStops} runs stopped by an edit under them\n`,
		);
	}, 600_000);
});
