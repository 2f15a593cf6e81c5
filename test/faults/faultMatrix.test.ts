import {
	FAULTS,
	isNa,
	LATENCY_MS,
	MATRIX,
	RETRY_OPTIONS,
	TIMEOUT_S,
	type Expected,
	type Fault,
} from '../../harness/faults/matrix';
import type { Observation, Row } from '../../harness/faults/observe';
import {
	renderSection,
	writeReliabilityReport,
	type CellResult,
} from '../../harness/faults/report';
import { nodeRows } from '../../harness/faults/rowsNode';
import { FETCH_RETRY } from '../../nodes/PublicEventsTrigger/webhook/fullOrder';
import { triggerRows } from '../../harness/faults/rowsTriggers';

/**
 * The fault matrix (issue 8): every operation class against every fault, each in a sandbox of
 * its own, through n8n-core over real HTTP. The cells run at once first (most of their time is
 * spent in back-off waits), then each is judged against MATRIX in a test of its own. With
 * RELIABILITY_REPORT=1 the observed table goes into docs/reliability.md between its reliability
 * markers.
 */

const ROWS: Row[] = [...nodeRows, ...triggerRows];
const AT_ONCE = 6;

interface Cell {
	row: Row;
	fault: Fault;
	expected: Expected;
}
const cells: Cell[] = ROWS.flatMap((row) =>
	FAULTS.map((fault) => ({ row, fault, expected: MATRIX[row.id][fault.id] })),
);
const key = (cell: { row: Row; fault: Fault }) => `${cell.row.id} ${cell.fault.id}`;
const observed = new Map<string, Observation | Error>();
const passed = new Set<string>();
const durations = new Map<string, number>();
let started = 0;

async function runAll(list: Cell[], atOnce: number) {
	let next = 0;
	const worker = async () => {
		for (let i = next++; i < list.length; i = next++) {
			const cell = list[i];
			const began = Date.now();
			observed.set(key(cell), await cell.row.run(cell.fault).catch((error: Error) => error));
			durations.set(key(cell), Date.now() - began);
		}
	};
	await Promise.all(Array.from({ length: atOnce }, worker));
}

beforeAll(async () => {
	started = Date.now();
	const live = cells.filter((cell) => !isNa(cell.expected));
	await Promise.all([
		runAll(
			live.filter((c) => !c.row.exclusive),
			AT_ONCE,
		),
		runAll(
			live.filter((c) => c.row.exclusive),
			1,
		),
	]);
}, 180_000);

afterAll(() => {
	const slowest = [...durations]
		.sort((a, b) => b[1] - a[1])
		.slice(0, 5)
		.map(([cell, ms]) => `${cell} ${(ms / 1000).toFixed(1)} s`);
	console.log(
		`fault matrix: ${cells.length} cells observed in ` +
			`${((Date.now() - started) / 1000).toFixed(1)} s; slowest: ${slowest.join(', ')}`,
	);
	if (process.env.RELIABILITY_REPORT !== '1') return;
	const results = cells.map(result);
	const rows = ROWS.map(({ id, label, title }) => ({ id, label, title }));
	const faults = FAULTS.map(({ id, title }) => ({ id, label: title }));
	const settings =
		`Node settings in every cell: Max Retries ${RETRY_OPTIONS.maxRetries}, ` +
		`Max Retry Wait ${RETRY_OPTIONS.maxRetryWait} s, Max Wait to Confirm a Lost Answer ` +
		`${RETRY_OPTIONS.confirmWaitSeconds} s; Timeout ${TIMEOUT_S} ` +
		`s in the timeout row. Each cell runs in a sandbox of its own; "sent" ` +
		`and "applied" are the sandbox's request log and its orders.`;
	console.log(
		`reliability table written to ` +
			`${writeReliabilityReport(renderSection(results, rows, faults, [settings]))}`,
	);
});

const sorted = (ids: string[]) => [...ids].sort();
const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

