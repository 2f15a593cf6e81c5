import { cpus, loadavg } from 'node:os';

import { recordSummary, table } from '../harness/bench/report';
import { buyers, peakDemand } from '../harness/bench/rush/buyers';
import { RUSH_CREDENTIAL, startRushCluster, type RushCluster } from '../harness/bench/rush/cluster';
import { printBuilds, printErrors, summaryRows } from '../harness/bench/rush/figures';
import { fiveStepBuild } from '../harness/bench/rush/fiveStep';
import { httpRequestShop } from '../harness/bench/rush/httpRequest';
import { runBuild, warmUp, type BuildRun } from '../harness/bench/rush/run';
import { shippedBuild } from '../harness/bench/rush/shipped';

/**
 * The on-sale rush: real n8n in queue mode (Redis, Postgres, main, 2 workers, 2 webhook
 * processors), the sandbox behind the WAN stand-in (50 ms round trip, TLS). B buyers arrive over
 * 60 s, each asking 1-4 places, alternated over the two webhook processors; the event has about
 * 0.6 of the places asked for in all, the account's reserved-tickets limit is below what the
 * buyers of the busiest 2 s (about one checkout) ask for. Three builds of the same shop, one
 * after the other, each on its own fresh event with the same buyers: the package's
 * examples/shop-checkout.json, the five-step build from the operations before Hold Best
 * Available, and n8n's HTTP Request node.
 *   npx tsx bench/rush.bench.ts [buyers] [seconds]
 * A buyer is modelled as a shop's front end serves it: after an error (neither tickets nor a
 * clear sold-out: a 5xx, an error body, a timeout) it tries the whole checkout again 1 s later,
 * up to RUSH_TRIES tries in all; its latency runs from the first click to the final answer.
 * Env: RUSH_BUYERS (300), RUSH_SECONDS (60), RUSH_SEED (26), RUSH_LIMIT (reserved-tickets limit,
 * 10), RUSH_RTT (50), RUSH_TIMEOUT_S (a try's wait for the answer, 60), RUSH_TRIES (3; 1 never
 * tries again).
 */
const [argBuyers, argSeconds] = process.argv.slice(2).map(Number);
const BUYERS = argBuyers || Number(process.env.RUSH_BUYERS ?? 300);
const SECONDS = argSeconds || Number(process.env.RUSH_SECONDS ?? 60);
const SEED = Number(process.env.RUSH_SEED ?? 26);
const LIMIT = Number(process.env.RUSH_LIMIT ?? 10);
const RTT = Number(process.env.RUSH_RTT ?? 50);
const TIMEOUT_S = Number(process.env.RUSH_TIMEOUT_S ?? 60);
const TRIES = Math.max(1, Number(process.env.RUSH_TRIES ?? 3));
const PAUSE_MS = 1000;
const CAPACITY_SHARE = 0.6;

async function main() {
	const started = Date.now();
	const schedule = buyers(BUYERS, SECONDS * 1000, SEED);
	const asked = schedule.reduce((n, b) => n + b.quantity, 0);
	const capacity = Math.round(asked * CAPACITY_SHARE);
	let rc: RushCluster | undefined;
	try {
		rc = await startRushCluster({
			wanRttMs: RTT,
			builds: (access) => [
				shippedBuild(RUSH_CREDENTIAL, access),
				fiveStepBuild(RUSH_CREDENTIAL),
				httpRequestShop(access.apiUrl, access.token),
			],
		});
		const { install } = rc.cluster.n8n;
		console.log(
			`real n8n ${install.n8nVersion} on Node ${install.nodeVersion}, queue mode: main, ` +
				`${rc.cluster.workers.length} workers (concurrency 5), ${rc.cluster.webhooks.length} ` +
				`webhook processors; sandbox behind the WAN stand-in (${RTT} ms round trip, TLS); ` +
				`cluster up in ${Math.round((Date.now() - started) / 1000)} s`,
		);
		console.log(
			`${BUYERS} buyers over ${SECONDS} s (seed ${SEED}), ${asked} places asked in all; ` +
				`${capacity} places per event (${CAPACITY_SHARE} of the demand); account limit ` +
				`${LIMIT} reserved tickets (asked by the buyers of the busiest 2 s, about one ` +
				`checkout: ${peakDemand(schedule, 2000)} places); a buyer waits ${TIMEOUT_S} s ` +
				`for each answer and, after an error, tries again ${PAUSE_MS / 1000} s later, ` +
				`${TRIES} ${TRIES === 1 ? 'try' : 'tries'} in all`,
		);
		for (const build of rc.builds) await warmUp(rc, build);
		const runs: BuildRun[] = [];
		for (const build of rc.builds) {
			const run = await runBuild(rc, build, {
				schedule,
				spreadMs: SECONDS * 1000,
				capacity,
				reservedPerAccount: LIMIT,
				buyer: { timeoutMs: TIMEOUT_S * 1000, tries: TRIES, pauseMs: PAUSE_MS },
			});
			console.log(
				`  ${build.label}: done in ${run.seconds.toFixed(1)} s; load average (1 min) ` +
					`${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
			);
			runs.push(run);
		}
		console.log('');
		printBuilds(runs, capacity, TRIES);
		console.log('');
		printErrors(runs);
		const summary = summaryRows(runs[0], runs[1], runs[2]);
		console.log(`\nSummary (rush, ${Math.round((Date.now() - started) / 1000)} s)`);
		table(['figure', 'measured', 'target'], summary);
		recordSummary('rush', summary);
	} finally {
		await rc?.stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
