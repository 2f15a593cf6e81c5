import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, tsFiles } from './importGraph';

/** prettier's width (a tab counts 2); prettier leaves long strings and comments alone. */
const WIDTH = 100;

/**
 * n8n's lint wants a dropdown filled from the API to end its description with this sentence, and
 * reads it only from one string literal: the sentence alone is wider than a line.
 */
const N8N_DYNAMIC_LIST =
	/using an <a href="https:\/\/docs\.n8n\.io\/code\/expressions\/">expression<\/a>\.?',$/;

describe('line width', () => {
	it(`no line of TypeScript is over ${WIDTH} columns (fixtures aside)`, () => {
		const files = tsFiles().filter((file) => !file.includes('/fixtures/'));
		expect(files.length).toBeGreaterThan(100);
		const long = files.flatMap((file) =>
			readFileSync(join(ROOT, file), 'utf8')
				.split('\n')
				.map((line, i) => ({
					at: `${file}:${i + 1}`,
					line,
					width: line.replace(/\t/g, '  ').length,
				}))
				.filter(({ line, width }) => width > WIDTH && !N8N_DYNAMIC_LIST.test(line))
				.map(({ at, width }) => `${at} (${width})`),
		);
		expect(long).toEqual([]);
	});
});
