import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	END,
	extraSections,
	renderSection,
	renderTotals,
	START,
	writeReliabilityReport,
	type CellResult,
} from '../../harness/faults/report';

/** The report generator on its own: what it claims, and that it touches only the marked lines. */
const rows = [
	{ id: 'list', label: 'list', title: 'a list' },
	{ id: 'create', label: 'create | order' },
];
const faults = [
	{ id: '429', label: '429 storm' },
	{ id: 'dropAfter', label: 'drop after' },
];
const cell = (row: string, fault: string, extra: Partial<CellResult> = {}): CellResult => ({
	row,
	fault,
	observed: 'recovered, 0 dup',
	passed: true,
	lost: 0,
	duplicated: 0,
	...extra,
});
const dir = mkdtempSync(join(tmpdir(), 'reliability-report-'));

describe('reliability report', () => {
	it(
		'a table of faults down and operation classes across; n/a, ' +
			'failing and missing cells shown as such',
		() => {
			const cells = [
				cell('list', '429'),
				cell('create', '429', { observed: 'sent 2×', passed: false }),
				cell('list', 'dropAfter', { na: 'a read changes nothing', observed: 'n/a' }),
			];
			const section = renderSection(cells, rows, faults, ['settings note'], []);
			expect(section.split('\n').slice(0, 4)).toEqual([
				'| fault | list | create \\| order |',
				'|---|---|---|',
				'| 429 storm | recovered, 0 dup | **FAILS**: sent 2× |',
				'| drop after | n/a | not run |',
			]);
			expect(section).toContain('- *list*: a list');
			expect(section).toContain('n/a: a read changes nothing.');
			expect(section).toContain('settings note');
		},
	);

	it(
		'"nothing lost, nothing duplicated" only when every cell ' +
			'passed and the sandbox counted none',
		() => {
			expect(renderTotals([cell('list', '429'), cell('list', 'dropAfter', { na: 'x' })])).toBe(
				'**1 cell (and 1 n/a), nothing lost, nothing duplicated** (counted by the sandbox).',
			);
			expect(renderTotals([cell('list', '429', { duplicated: 1 })])).toBe(
				'**1 cell: 0 failing, 0 record(s) lost, 1 duplicated** (counted by the sandbox).',
			);
			expect(renderTotals([cell('list', '429', { passed: false, lost: 2 })])).toMatch(
				/1 failing, 2 record\(s\) lost/,
			);
		},
	);

	it('writes between the markers only; without them, to the fallback file', () => {
		const readme = join(dir, 'README.md');
		writeFileSync(readme, `# Title\n\n${START}\nold table\n${END}\n\n## Next\n`);
		expect(writeReliabilityReport('new table', readme, join(dir, 'fallback.md'))).toBe(readme);
		expect(readFileSync(readme, 'utf8')).toBe(
			`# Title\n\n${START}\nnew table\n${END}\n\n## Next\n`,
		);

		writeFileSync(readme, '# No markers\n');
		expect(writeReliabilityReport('table', readme, join(dir, 'fallback.md'))).toBe(
			join(dir, 'fallback.md'),
		);
		expect(readFileSync(readme, 'utf8')).toBe('# No markers\n');
		expect(readFileSync(join(dir, 'fallback.md'), 'utf8')).toBe('table\n');
	});

	it('other suites add lines through JSON files; an unreadable one is named, not hidden', () => {
		const results = join(dir, 'results');
		expect(extraSections(results)).toEqual([]);
		mkdirSync(results);
		writeFileSync(
			join(results, 'a-bad-input.json'),
			JSON.stringify({ title: 'Bad input', lines: ['- 120 cases, 0 requests sent'] }),
		);
		writeFileSync(join(results, 'b-broken.json'), '{');
		const sections = extraSections(results);
		expect(sections[0]).toBe('**Bad input**\n\n- 120 cases, 0 requests sent');
		expect(sections[1]).toMatch(/^\(b-broken\.json could not be read: /);
	});
});
