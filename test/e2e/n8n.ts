/**
 * Runs a REAL n8n (2.40.7 on Node 24, installed once outside the repo by
 * scripts/e2e/installN8n.ts) with this package loaded as a custom extension, through n8n's
 * CLI: import credentials and workflows, execute, export. DESIGN.md section 5 has the facts.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { installN8n, type N8nInstall } from '../../scripts/e2e/installN8n';
import { logLines, parseRawOutput } from './n8nOutput';

export { logLines, nodeOutput, parseRawOutput, type LogLine } from './n8nOutput';

export const REPO_ROOT = resolve(__dirname, '..', '..');
/** Node types of a package loaded through N8N_CUSTOM_EXTENSIONS are named `CUSTOM.<name>`. */
export const TYPE_PREFIX = 'CUSTOM.';

let installing: Promise<N8nInstall> | undefined;

/** The cached install, installing it first when missing (minutes, once per machine). */
export function ensureN8n(): Promise<N8nInstall> {
	installing ??= installN8n();
	return installing;
}

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/**
 * Runs a command with stdout and stderr going to FILES: n8n can exit before a pipe is
 * drained, which cuts a large --rawOutput JSON short.
 */
export async function runToFiles(
	cmd: string,
	args: string[],
	opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; onSpawn?: (pid: number) => void },
): Promise<RunResult> {
	const dir = mkdtempSync(join(tmpdir(), 'pe-run-'));
	const outFd = openSync(join(dir, 'stdout'), 'w');
	const errFd = openSync(join(dir, 'stderr'), 'w');
	try {
		const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
			(done, fail) => {
				// Its own process group: killing the group also ends n8n's task-runner child.
				const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', outFd, errFd], detached: true });
				if (child.pid) opts.onSpawn?.(child.pid);
				const timer = setTimeout(() => killGroup(child.pid), opts.timeoutMs ?? 180_000);
				child.on('error', (err) => {
					clearTimeout(timer);
					fail(err);
				});
				child.on('exit', (c, s) => {
					clearTimeout(timer);
					done({ code: c, signal: s });
				});
			},
		);
		return {
			code,
			signal,
			stdout: readFileSync(join(dir, 'stdout'), 'utf8'),
			stderr: readFileSync(join(dir, 'stderr'), 'utf8'),
		};
	} finally {
		closeSync(outFd);
		closeSync(errFd);
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Kills a process group this harness started (see runToFiles). */
function killGroup(pid: number | undefined): void {
	if (!pid) return;
	try {
		process.kill(-pid, 'SIGKILL');
	} catch {
		// already gone
	}
}

/** A free loopback port (n8n's task broker otherwise takes 5679, clashing with any other n8n). */
function freePort(): Promise<number> {
	return new Promise((done, fail) => {
		const server = createServer();
		server.once('error', fail);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			server.close(() => done(port));
		});
	});
}

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

export interface N8nInstanceOptions {
	extensionsDir: string;
	install?: N8nInstall;
	env?: Record<string, string>;
}

/** One n8n user folder (its own SQLite database), driven through n8n's CLI. */
export class N8nInstance {
	readonly userFolder: string;
	private readonly env: NodeJS.ProcessEnv;
	private readonly pids = new Set<number>();
	private files = 0;

	private constructor(
		readonly install: N8nInstall,
		extensionsDir: string,
		extraEnv: Record<string, string>,
	) {
		this.userFolder = mkdtempSync(join(tmpdir(), 'pe-e2e-n8n-'));
		this.env = {
			PATH: process.env.PATH,
			HOME: this.userFolder,
			TZ: 'UTC',
			N8N_USER_FOLDER: this.userFolder,
			N8N_CUSTOM_EXTENSIONS: extensionsDir,
			N8N_ENCRYPTION_KEY: 'e2e-encryption-key-not-secret',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			// (No N8N_RUNNERS_ENABLED: 2.40.7 always starts its task runners and warns that the
			// variable is deprecated.)
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
			// --rawOutput prints the run at level info, so not 'warn'; JSON lines keep it apart
			// from the other log lines.
			N8N_LOG_LEVEL: 'info',
			N8N_LOG_FORMAT: 'json',
			NO_COLOR: '1',
			// The sandbox is on loopback: never send it through a proxy.
			NO_PROXY: '127.0.0.1,localhost,::1',
			...extraEnv,
		};
	}

	static async create(options: N8nInstanceOptions): Promise<N8nInstance> {
		return new N8nInstance(options.install ?? (await ensureN8n()), options.extensionsDir, options.env ?? {});
	}

	/** `n8n <args>` on Node 24; throws with n8n's log when it exits non-zero (unless `check: false`). */
	async cli(args: string[], { timeoutMs = 180_000, check = true } = {}): Promise<RunResult> {
		let pid = 0;
		const env = { ...this.env, N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
		const result = await runToFiles(this.install.node, [this.install.n8nBin, ...args], {
			cwd: this.userFolder,
			env,
			timeoutMs,
			onSpawn: (p) => this.pids.add((pid = p)),
		});
		this.pids.delete(pid);
		if (check && result.code !== 0) {
			// warnings and errors only: the info lines include the whole run JSON
			const log = logLines(result.stdout)
				.filter((l) => l.level !== 'info' && l.level !== 'debug')
				.map((l) => `${l.level}: ${l.message}`)
				.join('\n');
			throw new Error(
				`n8n ${args.join(' ')} exited ${result.signal ?? result.code}\n--- log\n${log.slice(-6000)}\n--- stderr\n${result.stderr.slice(-3000)}`,
			);
		}
		return result;
	}

	private writeJson(name: string, data: unknown): string {
		const file = join(this.userFolder, `${++this.files}-${name}.json`);
		writeFileSync(file, JSON.stringify(data, null, 2));
		return file;
	}

	/** Credentials as `n8n export:credentials --decrypted` shows them: `{ id, name, type, data }`. */
	async importCredentials(credentials: object[]): Promise<void> {
		await this.cli(['import:credentials', `--input=${this.writeJson('credentials', credentials)}`]);
	}

	/** A workflow JSON carrying its own `id` (what `execute --id` takes). */
	async importWorkflow(workflow: { id: string } & object): Promise<void> {
		await this.cli(['import:workflow', `--input=${this.writeJson('workflow', workflow)}`]);
	}

	/** Runs a workflow once (`n8n execute --rawOutput`): the run JSON n8n prints; throws unless it succeeded. */
	async execute(workflowId: string): Promise<any> {
		const { stdout } = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput']);
		return parseRawOutput(stdout);
	}

	/** Like execute, but a failed run is returned too (n8n prints it, then exits 1): check `status`. */
	async executeAllowingFailure(workflowId: string): Promise<any> {
		const { stdout } = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], { check: false });
		return parseRawOutput(stdout);
	}

	async exportCredentials(): Promise<any[]> {
		const file = join(this.userFolder, `${++this.files}-export.json`);
		await this.cli(['export:credentials', '--all', '--decrypted', `--output=${file}`]);
		return JSON.parse(readFileSync(file, 'utf8')) as any[];
	}

	/** Kills any CLI run still going (by its pid) and removes the user folder. */
	cleanup(): void {
		this.pids.forEach(killGroup);
		this.pids.clear();
		rmSync(this.userFolder, { recursive: true, force: true });
	}
}
