import { table, takeSummary } from '../harness/bench/report';

/**
 * The end of `npm run bench`: the headline figures the benchmarks recorded in this run, in one
 * table.
 */
const recorded = takeSummary();
const rows = Object.values(recorded).flat();
if (rows.length === 0) {
	console.log('No benchmark figures recorded (run bench:n8n and bench:poll first).');
} else {
	console.log(
		`\n== Summary of npm run bench (${Object.keys(recorded).join(', ')}` +
			`); sandbox throughput and pages in flight are printed above`,
	);
	table(['figure', 'measured', 'target'], rows);
	const missed = rows.filter(([, , target]) => target.includes('MISSED'));
	console.log(
		missed.length
			? `\n${missed.length} target(s) missed: see docs/performance.md for why.`
			: '\nAll targets met.',
	);
}
