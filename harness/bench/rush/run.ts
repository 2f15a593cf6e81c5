import type { ScenarioReport } from '../../../sandbox/scenario';
import { MINUTE } from '../../time';
import { rush, type Answer, type Buyer, type BuyerModel } from './buyers';
import type { RushCluster } from './cluster';
import { executionsSince, holdAttempts, lastExecutionId, settled } from './executions';
import type { ShopBuild } from './shop';

export interface RushSettings {
	schedule: Buyer[];
	/** The time the buyers arrive within (the schedule's spread). */
	spreadMs: number;
	/** Places of each build's event. */
	capacity: number;
	/** The account's reserved-tickets limit. */
	reservedPerAccount: number;
	/** How the buyers wait, and try again after an error. */
	buyer: BuyerModel;
}

export interface BuildRun {
	build: ShopBuild;
	eventId: number;
	answers: Answer[];
	report: ScenarioReport;
	/** 409s and 422s Hold Best Available absorbed (its `holdAttempts`), for the package's build. */
	absorbed?: { conflicts: number; limitWaits: number; runsRead: number };
	/** From the first buyer's arrival to the last answer. */
	seconds: number;
	/** The time the buyers arrived within. */
	spreadMs: number;
	/** Per execution: from the webhook processor's enqueueing to a worker's start. */
	queuedMs: number[];
	/** Per execution: the run on the worker. */
	runMs: number[];
}

const HOLD_NODE = 'holdBestAvailable';

/**
 * One build's rush on a fresh event of `capacity` places, in its own sandbox scenario; the report
 * is read once every buyer has its final answer (or gave up after its last try). Holds a run
 * left behind are then ended by the sandbox clock, so the next build starts with the account's
 * whole limit.
 */
export async function runBuild(
	rc: RushCluster,
	build: ShopBuild,
	s: RushSettings,
): Promise<BuildRun> {
	const { sandbox } = rc.cluster;
	await sandbox.admin('PUT', '/config', { limits: { reservedPerAccount: s.reservedPerAccount } });
	const event = await sandbox.admin('POST', '/events', {
		places: s.capacity,
		name: `Rush (${build.label})`,
	});
	if (event.status !== 201) throw new Error(`new event: ${event.status} ${event.text}`);
	const lastBefore = await lastExecutionId(rc, build);
	await sandbox.startScenario(build.label);
	const started = performance.now();
	const answers = await rush(s.schedule, event.body.id, rc.urls(build), s.buyer, build.headers);
	const seconds = (performance.now() - started) / 1000;
	const report = await sandbox.scenarioReport();
	await settled(rc, build);
	const uses = build.workflow.nodes.some(
		(n) => (n.parameters as { operation?: string }).operation === HOLD_NODE,
	);
	const ran = await executionsSince(rc, build, lastBefore);
	const absorbed = uses ? await holdAttempts(rc, ran) : undefined;
	if (report.holds.leftBehind > 0) await sandbox.advanceClock(16 * MINUTE);
	return {
		build,
		eventId: Number(event.body.id),
		answers,
		report,
		absorbed,
		seconds,
		spreadMs: s.spreadMs,
		queuedMs: ran.map((e) => Date.parse(e.startedAt) - Date.parse(e.createdAt)),
		runMs: ran.map((e) => Date.parse(e.stoppedAt) - Date.parse(e.startedAt)),
	};
}

/**
 * Single-place sales through each processor, two at a time, not counted: each worker's first
 * runs load the nodes, fetch a token and warm up n8n's code. Throws unless each sold, so a broken
 * build stops the bench before any rush. Run for every build before the first rush.
 */
export async function warmUp(rc: RushCluster, build: ShopBuild, sales = 8): Promise<void> {
	const { sandbox } = rc.cluster;
	const urls = rc.urls(build);
	const sell = async (url: string) => {
		// an event each: two sales at once on one event would race for the same place
		const event = await sandbox.admin('POST', '/events', { places: 2 });
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...build.headers },
			body: JSON.stringify({ eventId: String(event.body.id), quantity: 1 }),
			signal: AbortSignal.timeout(60_000),
		});
		const text = await res.text();
		if (res.status !== 200) throw new Error(`${build.label} warm-up: ${res.status} ${text}`);
	};
	for (let i = 0; i < sales; i += urls.length) await Promise.all(urls.map(sell));
}
