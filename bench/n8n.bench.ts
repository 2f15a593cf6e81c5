import {
	credentialFor,
	setUpN8nBench,
	tearDownN8nBench,
	type N8nBench,
} from '../harness/bench/n8nBench';
import { recordSummary, ROUNDS, table, type SummaryRow } from '../harness/bench/report';
import { growthBench, growthWorkflows } from './n8n/growth';
import { HALL_PLACES, hallPlanBench, hallPlanWorkflows } from './n8n/hallPlan';
import { tokenCostBench, tokenCredentials, tokenWorkflows } from './n8n/tokenCost';

/**
 * Benchmarks in real n8n 2.40.7 (the packed package installed as a community package) against the
 * sandbox in its own process, rate limit off:
 *   1. hall plan of 20,000 places: this package vs the HTTP Request build vs a bare undici loop
 *   2. /token requests over 100 executions (one running n8n, webhook-triggered)
 *   4. growth: 1k, 10k, 50k places
 * (3, the poll cost, is bench/poll.bench.ts.) `npx tsx bench/n8n.bench.ts [hall] [token] [growth]`
 * runs a subset; BENCH_ROUNDS sets the rounds (default 3). Prints ratios measured in this run.
 */
const SECTIONS = ['hall', 'token', 'growth'] as const;

async function main() {
	const chosen = process.argv
		.slice(2)
		.filter((a): a is (typeof SECTIONS)[number] => (SECTIONS as readonly string[]).includes(a));
	const run = new Set(chosen.length ? chosen : SECTIONS);
	const started = Date.now();
	let bench: N8nBench | undefined;
	try {
		bench = await setUpN8nBench([
			'--big-event-places',
			String(HALL_PLACES),
			'--rate-limit',
			'0',
			'--envelope',
			'hydra',
		]);
		const b = bench;
		await b.n8n.importCredentials([
			credentialFor(b.sandbox),
			...(run.has('token') ? tokenCredentials(b) : []),
		]);
		await b.n8n.importWorkflows([
			...(run.has('hall') ? hallPlanWorkflows(b) : []),
			...(run.has('token') ? tokenWorkflows(b) : []),
			...(run.has('growth') ? await growthWorkflows(b) : []),
		]);
		console.log(
			`real n8n ${b.n8n.install.n8nVersion} on Node ${b.n8n.install.nodeVersion}` +
				`; sandbox ${b.sandbox.baseUrl}; rounds ${ROUNDS}`,
		);
		const summary: SummaryRow[] = [];
		if (run.has('hall')) summary.push(...(await hallPlanBench(b)));
		if (run.has('token')) summary.push(...(await tokenCostBench(b)));
		if (run.has('growth')) summary.push(...(await growthBench(b)));
		console.log(`\nSummary (real n8n, ${Math.round((Date.now() - started) / 1000)} s)`);
		table(['figure', 'measured', 'target'], summary);
		recordSummary('n8n', summary);
	} finally {
		if (bench) await tearDownN8nBench(bench);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
