import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The repository root (this file lives in test/repository/). */
export const ROOT = resolve(__dirname, '..', '..');

/** One module's imports: relative ones resolved to repo paths, bare ones as written. */
export interface ModuleImports {
	/** Repo-relative paths with `/`, e.g. `sandbox/app.ts`. */
	files: string[];
	/** Package names and builtins, e.g. `n8n-workflow`, `node:http`. */
	packages: string[];
	/** Relative specifiers that name no file: a typo, or a file the parser misread. */
	unresolved: string[];
}

const SKIP = new Set(['node_modules', 'dist']);

/** Every .ts file of the repository, repo-relative, build output and dependencies left out. */
export function tsFiles(dir = ROOT): string[] {
	const found: string[] = [];
	for (const name of readdirSync(dir)) {
		if (name.startsWith('.') || SKIP.has(name)) continue;
		const path = join(dir, name);
		if (statSync(path).isDirectory()) found.push(...tsFiles(path));
		else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(toRepoPath(path));
	}
	return found.sort();
}

const toRepoPath = (path: string) => relative(ROOT, path).split(sep).join('/');

// Comments go first so an example in a doc comment is not read as an import. Line comments
// only at the start of a line: `//` inside a string (a URL) must stay.
const COMMENTS = /\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm;
const SPECIFIERS = [
	// import x from '…', import { a, b } from '…' (over lines), export … from '…'; statements
	// start a line (prettier), which keeps out `import` inside a string such as '--import'
	/^\s*(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/gm,
	// import '…' (for its effects)
	/^\s*import\s*['"]([^'"]+)['"]/gm,
	// import('…'), require('…'), typeof import('…')
	/\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];
const EXTENSIONS = ['', '.ts', '.js', '.mjs', '.json', '/index.ts'];

export function specifiers(source: string): string[] {
	const code = source.replace(COMMENTS, '');
	const found = new Set<string>();
	for (const pattern of SPECIFIERS) for (const m of code.matchAll(pattern)) found.add(m[1]);
	return [...found];
}

export function readImports(file: string): ModuleImports {
	const result: ModuleImports = { files: [], packages: [], unresolved: [] };
	for (const spec of specifiers(readFileSync(join(ROOT, file), 'utf8'))) {
		if (!spec.startsWith('.')) {
			result.packages.push(spec);
			continue;
		}
		const base = resolve(ROOT, dirname(file), spec);
		const hit = EXTENSIONS.map((ext) => base + ext).find(
			(path) => existsSync(path) && statSync(path).isFile(),
		);
		if (hit) result.files.push(toRepoPath(hit));
		else result.unresolved.push(spec);
	}
	return result;
}

export type Graph = Map<string, string[]>;

/** The import graph restricted to files for which `keep` holds (both ends). */
export function subgraph(all: Map<string, ModuleImports>, keep: (file: string) => boolean): Graph {
	const graph: Graph = new Map();
	for (const [file, imports] of all) if (keep(file)) graph.set(file, imports.files.filter(keep));
	return graph;
}

/** Files that import each other in a loop, and one such loop as `a -> b -> … -> a`. */
export interface Cycle {
	members: string[];
	path: string[];
}

/** One cycle per strongly connected component (Tarjan); empty when the graph has none. */
export function cycles(graph: Graph): Cycle[] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: Cycle[] = [];
	const visit = (node: string) => {
		index.set(node, index.size);
		low.set(node, index.get(node)!);
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node)!, low.get(next)!));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
		}
		if (low.get(node) !== index.get(node)) return;
		const component = new Set<string>();
		let member: string;
		do {
			member = stack.pop()!;
			onStack.delete(member);
			component.add(member);
		} while (member !== node);
		const selfLoop = (graph.get(node) ?? []).includes(node);
		if (component.size > 1 || selfLoop)
			found.push({ members: [...component].sort(), path: cycleThrough(graph, node, component) });
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return found;
}

/** A shortest path from `start` back to itself inside its component. */
function cycleThrough(graph: Graph, start: string, component: Set<string>): string[] {
	const previous = new Map<string, string>();
	const queue = [start];
	while (queue.length > 0) {
		const node = queue.shift()!;
		for (const next of graph.get(node) ?? []) {
			if (!component.has(next)) continue;
			if (next === start) {
				const path = [start];
				for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
				return [...path, start];
			}
			if (!previous.has(next)) {
				previous.set(next, node);
				queue.push(next);
			}
		}
	}
	return [start, start];
}
