import { execute, type N8nBench } from '../../harness/bench/n8nBench';
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
import { chain, manualTrigger, packageGetPlaces } from '../../harness/bench/workflows';

/**
 * Benchmark 4: Get Places, Return All, in real n8n for halls of 1k, 10k and 50k places (hydra
 * pages, the token stored): the cost per place must stay flat as the hall grows.
 */
const SIZES = [1_000, 10_000, 50_000];
const wfId = (places: number) => `PeBenchWfGrow${String(places / 1000).padStart(3, '0')}`;
/** Per-place time at 50k over that at 1k: above 1 means the cost per place grows. */
const TARGET_FLAT = 1.2;

/** Creates the halls in the sandbox; returns the workflows reading them. */
export async function growthWorkflows(bench: N8nBench) {
	const workflows = [];
	for (const places of SIZES) {
		const eventId = await bench.sandbox.createEvent(places);
		workflows.push(
			chain(wfId(places), `bench: growth ${places}`, [manualTrigger, packageGetPlaces(eventId)]),
		);
	}
	return workflows;
}

export async function growthBench(bench: N8nBench): Promise<SummaryRow[]> {
	console.log(
		`\n== 4. Growth: Get Places, Return All, in real n8n, ` +
			`hydra pages (2 in flight), ${ROUNDS} rounds, medians`,
	);
	await bench.sandbox.admin('PUT', '/config', { envelope: 'hydra' });
	const rows: Array<{
		places: number;
		nodeMs: number;
		processMs: number;
		peakMiB: number;
		requests: number;
	}> = [];
	for (const places of SIZES) {
		await execute(bench, wfId(places)); // warm-up: the sandbox caches its pages
		const runs = [];
		for (let round = 0; round < ROUNDS; round++) {
			const run = await execute(bench, wfId(places));
			if (run.items['Get Places'] !== places)
				throw new Error(`${places} places: got ${run.items['Get Places']}`);
			runs.push(run);
		}
		rows.push({
			places,
			nodeMs: median(runs.map((r) => r.nodeMs['Get Places'])),
			processMs: median(runs.map((r) => r.processMs)),
			peakMiB: median(runs.map((r) => r.peakMiB)),
			requests: median(runs.map((r) => total(r.requests))),
		});
	}
	// The time each further place added over the previous size: fixed costs (start of the run,
	// the first page alone) cancel out, so a per-place cost that grows with the hall shows here.
	const marginal = rows.map((r, i) =>
		i === 0
			? undefined
			: ((r.nodeMs - rows[i - 1].nodeMs) * 1000) / (r.places - rows[i - 1].places),
	);
	table(
		[
			'places',
			'node time',
			'per place',
			'per added place',
			'requests',
			'per 1k places',
			'n8n execute process',
			'per place',
			'peak memory',
		],
		rows.map((r, i) => [
			int(r.places),
			ms(r.nodeMs),
			`${((r.nodeMs * 1000) / r.places).toFixed(1)} µs`,
			marginal[i] === undefined ? '-' : `${marginal[i]!.toFixed(1)} µs`,
			int(r.requests),
			(r.requests / (r.places / 1000)).toFixed(1),
			ms(r.processMs),
			`${((r.processMs * 1000) / r.places).toFixed(1)} µs`,
			mib(r.peakMiB),
		]),
	);
	const perPlace = (r: (typeof rows)[number]) => r.nodeMs / r.places;
	const [small, , large] = rows;
	const flat = perPlace(large) / perPlace(small);
	console.log(`  node time per place, 50k / 1k: ${verdict(flat, TARGET_FLAT)}`);
	console.log(
		`  requests: ${rows.map((r) => `${r.requests} for ${int(r.places)}`).join(', ')}` +
			` (ceil(N/100), no token)`,
	);
	return [
		[
			'growth: node time per place 1k / 10k / 50k',
			rows.map((r) => `${((r.nodeMs * 1000) / r.places).toFixed(1)}`).join(' / ') + ' µs',
			'-',
		],
		[
			'growth: per-place time 50k / 1k',
			flat.toFixed(2),
			`<= ${TARGET_FLAT} (flat): ${flat <= TARGET_FLAT ? 'met' : 'MISSED'}`,
		],
		[
			'growth: requests 1k / 10k / 50k',
			rows.map((r) => r.requests).join(' / '),
			`ceil(N/100): ` +
				`${rows.every((r) => r.requests === Math.ceil(r.places / 100)) ? 'met' : 'MISSED'}`,
		],
	];
}
