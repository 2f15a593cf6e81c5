import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * docs/reliability.md's table, built from what the fault matrix observed (one CellResult per
 * cell). `npm run test:faults` sets RELIABILITY_REPORT=1; the suite then calls
 * writeReliabilityReport
 * after its run. Other suites (e.g. the bad-input matrix) may add lines: each drops a JSON file
 * `{ "title": string, "lines": string[] }` into RELIABILITY_RESULTS_DIR (default
 * .ci-results/reliability), printed under the table as they are; `npm run test:faults` runs those
 * suites first.
 */

export interface CellResult {
	row: string;
	fault: string;
	/** Why the cell is not run, when it makes no sense. */
	na?: string;
	/** What happened, in a few words. */
	observed: string;
	passed: boolean;
	/** Records the sandbox holds that the operation did not hand over, where it reported success. */
	lost: number;
	/** Records handed over twice, and writes the sandbox applied (or received) more than once. */
	duplicated: number;
}

export interface Axis {
	id: string;
	/** Short header. */
	label: string;
	/** Longer description, for the legend. */
	title?: string;
}

export const START = '<!-- reliability:start -->';
export const END = '<!-- reliability:end -->';
const RELIABILITY_DOC = resolve(__dirname, '../../docs/reliability.md');
const FALLBACK = resolve(__dirname, '../../.ci-results/reliability-table.md');
export const RESULTS_DIR =
	process.env.RELIABILITY_RESULTS_DIR ?? resolve(__dirname, '../../.ci-results/reliability');

const cellText = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** Faults down, operation classes across; each cell the observed outcome. */
export function renderTable(cells: CellResult[], rows: Axis[], faults: Axis[]): string {
	const lookup = new Map(cells.map((cell) => [`${cell.row} ${cell.fault}`, cell]));
	const header = `| fault | ${rows.map((row) => cellText(row.label)).join(' | ')} |`;
	const rule = `|---|${rows.map(() => '---').join('|')}|`;
	const lines = faults.map((fault) => {
		const values = rows.map((row) => {
			const cell = lookup.get(`${row.id} ${fault.id}`);
			if (!cell) return 'not run';
			if (cell.na) return 'n/a';
			return cellText(cell.passed ? cell.observed : `**FAILS**: ${cell.observed}`);
		});
		return `| ${cellText(fault.label)} | ${values.join(' | ')} |`;
	});
	return [header, rule, ...lines].join('\n');
}

/**
 * The totals line: the claim is made only when every cell passed and the sandbox counted nothing
 * lost or twice.
 */
export function renderTotals(cells: CellResult[]): string {
	const run = cells.filter((cell) => !cell.na);
	const failed = run.filter((cell) => !cell.passed);
	const lost = run.reduce((sum, cell) => sum + cell.lost, 0);
	const duplicated = run.reduce((sum, cell) => sum + cell.duplicated, 0);
	const na = cells.length - run.length;
	const cellsText =
		`${run.length} cell${run.length === 1 ? '' : 's'}` + `${na ? ` (and ${na} n/a)` : ''}`;
	if (failed.length === 0 && lost === 0 && duplicated === 0) {
		return `**${cellsText}, nothing lost, nothing duplicated** (counted by the sandbox).`;
	}
	return (
		`**${cellsText}: ${failed.length} failing, ${lost} record(s) ` +
		`lost, ${duplicated} duplicated** (counted by the sandbox).`
	);
}

/**
 * Lines other suites dropped into RESULTS_DIR (see above); unreadable files are named, not hidden.
 */
export function extraSections(dir = RESULTS_DIR): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => name.endsWith('.json'))
		.sort()
		.map((name) => {
			try {
				const { title, lines } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
					title?: unknown;
					lines?: unknown;
				};
				if (typeof title !== 'string' || !Array.isArray(lines))
					throw new Error('expected { title, lines }');
				return [`**${title}**`, '', ...lines.map(String)].join('\n');
			} catch (error) {
				return `(${name} could not be read: ${(error as Error).message})`;
			}
		});
}

/**
 * The table, the totals, the legend of the operation classes, `notes`, then what other suites
 * dropped.
 */
export function renderSection(
	cells: CellResult[],
	rows: Axis[],
	faults: Axis[],
	notes: string[] = [],
	extra: string[] = extraSections(),
): string {
	const reasons = [...new Set(cells.flatMap((cell) => (cell.na ? [cell.na] : [])))];
	return [
		renderTable(cells, rows, faults),
		'',
		renderTotals(cells),
		'',
		...rows.filter((row) => row.title).map((row) => `- *${row.label}*: ${row.title}`),
		...(reasons.length ? ['', `n/a: ${reasons.join('; ')}.`] : []),
		...notes.flatMap((note) => ['', note]),
		...extra.flatMap((section) => ['', section]),
	].join('\n');
}

/**
 * Puts the section between the page's markers, touching nothing else; without both markers it
 * goes to a file of its own. Returns where it was written.
 */
export function writeReliabilityReport(
	section: string,
	readme = RELIABILITY_DOC,
	fallback = FALLBACK,
): string {
	const text = existsSync(readme) ? readFileSync(readme, 'utf8') : '';
	const start = text.indexOf(START);
	const end = text.indexOf(END, start + START.length);
	if (start >= 0 && end > start) {
		writeFileSync(readme, `${text.slice(0, start + START.length)}\n${section}\n${text.slice(end)}`);
		return readme;
	}
	mkdirSync(dirname(fallback), { recursive: true });
	writeFileSync(fallback, `${section}\n`);
	return fallback;
}
