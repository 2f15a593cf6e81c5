import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import { REPO_ROOT } from '../../scripts/n8n/instance';
import { execute, type Execution, type N8nBench } from '../../harness/bench/n8nBench';
import { sampleChild } from '../../harness/bench/procStats';
import {
	int,
	median,
	mib,
	ms,
	ROUNDS,
	table,
	verdict,
	type SummaryRow,
} from '../../harness/bench/report';
import { total } from '../../harness/sandbox/process';
import { MAX_PAGES_IN_FLIGHT } from '../../nodes/shared/transport';
import {
	chain,
	httpRequestBuild,
	manualTrigger,
	packageGetPlaces,
	type Envelope,
} from '../../harness/bench/workflows';

/**
 * Benchmark 1: the hall plan of one event with 20,000 places inside real n8n, three ways, each
 * run ROUNDS times (medians), for both kinds of list page: hydra (a total: the package reads two
 * pages at a time) and a plain array (no total: one at a time, until a short page).
 */
export const HALL_EVENT = 1001;
export const HALL_PLACES = 20_000;
const PACKAGE_WF = 'PeBenchWfHallPkg';
const httpWf = (envelope: Envelope) => `PeBenchWfHall${envelope === 'hydra' ? 'Hyd' : 'Arr'}`;
const TARGET_VS_HTTP = 0.5;
const TARGET_VS_WIRE = 1.5;

export function hallPlanWorkflows(bench: N8nBench) {
	const { apiUrl, keys } = bench.sandbox;
	return [
		chain(PACKAGE_WF, 'bench: hall plan (package)', [manualTrigger, packageGetPlaces(HALL_EVENT)]),
		...(['hydra', 'array'] as const).map((envelope) =>
			chain(httpWf(envelope), `bench: hall plan (HTTP Request, ${envelope})`, [
				manualTrigger,
				...httpRequestBuild(apiUrl, keys.partner, HALL_EVENT, envelope),
			]),
		),
	];
}

interface Measured {
	/**
	 * The job's own time: the node's executionTime (the HTTP build: its nodes' sum), or the loop's.
	 */
	jobMs: number;
	processMs: number;
	peakMiB: number;
	requests: number;
	tokens: number;
	items: number;
}

const lastNodeItems = (run: Execution) => Object.values(run.items).at(-1) ?? 0;

function fromExecution(run: Execution): Measured {
	const jobMs = Object.entries(run.nodeMs)
		.filter(([name]) => name !== 'Start')
		.reduce((sum, [, time]) => sum + time, 0);
	return {
		jobMs,
		processMs: run.processMs,
		peakMiB: run.peakMiB,
		requests: total(run.requests),
		tokens: run.requests['POST /token'] ?? 0,
		items: lastNodeItems(run),
	};
}

/**
 * harness/bench/wireLoop.ts in a fresh Node process (n8n's Node 24), as each `n8n execute` is
 * fresh.
 */
async function wireLoop(
	bench: N8nBench,
	client: 'undici' | 'n8n',
	token: string,
	inFlight: number,
): Promise<Measured> {
	const before = await bench.sandbox.counters();
	const started = process.hrtime.bigint();
	const { apiUrl } = bench.sandbox;
	const args = [
		'--import',
		'tsx',
		'harness/bench/wireLoop.ts',
		client,
		apiUrl,
		`/event-points/${HALL_EVENT}/places`,
		token,
		String(inFlight),
		bench.n8n.install.dir,
	];
	const { result, peakMiB } = await sampleChild(
		() =>
			new Promise<{ ms: number; items: number }>((resolve, reject) => {
				const env = { ...process.env, NO_PROXY: '127.0.0.1,localhost,::1' };
				const child = spawn(bench.n8n.install.node, args, {
					cwd: REPO_ROOT,
					env,
					stdio: ['ignore', 'pipe', 'inherit'],
				});
				let line = '';
				createInterface({ input: child.stdout }).on('line', (l) => (line = l));
				child.once('exit', (code) =>
					code === 0
						? resolve(JSON.parse(line))
						: reject(new Error(`${client} loop exited ${code}`)),
				);
			}),
	);
	const processMs = Number(process.hrtime.bigint() - started) / 1e6;
	const requests = total(await bench.sandbox.counters()) - total(before);
	return { jobMs: result.ms, processMs, peakMiB, requests, tokens: 0, items: result.items };
}