/** Asserts one cell: the invariants every cell keeps, then its expected outcome. */
function judge({ fault, expected }: Cell, obs: Observation) {
	// The fault was met: the cell tested something.
	expect(obs.attempts.length).toBeGreaterThan(0);
	expect(obs.attempts[0].fault).toBeDefined();
	// No tight loop: every retry after a fault waited at least the floor (Retry-After, back-off).
	// A 'later' cell's first delivery makes Fetch Full Order's tries; the sender's retry (its clock
	// moved) comes after them, not the node's.
	const own =
		expected === 'later' ? obs.attempts.slice(0, FETCH_RETRY.maxRetries + 1) : obs.attempts;
	own.slice(1).forEach((attempt, k) => {
		if (fault.minGap && obs.attempts[k].fault)
			expect(attempt.at - obs.attempts[k].at).toBeGreaterThanOrEqual(fault.minGap(k));
	});
	// Nothing twice: no record handed over twice, no write applied (or received by the API) twice.
	expect(duplicates(obs.emitted)).toEqual([]);
	if (obs.write) expect(obs.write.reached).toBeLessThanOrEqual(1);
	if (obs.write) expect(obs.write.applied).toBeLessThanOrEqual(1);
	if (obs.webhook?.badBody)
		expect(obs.webhook.badBody).toEqual({ status: expect.any(Number), started: false });
	if (obs.webhook?.badBody) expect([400, 422]).toContain(obs.webhook.badBody.status);

	switch (expected) {
		case 'recovered':
			expect(obs.error).toBeUndefined();
			expect(obs.ordered ? obs.emitted : sorted(obs.emitted)).toEqual(
				obs.ordered ? obs.truth : sorted(obs.truth),
			);
			if (obs.write) expect(obs.write.applied).toBe(1);
			if (obs.webhook)
				expect(obs.webhook).toMatchObject({
					executions: 1,
					fetched: obs.truth[0],
					unavailable: null,
					delivery: 'delivered',
				});
			// The sender's retries come at once here (its clock moved, not waited): a copy still
			// waiting for the first delivery's run may time out too before it is answered duplicate.
			if (fault.id === 'timeout' && obs.webhook)
				expect(obs.webhook.deliveryAttempts).toBeGreaterThanOrEqual(2);
			// A 401: n8n asked for a new token and sent the request again, once.
			if (fault.id === '401') expect([obs.refreshed, obs.attempts.length]).toEqual([true, 2]);
			// The slow answer was cut short by the Timeout and asked again, not waited out.
			if (fault.id === 'timeout' && !obs.webhook)
				expect(obs.attempts[1].at - obs.attempts[0].at).toBeLessThan(LATENCY_MS);
			break;
		case 'error':
			expect(obs.error).toMatchObject({
				name: 'NodeApiError',
				message: expect.stringMatching(fault.says),
			});
			if (obs.stateHeld === undefined) expect(obs.emitted).toEqual([]);
			else {
				// The failed poll saved nothing; the next one emitted everything it missed.
				expect(obs.stateHeld).toBe(true);
				expect(sorted(obs.emitted)).toEqual(sorted(obs.truth));
			}
			break;
		case 'applied':
			expect(obs.error).toBeUndefined();
			expect(obs.attempts).toHaveLength(1);
			expect(obs.write).toMatchObject({
				applied: 1,
				writeCheck: { outcome: 'applied', cause: expect.stringMatching(/\S/) },
			});
			expect(obs.write!.readBacks).toBeGreaterThan(0);
			expect(obs.emitted).toEqual(obs.truth);
			break;
		case 'notApplied':
			expect(obs.attempts).toHaveLength(1);
			expect(obs.write?.applied).toBe(0);
			expect(obs.error?.message).toMatch(/not applied/i);
			expect(obs.error?.message).toMatch(/safe to run (it )?again/i);
			expect(obs.write!.readBacks).toBeGreaterThan(0);
			expect(obs.emitted).toEqual([]);
			break;
		case 'notYet':
			expect(obs.attempts).toHaveLength(1);
			expect(obs.error?.message).toMatch(/not applied when the node checked/);
			expect(obs.error?.message).toMatch(
				/may still be working on it and apply it late, so it was not sent again\. Check /,
			);
			expect(obs.error?.message).not.toMatch(/safe to run/i);
			expect(obs.write!.readBacks).toBeGreaterThan(0);
			// Only the slow request reaches the API, and it applies after the read-back.
			expect(obs.write?.applied).toBe(fault.id === 'timeout' ? 1 : 0);
			expect(obs.emitted).toEqual([]);
			break;
		case 'named':
			expect(obs.attempts).toHaveLength(1);
			expect(obs.error?.message).toMatch(
				/^Uncertain: .* may or may not have been applied: .*live orders of your account hold /,
			);
			expect(obs.error?.message).toContain('Nothing the service answered ties it to this request');
			expect(obs.error?.message).not.toMatch(/safe to run/i);
			expect(obs.write?.applied).toBe(1);
			expect(obs.write!.readBacks).toBeGreaterThan(0);
			expect(obs.emitted).toEqual([]);
			break;
		case 'later':
			// Answered 503 while the order could not be read; the sender's next attempt ran it, once.
			expect(obs.webhook).toMatchObject({
				executions: 1,
				fetched: obs.truth[0],
				unavailable: null,
				delivery: 'delivered',
			});
			expect(obs.webhook!.answers[0]).toBe(503);
			expect(obs.webhook!.answers.at(-1)).toBe(200);
			expect(obs.emitted).toEqual(obs.truth);
			break;
		default:
			throw new Error(`n/a cells are not judged: ${expected.na}`);
	}
}

/**
 * The cell as the report shows it: the observed outcome in a few words, and the sandbox's counts.
 */
