/**
 * Builds and packs this package, and installs the tarball into an n8n folder as n8n's
 * community-package installer does (Settings > Community nodes), so every real-n8n test loads
 * it the way partners do: node types `n8n-nodes-public-events.<name>`, examples unchanged.
 */
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { runToFiles, type RunResult } from './process';

export const REPO_ROOT = resolve(__dirname, '..', '..');
/** The package's npm name: its node types are `<PACKAGE_NAME>.<node name>`. */
export const PACKAGE_NAME = 'n8n-nodes-public-events';

function npm(args: string[], cwd: string): Promise<RunResult> {
	return runToFiles('npm', args, { cwd, env: process.env, timeoutMs: 300_000 });
}

export interface PackedPackage {
	/** the `npm pack` tarball */
	tarball: string;
	name: string;
	version: string;
	cleanup(): void;
}

/** What `npm run build` reads: dist/ is rebuilt only when one of these changed since. */
const BUILD_INPUTS = ['nodes', 'credentials', 'package.json', 'tsconfig.json', 'gulpfile.js'];
/** Outside dist/, so the tarball never carries it. */
const BUILD_STAMP = join('node_modules', '.cache', 'n8n-nodes-public-events-build');

function newestInput(path: string): number {
	const stat = statSync(path);
	if (!stat.isDirectory()) return stat.mtimeMs;
	return readdirSync(path).reduce(
		(newest, entry) => Math.max(newest, newestInput(join(path, entry))),
		stat.mtimeMs,
	);
}

/** Whether dist/ was built by this function after every build input last changed. */
function builtUpToDate(root: string): boolean {
	const stamp = join(root, BUILD_STAMP);
	if (!existsSync(stamp) || !existsSync(join(root, 'dist'))) return false;
	const inputs = BUILD_INPUTS.map((input) => join(root, input)).filter((p) => existsSync(p));
	// The stamp holds when that build started: an input changed while it ran is newer.
	return Number(readFileSync(stamp, 'utf8')) > Math.max(...inputs.map(newestInput));
}

/**
 * Builds the package (unless `build: false`, or it was built since its sources last changed:
 * every e2e suite packs it, and one build serves them all) and packs it into a temp folder. Checks
 * that the node and credential files in the tarball are the ones package.json's `n8n` section
 * lists: n8n loads an installed package by that list.
 */
export async function packPackage(root = REPO_ROOT, { build = true } = {}): Promise<PackedPackage> {
	if (build && !builtUpToDate(root)) {
		const started = Date.now();
		const built = await npm(['run', 'build'], root);
		if (built.code !== 0)
			throw new Error(`npm run build failed:\n${built.stdout}\n${built.stderr}`);
		mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
		writeFileSync(join(root, BUILD_STAMP), String(started));
	}
	const dir = mkdtempSync(join(tmpdir(), 'pe-e2e-pack-'));
	const cleanup = () => rmSync(dir, { recursive: true, force: true });
	try {
		const packed = await npm(
			['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
			root,
		);
		if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
		const [{ filename, files, name, version }] = JSON.parse(
			packed.stdout.slice(packed.stdout.indexOf('[')),
		) as Array<{
			filename: string;
			name: string;
			version: string;
			files: Array<{ path: string }>;
		}>;
		const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
			n8n?: { nodes?: string[]; credentials?: string[] };
		};
		const listed = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].map((f) =>
			f.replace(/^\.\//, ''),
		);
		const shipped = files.map((f) => f.path);
		const missing = listed.filter((file) => !shipped.includes(file));
		const unlisted = shipped
			.filter((f) => /\.(node|credentials)\.js$/.test(f))
			.filter((file) => !listed.includes(file));
		if (listed.length === 0 || missing.length > 0 || unlisted.length > 0) {
			throw new Error(
				`package.json's n8n section lists ${listed.length} files; missing from the ` +
					`tarball: [${missing.join(', ')}]; shipped but not listed: [${unlisted.join(', ')}]`,
			);
		}
		return { tarball: join(dir, filename), name, version, cleanup };
	} catch (error) {
		cleanup();
		throw error;
	}
}

/** The npm install n8n's installer runs in the unpacked package (2.40.7 and 1.123.81 alike). */
const INSTALL_ARGS = [
	'install',
	'--audit=false',
	'--fund=false',
	'--bin-links=false',
	'--install-strategy=shallow',
	'--ignore-scripts=true',
	'--package-lock=false',
];

/**
 * Lays the package out in `<n8nFolder>/nodes` as n8n's installer does: the tarball unpacked
 * into `node_modules/<name>`, its dev, peer and optional dependencies dropped, npm install
 * without scripts run inside it, and the version noted in `nodes/package.json` (n8n's ledger of
 * installed packages). Every n8n process loads `nodes/node_modules/n8n-nodes-*` at start,
 * whether or not its database lists the package. Returns the package folder.
 */
export async function installCommunityPackage(
	packed: PackedPackage,
	n8nFolder: string,
): Promise<string> {
	const nodesDir = join(n8nFolder, 'nodes');
	const packageDir = join(nodesDir, 'node_modules', packed.name);
	mkdirSync(packageDir, { recursive: true });
	const untar = await runToFiles(
		'tar',
		['-xzf', packed.tarball, '-C', packageDir, '--strip-components=1'],
		{ cwd: nodesDir },
	);
	if (untar.code !== 0) throw new Error(`tar failed: ${untar.stderr}`);
	const manifest = join(packageDir, 'package.json');
	const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
	for (const section of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
		delete pkg[section];
	writeFileSync(manifest, JSON.stringify(pkg, null, 2));
	const installed = await npm(INSTALL_ARGS, packageDir);
	if (installed.code !== 0)
		throw new Error(`npm install in ${packageDir} failed:\n${installed.stderr}`);
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify(
			{ name: 'installed-nodes', private: true, dependencies: { [packed.name]: packed.version } },
			null,
			2,
		),
	);
	return packageDir;
}
