/**
 * Executions running at once in one n8n process (a queue-mode worker runs several) share one
 * token renewal: n8n has no lock around preAuthentication, so without the transport's
 * process-wide renewal each execution that finds no token, or an expired one, fetches its own.
 * Here the runs share one credential store, as a worker's executions share n8n's database.
 */
import { credentialFor, runPublicEvents } from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { HOUR } from '../../../../harness/time';

const RUNS = 10;
let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 6, placesPerEvent: 2 });
});
afterAll(() => sb.stop());

const tokens = async () => (await sb.counters())['POST /token'] ?? 0;
const runAll = (store: ReturnType<typeof credentialFor>['store']) =>
	Promise.all(
		Array.from({ length: RUNS }, () =>
			runPublicEvents(store, { resource: 'event', operation: 'getMany', returnAll: true }),
		),
	);

it(
	`${RUNS} executions at once with no token ` + `fetch one; after it expired, they renew it once`,
	async () => {
		const { store, id } = credentialFor(sb);
		const before = await tokens();

		const first = await runAll(store);
		for (const run of first) {
			expect(run.error).toBeUndefined();
			expect(run.items).toHaveLength(6);
		}
		expect((await tokens()) - before).toBe(1);
		const token = store.data(id).token;
		expect(token).toEqual(expect.stringMatching(/\S{20}/));

		await sb.advanceClock(25 * HOUR);
		const second = await runAll(store);
		for (const run of second) {
			expect(run.error).toBeUndefined();
			expect(run.items).toHaveLength(6);
		}
		expect((await tokens()) - before).toBe(2);
		expect(store.data(id).token).not.toBe(token);
	},
);

it('a later execution of the same process still reads the stored token (no fetch)', async () => {
	const { store } = credentialFor(sb);
	await runPublicEvents(store, { resource: 'event', operation: 'getMany', returnAll: true });
	const before = await tokens();
	const runs = await runAll(store);
	expect(runs.every((run) => run.error === undefined)).toBe(true);
	expect((await tokens()) - before).toBe(0);
});
