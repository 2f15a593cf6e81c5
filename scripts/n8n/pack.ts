/** Builds and packs this package as a user installs it, for n8n to load as a custom extension. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { runToFiles, type RunResult } from './process';

export const REPO_ROOT = resolve(__dirname, '..', '..');
/** Node types of a package loaded through N8N_CUSTOM_EXTENSIONS are named `CUSTOM.<name>`. */
export const TYPE_PREFIX = 'CUSTOM.';

function npm(args: string[], cwd: string): Promise<RunResult> {
	return runToFiles('npm', args, { cwd, env: process.env, timeoutMs: 300_000 });
}

export interface PackedPackage {
	/** the folder to give N8N_CUSTOM_EXTENSIONS; holds `package/` as `npm pack` lays it out */
	extensionsDir: string;
	packageDir: string;
	cleanup(): void;
}

/**
 * Builds the package (unless `build: false`), packs it and unpacks the tarball into a temp
 * folder, so n8n loads exactly the files that ship. Checks that the node and credential files
 * in the tarball are the ones package.json's `n8n` section lists.
 */
export async function packPackage(root = REPO_ROOT, { build = true } = {}): Promise<PackedPackage> {
	if (build) {
		const built = await npm(['run', 'build'], root);
		if (built.code !== 0) throw new Error(`npm run build failed:\n${built.stdout}\n${built.stderr}`);
	}
	const extensionsDir = mkdtempSync(join(tmpdir(), 'pe-e2e-ext-'));
	const cleanup = () => rmSync(extensionsDir, { recursive: true, force: true });
	try {
		const packed = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', extensionsDir], root);
		if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
		const [{ filename, files }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
			filename: string;
			files: Array<{ path: string }>;
		}>;
		const tarball = join(extensionsDir, filename);
		const untar = await runToFiles('tar', ['-xzf', tarball], { cwd: extensionsDir });
		if (untar.code !== 0) throw new Error(`tar failed: ${untar.stderr}`);
		rmSync(tarball);
		const packageDir = join(extensionsDir, 'package');
		const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
			n8n?: { nodes?: string[]; credentials?: string[] };
		};
		// n8n loads a custom extension by globbing *.node.js / *.credentials.js, but a user's
		// install loads what package.json lists: both sets must be the same.
		const listed = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].map((f) => f.replace(/^\.\//, ''));
		const shipped = files.map((f) => f.path).filter((f) => /\.(node|credentials)\.js$/.test(f));
		const missing = listed.filter((file) => !existsSync(join(packageDir, file)));
		const unlisted = shipped.filter((file) => !listed.includes(file));
		if (listed.length === 0 || missing.length > 0 || unlisted.length > 0) {
			throw new Error(
				`package.json's n8n section lists ${listed.length} files; missing from the tarball: [${missing.join(', ')}]; shipped but not listed: [${unlisted.join(', ')}]`,
			);
		}
		return { extensionsDir, packageDir, cleanup };
	} catch (error) {
		cleanup();
		throw error;
	}
}

/** Rewrites community-package node types (`n8n-nodes-public-events.x`) to `CUSTOM.x`. */
export function toCustomTypes<T extends { nodes: Array<{ type: string }> }>(workflow: T): T {
	return {
		...workflow,
		nodes: workflow.nodes.map((n) => ({ ...n, type: n.type.replace(/^n8n-nodes-public-events\./, TYPE_PREFIX) })),
	};
}
