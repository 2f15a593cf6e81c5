/**
 * The on-sale rush, small, on loopback: the package's shop (examples/shop-checkout.json) in
 * queue mode (harness/n8n/queueCluster.ts) under buyers competing for fewer places than they ask,
 * with an account limit below their demand. `npm run bench:rush` is the full run, behind the WAN
 * stand-in, against two other builds (docs/performance.md, "On-sale rush").
 */
import { buyers, type Answer } from '../../harness/bench/rush/buyers';
import {
	RUSH_CREDENTIAL,
	startRushCluster,
	type RushCluster,
} from '../../harness/bench/rush/cluster';
import { figuresOf } from '../../harness/bench/rush/figures';
import { runBuild, warmUp, type BuildRun } from '../../harness/bench/rush/run';
import { shippedBuild } from '../../harness/bench/rush/shipped';

const BUYERS = 24;
const SECONDS = 2;
const SEED = 26;
const CAPACITY = 30;
const LIMIT = 8;
/**
 * A buyer's wait for the answer: the hold waits up to 30 s for the account limit, by default.
 * One try each: here every buyer must be answered at its first click, with no second chance.
 */
const BUYER = { timeoutMs: 60_000, tries: 1, pauseMs: 1000 };

describe('the on-sale rush in queue mode: the shop example under contention', () => {
	let rc: RushCluster;
	let run: BuildRun;
	const schedule = buyers(BUYERS, SECONDS * 1000, SEED);

	beforeAll(async () => {
		rc = await startRushCluster({ builds: (access) => [shippedBuild(RUSH_CREDENTIAL, access)] });
		await warmUp(rc, rc.builds[0], 4);
		run = await runBuild(rc, rc.builds[0], {
			schedule,
			spreadMs: SECONDS * 1000,
			capacity: CAPACITY,
			reservedPerAccount: LIMIT,
			buyer: BUYER,
		});
		const f = figuresOf(run);
		console.log(
			`[rush] ${BUYERS} buyers over ${SECONDS} s asking ` +
				`${schedule.reduce((n, b) => n + b.quantity, 0)} places, ${CAPACITY} places, ` +
				`account limit ${LIMIT}: ${f.sales} sales, ${run.report.placesSold} places sold, ` +
				`${f.soldOut} sold out, ${run.report.conflicts} 409s and ` +
				`${run.report.limitRefusals} 422s met (absorbed ${run.absorbed?.conflicts} / ` +
				`${run.absorbed?.limitWaits}), p95 ${Math.round(f.p95)} ms, slowest ` +
				`${Math.round(f.slowest)} ms`,
		);
	});

	afterAll(async () => {
		await rc?.stop();
	});

	const unclear = (answers: Answer[]) =>
		answers
			.filter((a) => a.outcome !== 'tickets' && a.outcome !== 'soldOut')
			.map((a) => `${a.buyer.quantity} asked: ${a.status} ${a.text.slice(0, 200)}`);

	it('every buyer is answered in time: tickets, or a clear sold-out', () => {
		expect(unclear(run.answers)).toEqual([]);
		expect(run.answers.every((a) => a.tries.length === 1)).toBe(true);
		expect(run.answers.filter((a) => a.outcome === 'tickets').length).toBeGreaterThan(0);
	});

	it('no more places sold than the event has, each as the buyers were told', () => {
		expect(run.report.placesSold).toBeLessThanOrEqual(CAPACITY);
		expect(run.answers.reduce((n, a) => n + a.tickets, 0)).toBe(run.report.placesSold);
	});

	it('no hold left behind, no payment reported for a lost hold', () => {
		expect(run.report.holds.leftBehind).toBe(0);
		expect(run.report.paymentsForLostHolds).toBe(0);
		expect(run.report.holds.paid).toBe(run.report.holds.created);
	});

	// Places only get taken in this run (no payment fails, so nothing is released): what is left
	// at the end was free at every sold-out answer. Every place sold, or every buyer served, are
	// the usual cases; places left in two sectors that no sold-out buyer's count fits is the other.
	it('a sold-out answer only when no one price could give that buyer enough places', async () => {
		const places = await rc.cluster.sandbox.getAll(`/event-points/${run.eventId}/places`);
		const freeBySector = new Map<number, number>();
		for (const p of places.filter((p) => p.availableCount > 0))
			freeBySector.set(p.sectorId, (freeBySector.get(p.sectorId) ?? 0) + 1);
		const most = Math.max(0, ...freeBySector.values());
		const refused = run.answers.filter((a) => a.outcome === 'soldOut').map((a) => a.buyer.quantity);
		expect(run.report.holds.released).toBe(0);
		expect(refused.filter((quantity) => quantity <= most)).toEqual([]);
	});
});
