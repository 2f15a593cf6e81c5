import {
	cycles,
	readImports,
	subgraph,
	tsFiles,
	type Cycle,
	type ModuleImports,
} from './importGraph';

/**
 * The layout rules, read from the repository's own files: no import cycles, shipped code that
 * needs nothing n8n does not provide, and tests and benchmarks that do not borrow from each other
 * (docs/architecture.md, "Layers" and "What lives where").
 */
const files = tsFiles();
const graph = new Map<string, ModuleImports>(files.map((file) => [file, readImports(file)]));
const under =
	(...folders: string[]) =>
	(file: string) =>
		folders.some((folder) => file.startsWith(`${folder}/`));
const shipped = under('nodes', 'credentials');

/** What n8n provides to a community node at run time, besides its own relative files. */
const PROVIDED_BY_N8N = new Set(['n8n-workflow', 'crypto', 'zod']);

/**
 * The transport's front door: files outside its folder import `index.ts` only. Its own tests
 * (test/nodes/shared/transport/) may import the file they test, as unit tests of that file.
 */
const TRANSPORT = 'nodes/shared/transport';
const TRANSPORT_DOOR = `${TRANSPORT}/index.ts`;
const TRANSPORT_TESTS = 'test/nodes/shared/transport';

function pastTheDoor(all: Map<string, ModuleImports>): string[] {
	const wrong: string[] = [];
	for (const [file, imports] of all) {
		if (under(TRANSPORT, TRANSPORT_TESTS)(file)) continue;
		for (const target of imports.files)
			if (under(TRANSPORT)(target) && target !== TRANSPORT_DOOR)
				wrong.push(`${file} imports ${target}`);
	}
	return wrong;
}

const show = (found: Cycle[]) =>
	found
		.map((c) => `${c.path.join(' -> ')}\n  (${c.members.length} files: ${c.members.join(', ')})`)
		.join('\n');

describe('repository imports', () => {
	it('reads the repository: every relative import names a file', () => {
		expect(files.filter(shipped).length).toBeGreaterThan(10);
		expect(files.filter(under('sandbox')).length).toBeGreaterThan(10);
		const unresolved = [...graph]
			.filter(([, imports]) => imports.unresolved.length > 0)
			.map(([file, imports]) => `${file}: ${imports.unresolved.join(', ')}`);
		expect(unresolved).toEqual([]);
	});

	it('has no import cycle among nodes/ and credentials/', () => {
		expect(show(cycles(subgraph(graph, shipped)))).toBe('');
	});

	it('has no import cycle in sandbox/', () => {
		expect(show(cycles(subgraph(graph, under('sandbox'))))).toBe('');
	});

	it('layers the sandbox: domain rules below routes, app.ts wired only by its entry point', () => {
		const wrong: string[] = [];
		for (const [file, imports] of graph) {
			if (!under('sandbox')(file)) continue;
			for (const target of imports.files) {
				const entry = file === 'sandbox/index.ts' || file === 'sandbox/cli.ts';
				if (target === 'sandbox/app.ts' && !entry) wrong.push(`${file} imports ${target}`);
				if (under('sandbox/domain')(file) && under('sandbox/routes')(target))
					wrong.push(`${file} imports ${target}`);
				if (!under('sandbox')(target)) wrong.push(`${file} imports ${target}`);
			}
			for (const name of imports.packages)
				if (name.startsWith('n8n') || name.startsWith('@n8n/'))
					wrong.push(`${file} imports ${name}`);
		}
		expect(wrong).toEqual([]);
	});

	it('ships code that imports only n8n-workflow, what n8n provides, and its own files', () => {
		const wrong: string[] = [];
		for (const [file, imports] of graph) {
			if (!shipped(file)) continue;
			for (const name of imports.packages)
				if (!PROVIDED_BY_N8N.has(name)) wrong.push(`${file} imports ${name}`);
			for (const target of imports.files)
				if (!shipped(target)) wrong.push(`${file} imports ${target}`);
		}
		expect(wrong).toEqual([]);
		// The rule is not vacuous: n8n-workflow is what the nodes are built on.
		expect(
			[...graph].some(([file, i]) => shipped(file) && i.packages.includes('n8n-workflow')),
		).toBe(true);
	});

	it('enters the transport by its front door: nothing outside imports its other files', () => {
		expect(pastTheDoor(graph)).toEqual([]);
		const probe = (file: string, target: string) =>
			pastTheDoor(new Map([[file, { files: [target], packages: [], unresolved: [] }]]));
		expect(probe('nodes/shared/probe.ts', `${TRANSPORT}/retry.ts`)).toEqual([
			`nodes/shared/probe.ts imports ${TRANSPORT}/retry.ts`,
		]);
		expect(probe('test/nodes/probe.test.ts', `${TRANSPORT}/pages.ts`)).toHaveLength(1);
		expect(probe('nodes/shared/probe.ts', TRANSPORT_DOOR)).toEqual([]);
		// The one exception: the transport's own tests reach the file they test.
		expect(probe(`${TRANSPORT_TESTS}/retry.test.ts`, `${TRANSPORT}/retry.ts`)).toEqual([]);
	});

	it('keeps each node in its folder: no node imports another, shared code imports no node', () => {
		// nodes/<Node>/...: the node's folder; nodes/shared/...: what the three share.
		const folderOf = (file: string) => file.split('/')[1];
		const sideways = (files: Map<string, ModuleImports>) =>
			[...files]
				.filter(([file]) => file.startsWith('nodes/'))
				.flatMap(([file, imports]) =>
					imports.files
						.filter((target) => target.startsWith('nodes/'))
						.filter((target) => {
							const [from, to] = [folderOf(file), folderOf(target)];
							return from !== to && to !== 'shared';
						})
						.map((target) => `${file} imports ${target}`),
				);
		expect(sideways(graph)).toEqual([]);
		const probe = (file: string, target: string) =>
			sideways(new Map([[file, { files: [target], packages: [], unresolved: [] }]]));
		expect(probe('nodes/PublicEventsTrigger/a.ts', 'nodes/PublicEventsPollTrigger/b.ts')).toEqual([
			'nodes/PublicEventsTrigger/a.ts imports nodes/PublicEventsPollTrigger/b.ts',
		]);
		expect(probe('nodes/shared/a.ts', 'nodes/PublicEvents/b.ts')).toHaveLength(1);
		expect(probe('nodes/PublicEvents/a.ts', 'nodes/shared/b.ts')).toEqual([]);
	});

	it('keeps bench/ and test/ apart (both may use a shared harness and scripts/)', () => {
		const crossing: string[] = [];
		for (const [file, imports] of graph)
			for (const target of imports.files)
				if (
					(under('bench')(file) && under('test')(target)) ||
					(under('test')(file) && under('bench')(target))
				)
					crossing.push(`${file} imports ${target}`);
		expect(crossing).toEqual([]);
	});
});