function result(cell: Cell): CellResult {
	const base = {
		row: cell.row.id,
		fault: cell.fault.id,
		passed: passed.has(key(cell)),
		lost: 0,
		duplicated: 0,
	};
	if (isNa(cell.expected)) return { ...base, na: cell.expected.na, observed: 'n/a', passed: true };
	const obs = observed.get(key(cell));
	if (!obs || obs instanceof Error)
		return { ...base, observed: `not observed: ${obs?.message.slice(0, 80) ?? 'did not run'}` };
	const duplicated =
		duplicates(obs.emitted).length +
		Math.max(0, (obs.write?.applied ?? 0) - 1) +
		Math.max(0, (obs.write?.reached ?? 0) - 1);
	const failedItem = obs.error !== undefined && obs.stateHeld === undefined;
	const lost = failedItem ? 0 : obs.truth.filter((id) => !obs.emitted.includes(id)).length;
	return { ...base, observed: summary(cell.fault, obs), lost, duplicated };
}

function summary(fault: Fault, obs: Observation): string {
	const tries = obs.attempts.length === 1 ? '1 try' : `${obs.attempts.length} tries`;
	const dup = duplicates(obs.emitted).length;
	const clear =
		obs.error && obs.error.name === 'NodeApiError' && fault.says.test(obs.error.message);
	const error = obs.error && (clear ? 'clear error' : `error "${obs.error.message.slice(0, 70)}"`);
	if (obs.write) {
		const { applied, reached, writeCheck } = obs.write;
		if (writeCheck)
			return (
				`read back: ${String(writeCheck.outcome)}, sent ` +
				`${obs.attempts.length}×, applied ${applied}×`
			);
		if (obs.error && /Nothing the service answered ties it/.test(obs.error.message))
			return (
				`read back: the order named, not taken (nothing ties it to the request), sent ` +
				`${obs.attempts.length}×, applied ${applied}×`
			);
		if (obs.error && /not applied when the node checked/.test(obs.error.message))
			return (
				`read back: not yet applied ("check first"), sent ${obs.attempts.length}` +
				`×, applied ${applied ? `late ${applied}×` : '0×'}`
			);
		if (obs.error && /not applied/i.test(obs.error.message))
			return `read back: not applied, sent ${obs.attempts.length}×, applied ${applied}×`;
		const refused = obs.attempts.filter((e) => e.fault === 'status');
		const before = refused.length
			? `refused ${refused.length}× (` +
				`${[...new Set(refused.map((e) => e.status))].join(', ')}), then `
			: '';
		return `${error ? `${error}, ` : before}reached the API ${reached}×, applied ${applied}×`;
	}
	if (obs.webhook) {
		const w = obs.webhook;
		const why =
			w.unavailable && fault.says.test(w.unavailable)
				? ' (says why)'
				: `: "${String(w.unavailable).slice(0, 50)}"`;
		const order = w.fetched ? 'order read' : `order unavailable${why}`;
		const answers = w.answers.map((status) => status || 'no answer').join(', ');
		const repeat =
			w.deliveryAttempts === 1
				? ''
				: w.answers[0] === 503
					? `; answered ${answers}`
					: `; delivered ${w.deliveryAttempts}×, repeat ignored`;
		const bad = w.badBody
			? `; bad body: ${w.badBody.status}, ${w.badBody.started ? 'STARTED A RUN' : 'no run'}`
			: '';
		return `${w.executions} execution${w.executions === 1 ? '' : 's'}, ${order}${repeat}${bad}`;
	}
	if (obs.stateHeld !== undefined && obs.error) {
		return (
			`${error}, state ${obs.stateHeld ? 'held' : 'MOVED'}; next ` +
			`poll: ${obs.emitted.length} of ${obs.truth.length}, ${dup} dup`
		);
	}
	if (error) return error;
	const missing = obs.truth.filter((id) => !obs.emitted.includes(id)).length;
	return `recovered (${tries}), ${missing ? `${missing} lost, ` : ''}${dup} dup`;
}

describe.each(ROWS.map((row) => [row.label, row] as const))('%s', (_, row) => {
	const live = cells.filter((cell) => cell.row === row && !isNa(cell.expected));
	it.each(live.map((cell) => [cell.fault.title, cell.expected as string, cell] as const))(
		'%s: %s',
		(__, ___, cell) => {
			const obs = observed.get(key(cell));
			if (obs instanceof Error) throw obs;
			expect(obs).toBeDefined();
			judge(cell, obs!);
			passed.add(key(cell));
		},
	);
});

it('every cell left out says why', () => {
	const left = cells.filter((cell) => isNa(cell.expected));
	expect(left.length).toBeGreaterThan(0);
	for (const cell of left)
		expect([key(cell), (cell.expected as { na: string }).na]).toEqual([
			key(cell),
			expect.stringMatching(/\w{3,}.*\w{3,}/),
		]);
});
