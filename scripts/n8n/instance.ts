/**
 * Runs a REAL n8n (env N8N_VERSION, default 2.40.7 on Node 24; 1.123.81 runs on Node 22;
 * each installed once outside the repo by scripts/n8n/install.ts) with this package installed
 * as a community package (see pack.ts), through n8n's CLI: import credentials and workflows,
 * execute, export. docs/compatibility.md has the versions.
 */
import { spawn } from 'node:child_process';
import {
	closeSync,
	mkdtempSync,
	openSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { installN8n, N8N_VERSION, type N8nInstall } from './install';
import { finishedWork, logLines, parseRawOutput } from './output';
import { installCommunityPackage, type PackedPackage } from './pack';
import { freePort, killGroup, runToFiles, type RunResult } from './process';
import { N8nServer } from './server';

export { finishedWork, logLines, nodeOutput, parseRawOutput, type LogLine } from './output';
export {
	installCommunityPackage,
	PACKAGE_NAME,
	packPackage,
	REPO_ROOT,
	type PackedPackage,
} from './pack';
export { runToFiles, type RunResult } from './process';
export { DEFAULT_N8N_VERSION, N8N_VERSION, type N8nInstall } from './install';
export { N8nServer } from './server';

/** The package's API credential as `n8n import:credentials` (and n8n's REST API) takes it. */
export function apiCredential(
	ref: { id: string; name: string },
	baseUrl: string,
	apiKey: string,
	environment = 'staging',
) {
	return { ...ref, type: 'publicEventsApi', data: { environment, baseUrl, apiKey } };
}

const installing = new Map<string, Promise<N8nInstall>>();

/**
 * The cached install of `version`, installing it first when missing (minutes, once per machine).
 */
export function ensureN8n(version = N8N_VERSION): Promise<N8nInstall> {
	let install = installing.get(version);
	if (!install) installing.set(version, (install = installN8n(undefined, version)));
	return install;
}

/** The major version of an install (1 or 2): what a test checks before using a 2.x-only feature. */
export function n8nMajor(install: N8nInstall): number {
	return Number(install.n8nVersion.split('.')[0]);
}

export interface N8nInstanceOptions {
	/** installed into this instance's own nodes folder; without it n8n runs without the package */
	packed?: PackedPackage;
	install?: N8nInstall;
	env?: Record<string, string>;
}

/** What each n8n process prints once it is ready. */
const READY = {
	start: 'Editor is now accessible',
	worker: 'n8n worker is now ready',
	webhook: 'Webhook listener waiting for requests',
};

/**
 * One n8n user folder (its own SQLite database, unless `env` names another, and its own nodes
 * folder), driven through n8n's CLI. In queue mode each process gets its own instance, as
 * separate machines would.
 */
export class N8nInstance {
	readonly userFolder: string;
	/** where n8n keeps its files (`<N8N_USER_FOLDER>/.n8n`): config, nodes/, the SQLite database */
	readonly n8nFolder: string;
	private readonly env: NodeJS.ProcessEnv;
	private readonly pids = new Set<number>();
	private files = 0;
	/** Everything n8n printed, CLI runs and server alike: what the secrets scan reads. */
	private readonly printed: string[] = [];

	private constructor(
		readonly install: N8nInstall,
		extraEnv: Record<string, string>,
	) {
		// Its real path: n8n 2.x checks files against ~/.n8n-files without resolving links (macOS's
		// temp folder is one), and would refuse every write.
		this.userFolder = realpathSync(mkdtempSync(join(tmpdir(), 'pe-e2e-n8n-')));
		this.n8nFolder = join(this.userFolder, '.n8n');
		this.env = {
			PATH: process.env.PATH,
			HOME: this.userFolder,
			TZ: 'UTC',
			N8N_USER_FOLDER: this.userFolder,
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

	static async create(options: N8nInstanceOptions = {}): Promise<N8nInstance> {
		const n8n = new N8nInstance(options.install ?? (await ensureN8n()), options.env ?? {});
		try {
			if (options.packed) await installCommunityPackage(options.packed, n8n.n8nFolder);
		} catch (error) {
			n8n.cleanup();
			throw error;
		}
		return n8n;
	}

	/**
	 * `n8n <args>` on the install's Node; throws with n8n's log when it exits non-zero (unless
	 * `check: false`).
	 */
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
		this.printed.push(result.stdout, result.stderr);
		if (result.signal) {
			killGroup(pid); // its task runner outlives it
			if (finishedWork(args, result.stdout)) {
				console.warn(
					`[n8n-e2e] n8n ${args[0]} died of ${result.signal} after ` +
						`it had done its work; result kept (see finishedWork)`,
				);
				return result;
			}
		}
		if (check && result.code !== 0) {
			// warnings and errors only: the info lines include the whole run JSON
			const log = logLines(result.stdout)
				.filter((l) => l.level !== 'info' && l.level !== 'debug')
				.map((l) => `${l.level}: ${l.message}`)
				.join('\n');
			throw new Error(
				`n8n ${args.join(' ')} exited ${result.signal ?? result.code}\n--- ` +
					`log\n${log.slice(-6000)}\n--- stderr\n${result.stderr.slice(-3000)}`,
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

	/** Several workflows in one CLI run (each run costs seconds of n8n start-up). */
	async importWorkflows(workflows: Array<{ id: string } & object>): Promise<void> {
		if (workflows.length === 0) return;
		await this.cli(['import:workflow', `--input=${this.writeJson('workflows', workflows)}`]);
	}

	/**
	 * Runs a workflow once (`n8n execute --rawOutput`): the run JSON n8n prints; throws unless it
	 * succeeded.
	 */
	async execute(workflowId: string): Promise<any> {
		const { stdout } = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput']);
		return parseRawOutput(stdout);
	}

	/**
	 * Like execute, but a failed run is returned too (n8n prints it, then exits 1): check `status`.
	 */
	async executeAllowingFailure(workflowId: string): Promise<any> {
		const { stdout } = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], {
			check: false,
		});
		return parseRawOutput(stdout);
	}

	async exportCredentials(): Promise<any[]> {
		const file = join(this.userFolder, `${++this.files}-export.json`);
		await this.cli(['export:credentials', '--all', '--decrypted', `--output=${file}`]);
		return JSON.parse(readFileSync(file, 'utf8')) as any[];
	}

	/**
	 * `n8n start` (or, in queue mode, `worker` / `webhook`) on a free loopback port (or `port`):
	 * resolves once the process says it is ready (`/healthz` answers earlier, so it waits for the
	 * log line: for `start`, the editor and the active workflows' webhooks are served).
	 */
	async start({
		port,
		timeoutMs = 120_000,
		command = 'start',
		args = [],
	}: {
		port?: number;
		timeoutMs?: number;
		command?: keyof typeof READY;
		args?: string[];
	} = {}): Promise<N8nServer> {
		const listenPort = port ?? (await freePort());
		const logFile = join(this.userFolder, `${++this.files}-${command}.log`);
		const fd = openSync(logFile, 'w');
		const child = spawn(this.install.node, [this.install.n8nBin, command, ...args], {
			cwd: this.userFolder,
			env: {
				...this.env,
				N8N_PORT: String(listenPort),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_HOST: '127.0.0.1',
				// plain http on loopback: the auth cookie must not be marked Secure
				N8N_SECURE_COOKIE: 'false',
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			},
			stdio: ['ignore', fd, fd],
			detached: true,
		});
		closeSync(fd);
		const pid = child.pid ?? 0;
		this.pids.add(pid);
		const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
		const server = new N8nServer(`http://127.0.0.1:${listenPort}`, logFile, async () => {
			if (!this.pids.delete(pid)) return;
			try {
				process.kill(-pid, 'SIGTERM');
			} catch {
				return;
			}
			const timer = setTimeout(() => killGroup(pid), 10_000);
			await exited;
			clearTimeout(timer);
			this.printed.push(server.log());
		});
		const deadline = Date.now() + timeoutMs;
		let gone: number | null | undefined;
		void exited.then((code) => (gone = code));
		while (!server.log().includes(READY[command])) {
			if (gone !== undefined || Date.now() > deadline) {
				await server.stop();
				throw new Error(
					`n8n ${command} ${gone !== undefined ? `exited ${gone}` : 'timed out'}` +
						`\n${server.log().slice(-6000)}`,
				);
			}
			await new Promise((r) => setTimeout(r, 250));
		}
		return server;
	}

	/** All that n8n printed so far (CLI runs and stopped servers), for scans such as secrets. */
	printedText(): string {
		return this.printed.join('\n');
	}

	/** Kills any CLI run still going (by its pid) and removes the user folder. */
	cleanup(): void {
		this.pids.forEach(killGroup);
		this.pids.clear();
		rmSync(this.userFolder, { recursive: true, force: true });
	}
}
