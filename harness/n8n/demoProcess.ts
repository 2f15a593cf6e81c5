/**
 * `npm run demo` started as a user starts it (any free ports), what it prints read back, and a
 * hard stop for a test that failed before its own Ctrl+C. Shared by the demo and journeys suites.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

import { REPO_ROOT } from '../../scripts/n8n/instance';
import { until } from '../sandbox/push';

/** What the demo printed once ready. */
export interface DemoPrinted {
	editor: string;
	email: string;
	password: string;
	/** The service address, without /api/v2. */
	sandbox: string;
	dataFolder: string;
}

/**
 * Pids whose environment names `folder` (n8n runs with N8N_USER_FOLDER=<its data folder>). Linux
 * /proc.
 */
export function processesUsing(folder: string): number[] {
	return readdirSync('/proc')
		.filter((entry) => /^\d+$/.test(entry))
		.filter((pid) => {
			try {
				return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`=${folder}\0`);
			} catch {
				return false;
			}
		})
		.map(Number);
}

export class DemoProcess {
	private text = '';
	/** The exit code, or the signal: npm re-raises SIGINT on itself once the demo has exited. */
	readonly exited: Promise<number | string | null>;
	printed?: DemoPrinted;

	private constructor(readonly child: ChildProcess) {
		child.stdout!.on('data', (d: Buffer) => (this.text += d.toString()));
		child.stderr!.on('data', (d: Buffer) => (this.text += d.toString()));
		this.exited = new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal)));
	}

	/** Everything printed so far. */
	get output(): string {
		return this.text;
	}

	/** Starts the demo in a process group of its own and waits until it says it is ready. */
	static async start(): Promise<DemoProcess & { printed: DemoPrinted }> {
		// Any free ports: a developer's own sandbox or n8n may hold 4010 and 5678.
		const child = spawn(
			'npx',
			['tsx', 'scripts/demo.ts', '--sandbox-port', '0', '--n8n-port', '0'],
			{ cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		const demo = new DemoProcess(child);
		let gone = false;
		void demo.exited.then(() => (gone = true));
		await until(
			async () => gone || demo.output.includes('Ctrl+C stops'),
			'the demo to be ready',
			10 * 60_000,
		);
		demo.printed = {
			editor: demo.field(/n8n editor\s+(http:\S+)/),
			email: demo.field(/login\s+(\S+@\S+)/),
			password: demo.field(/login\s+\S+\s+\/\s+(\S+)/),
			sandbox: demo.field(/sandbox\s+(http:\S+)\/api\/v2/),
			dataFolder: demo.field(/n8n's log: (\S+?)\/? /),
		};
		return demo as DemoProcess & { printed: DemoPrinted };
	}

	/**
	 * The first group `pattern` matches in the output; throws with the output when it printed no such
	 * line.
	 */
	field(pattern: RegExp): string {
		const match = pattern.exec(this.text);
		if (!match) throw new Error(`the demo did not print ${pattern}:\n${this.text}`);
		return match[1];
	}

	get running(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	/** Logs in with the printed account; returns the n8n-auth cookie's value. */
	async login(): Promise<string> {
		const { editor, email, password } = this.printed!;
		const login = await fetch(`${editor}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: email, password }),
		});
		if (login.status !== 200)
			throw new Error(`login with the printed account: ${login.status} ${await login.text()}`);
		return /n8n-auth=([^;]+)/.exec(login.headers.getSetCookie().join('; '))![1];
	}

	/**
	 * Ctrl+C as a terminal sends it (the demo then removes its folders); whatever is left after 30 s
	 * is killed.
	 */
	async stop(): Promise<void> {
		if (!this.child.pid || !this.running) return;
		process.kill(-this.child.pid, 'SIGINT');
		await Promise.race([
			this.exited,
			new Promise((resolve) => setTimeout(resolve, 30_000).unref()),
		]);
		if (this.running) return this.kill();
		for (const pid of this.printed ? processesUsing(this.printed.dataFolder) : [])
			process.kill(pid, 'SIGKILL');
	}

	/**
	 * SIGKILL to its process group and to whatever runs on its data folder (n8n's task runners too).
	 */
	kill(): void {
		if (!this.child.pid || !this.running) return;
		for (const pid of [
			-this.child.pid,
			...(this.printed ? processesUsing(this.printed.dataFolder) : []),
		]) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// gone already
			}
		}
	}
}

/** A client of n8n's REST API, signed in with `cookie`. */
export function restClient(editor: string, cookie: string) {
	return async function rest(method: string, path: string, body?: unknown): Promise<any> {
		const res = await fetch(`${editor}/rest${path}`, {
			method,
			headers: { cookie: `n8n-auth=${cookie}`, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
		return (JSON.parse(text) as { data: unknown }).data;
	};
}
