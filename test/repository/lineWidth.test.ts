import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, tsFiles } from './importGraph';

/** prettier's width (a tab counts 2); prettier leaves long strings and comments alone. */
const WIDTH = 100;

describe('line width', () => {
	it(`no line of TypeScript is over ${WIDTH} columns (fixtures aside)`, () => {
		const files = tsFiles().filter((file) => !file.includes('/fixtures/'));
		expect(files.length).toBeGreaterThan(100);
		const long = files.flatMap((file) =>
			readFileSync(join(ROOT, file), 'utf8')
				.split('\n')
				.map((line, i) => ({ at: `${file}:${i + 1}`, width: line.replace(/\t/g, '  ').length }))
				.filter(({ width }) => width > WIDTH)
				.map(({ at, width }) => `${at} (${width})`),
		);
		expect(long).toEqual([]);
	});
});