const medianOf = (runs: Measured[]): Measured => ({
	jobMs: median(runs.map((r) => r.jobMs)),
	processMs: median(runs.map((r) => r.processMs)),
	peakMiB: median(runs.map((r) => r.peakMiB)),
	requests: median(runs.map((r) => r.requests)),
	tokens: median(runs.map((r) => r.tokens)),
	items: median(runs.map((r) => r.items)),
});

async function measureEnvelope(
	bench: N8nBench,
	envelope: Envelope,
	token: string,
): Promise<SummaryRow[]> {
	await bench.sandbox.admin('PUT', '/config', { envelope });
	const inFlight = MAX_PAGES_IN_FLIGHT;
	const ways = {
		package: () => execute(bench, PACKAGE_WF).then(fromExecution),
		http: () => execute(bench, httpWf(envelope)).then(fromExecution),
		wire1: () => wireLoop(bench, 'undici', token, 1),
		wire2: () => wireLoop(bench, 'undici', token, 2),
		helper: () => wireLoop(bench, 'n8n', token, inFlight),
	};
	const names = Object.keys(ways) as Array<keyof typeof ways>;
	// Warm-up (not counted): the sandbox renders and caches each page once per query string.
	for (const name of names) await ways[name]();
	const runs: Record<string, Measured[]> = Object.fromEntries(names.map((name) => [name, []]));
	for (let round = 0; round < ROUNDS; round++)
		for (const name of names) runs[name].push(await ways[name]());
	const m = Object.fromEntries(names.map((name) => [name, medianOf(runs[name])])) as Record<
		keyof typeof ways,
		Measured
	>;

	const counts = new Set(
		Object.values(runs)
			.flat()
			.map((r) => r.items),
	);
	if (counts.size !== 1 || !counts.has(HALL_PLACES))
		throw new Error(`item counts differ or miss ${HALL_PLACES}: ${[...counts].join(', ')}`);

	const pkgInFlight = inFlight > 1 ? `up to ${inFlight} in flight` : '1 at a time';
	console.log(
		`\n${envelope === 'hydra' ? 'Hydra pages (with a total)' : 'Plain-array pages (no total)'}` +
			`: ${int(HALL_PLACES)} places, ${ROUNDS} rounds, medians; every run returned ` +
			`${int(HALL_PLACES)} items`,
	);
	table(
		['way', 'job time', 'n8n execute process', 'peak memory', 'requests', 'of them /token'],
		[
			[
				`package (Get Places, Return All; ${pkgInFlight})`,
				ms(m.package.jobMs),
				ms(m.package.processMs),
				mib(m.package.peakMiB),
				int(m.package.requests),
				int(m.package.tokens),
			],
			[
				`HTTP Request build (token + pagination${envelope === 'hydra' ? ' + Split Out' : ''})`,
				ms(m.http.jobMs),
				ms(m.http.processMs),
				mib(m.http.peakMiB),
				int(m.http.requests),
				int(m.http.tokens),
			],
			[
				'bare undici loop, 1 at a time',
				ms(m.wire1.jobMs),
				ms(m.wire1.processMs),
				mib(m.wire1.peakMiB),
				int(m.wire1.requests),
				'-',
			],
			[
				'bare undici loop, 2 in flight',
				ms(m.wire2.jobMs),
				ms(m.wire2.processMs),
				mib(m.wire2.peakMiB),
				int(m.wire2.requests),
				'-',
			],
			[
				`n8n's HTTP helper alone, ${pkgInFlight}`,
				ms(m.helper.jobMs),
				ms(m.helper.processMs),
				mib(m.helper.peakMiB),
				int(m.helper.requests),
				'-',
			],
		],
	);
	const vsHttp = m.package.jobMs / m.http.jobMs;
	const vsWire = m.package.jobMs / m.wire1.jobMs;
	const fewer = m.package.requests < m.http.requests;
	console.log(`  package / HTTP Request, node time:   ${verdict(vsHttp, TARGET_VS_HTTP)}`);
	console.log(
		`  package / HTTP Request, process:     ` +
			`${(m.package.processMs / m.http.processMs).toFixed(2)}` +
			` (start-up and printing the run included)`,
	);
	console.log(
		`  package / HTTP Request, requests:    ${m.package.requests} vs ` +
			`${m.http.requests} (target fewer: ${fewer ? 'met' : 'MISSED'})`,
	);
	console.log(`  package / undici 1 at a time:        ${verdict(vsWire, TARGET_VS_WIRE)}`);
	console.log(
		`  package / undici 2 in flight:        ${(m.package.jobMs / m.wire2.jobMs).toFixed(2)}`,
	);
	console.log(
		`  package / n8n's HTTP helper alone:   ${(m.package.jobMs / m.helper.jobMs).toFixed(2)}` +
			` (what any node calling this.helpers.httpRequest pays)`,
	);
	const each = (name: string) => runs[name].map((r) => Math.round(r.jobMs)).join(', ');
	console.log(
		`  (job ms per round: package ${each('package')}; HTTP ${each('http')}` +
			`; undici ${each('wire1')}; n8n helper ${each('helper')})`,
	);
	return [
		[
			`hall plan 20k (${envelope}): package / HTTP Request, node time`,
			`${ms(m.package.jobMs)} / ${ms(m.http.jobMs)} = ${vsHttp.toFixed(2)}`,
			`<= ${TARGET_VS_HTTP}: ${vsHttp <= TARGET_VS_HTTP ? 'met' : 'MISSED'}`,
		],
		[
			`hall plan 20k (${envelope}): requests package / HTTP Request`,
			`${m.package.requests} / ${m.http.requests}`,
			`fewer: ${fewer ? 'met' : 'MISSED'}`,
		],
		[
			`hall plan 20k (${envelope}): package / undici 1 at a time`,
			`${ms(m.package.jobMs)} / ${ms(m.wire1.jobMs)} = ${vsWire.toFixed(2)}`,
			`<= ${TARGET_VS_WIRE}: ${vsWire <= TARGET_VS_WIRE ? 'met' : 'MISSED'}`,
		],
		[
			`hall plan 20k (${envelope}): package / n8n's HTTP helper alone`,
			`${ms(m.package.jobMs)} / ${ms(m.helper.jobMs)} = ` +
				`${(m.package.jobMs / m.helper.jobMs).toFixed(2)}`,
			'-',
		],
		[
			`hall plan 20k (${envelope}): peak memory package / HTTP Request`,
			`${mib(m.package.peakMiB)} / ${mib(m.http.peakMiB)}`,
			'-',
		],
	];
}

export async function hallPlanBench(bench: N8nBench): Promise<SummaryRow[]> {
	console.log(
		`\n== 1. Hall plan of one event, ${int(HALL_PLACES)} places, in real ` +
			`n8n (n8n execute) against the sandbox (own process, rate limit off)`,
	);
	console.log(
		"job time = the node's own executionTime from the run JSON " +
			'(HTTP build: Token + HTTP Request + Split Out), or the ' +
			"undici loop's;",
	);
	console.log(
		'process = the whole n8n execute (start-up, run, printing the ' +
			'run JSON); peak memory = VmHWM of that process.',
	);
	const token = await bench.sandbox.token();
	return [
		...(await measureEnvelope(bench, 'hydra', token)),
		...(await measureEnvelope(bench, 'array', token)),
	];
}
