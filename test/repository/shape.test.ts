import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as ts from 'typescript';

import { ROOT, tsFiles } from './importGraph';

/**
 * The shipped code's shape (docs/architecture.md, "Reading the code"): short named steps, and file
 * names that say one job each.
 */
const shipped = tsFiles().filter((file) => file.startsWith('nodes/'));

/** Lines from a function's first line to its last, its nested functions included. */
const MAX_FUNCTION_LINES = 60;

function longFunctions(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const line = (at: number) => source.getLineAndCharacterOfPosition(at).line;
			const lines = line(node.getEnd()) - line(node.getStart()) + 1;
			const name = 'name' in node && node.name ? node.name.getText(source) : '(anonymous)';
			if (lines > MAX_FUNCTION_LINES)
				found.push(`${file}:${line(node.getStart()) + 1} ${name} (${lines} lines)`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

/**
 * A name two files may share because it means the same job wherever it stands: a folder's front
 * door, and the operation modules (a resource's `get.ts` is its Get operation).
 */
const OPERATION_MODULE = /^nodes\/PublicEvents\/resources\/\w+\/\w+\.ts$/;
const SHARED_NAMES = new Set(['index.ts']);

describe('shipped code shape', () => {
	it(`has no function over ${MAX_FUNCTION_LINES} lines in nodes/`, () => {
		expect(shipped.length).toBeGreaterThan(50);
		expect(shipped.flatMap((file) => longFunctions(file))).toEqual([]);
	});

	it('counts a method nested in a class, and lets one of the limit pass', () => {
		const method = (lines: number) => [
			'class C {',
			'\tm() {',
			...Array.from({ length: lines - 2 }, () => '\tf();'),
			'\t}',
			'}',
		];
		expect(longFunctions('probe.ts', method(MAX_FUNCTION_LINES + 1).join('\n'))).toEqual([
			`probe.ts:2 m (${MAX_FUNCTION_LINES + 1} lines)`,
		]);
		expect(longFunctions('probe.ts', method(MAX_FUNCTION_LINES).join('\n'))).toEqual([]);
	});

	it('gives no two files under nodes/ the same name unless they do the same job', () => {
		const byName = new Map<string, string[]>();
		for (const file of shipped) {
			if (SHARED_NAMES.has(basename(file))) continue;
			const job = OPERATION_MODULE.test(file) ? 'operation' : file;
			const key = `${basename(file)}|${job}`;
			byName.set(basename(file), [...(byName.get(basename(file)) ?? []), key]);
		}
		const clashes = [...byName]
			.filter(([, jobs]) => new Set(jobs).size > 1)
			.map(([name, jobs]) => `${name}: ${jobs.map((j) => j.split('|')[1]).join(', ')}`);
		expect(clashes).toEqual([]);
	});
});
