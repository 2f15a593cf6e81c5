import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Rounds per measurement (BENCH_ROUNDS overrides, e.g. 1 for a quick look). */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

export const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;
export const mib = (value: number) => `${Math.round(value)} MiB`;
export const int = (value: number) => Math.round(value).toLocaleString('en-US');

/** "0.42 (target <= 0.5: met)" */
export function verdict(
	ratio: number,
	target: number,
	better: 'lower' | 'higher' = 'lower',
): string {
	const met = better === 'lower' ? ratio <= target : ratio >= target;
	return (
		`${ratio.toFixed(2)} (target ${better === 'lower' ? '<=' : '>='}` +
		` ${target}: ${met ? 'met' : 'MISSED'})`
	);
}

/** Prints rows as an aligned text table. */
export function table(header: string[], rows: Array<Array<string | number>>): void {
	const cells = [header, ...rows.map((row) => row.map(String))];
	const widths = header.map((_, c) => Math.max(...cells.map((row) => (row[c] ?? '').length)));
	const line = (row: string[]) =>
		row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
	console.log(line(header));
	console.log(widths.map((w) => '-'.repeat(w)).join('  '));
	for (const row of cells.slice(1)) console.log(line(row));
}

/**
 * The summary `npm run bench` prints at its end (bench/summary.ts): each benchmark records its
 * headline figures under its own name in a file in the temp folder.
 */
const SUMMARY_FILE =
	process.env.BENCH_SUMMARY_FILE ?? join(tmpdir(), 'n8n-nodes-public-events-bench-summary.json');

export type SummaryRow = [figure: string, value: string, target: string];

export function recordSummary(bench: string, rows: SummaryRow[]): void {
	const all = existsSync(SUMMARY_FILE)
		? (JSON.parse(readFileSync(SUMMARY_FILE, 'utf8')) as Record<string, SummaryRow[]>)
		: {};
	all[bench] = rows;
	writeFileSync(SUMMARY_FILE, JSON.stringify(all, null, 2));
}

export function takeSummary(): Record<string, SummaryRow[]> {
	if (!existsSync(SUMMARY_FILE)) return {};
	const all = JSON.parse(readFileSync(SUMMARY_FILE, 'utf8')) as Record<string, SummaryRow[]>;
	rmSync(SUMMARY_FILE);
	return all;
}
