/** Child processes for the real-n8n harness: output to files, process groups, free ports. */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
	opts: {
		cwd: string;
		env?: NodeJS.ProcessEnv;
		timeoutMs?: number;
		onSpawn?: (pid: number) => void;
	},
): Promise<RunResult> {
	const dir = mkdtempSync(join(tmpdir(), 'pe-run-'));
	const outFd = openSync(join(dir, 'stdout'), 'w');
	const errFd = openSync(join(dir, 'stderr'), 'w');
	try {
		const { code, signal } = await new Promise<{
			code: number | null;
			signal: NodeJS.Signals | null;
		}>((done, fail) => {
			// Its own process group: killing the group also ends n8n's task-runner child.
			const child = spawn(cmd, args, {
				cwd: opts.cwd,
				env: opts.env,
				stdio: ['ignore', outFd, errFd],
				detached: true,
			});
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
		});
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
export function killGroup(pid: number | undefined): void {
	if (!pid) return;
	try {
		process.kill(-pid, 'SIGKILL');
	} catch {
		// already gone
	}
}

/** A free loopback port (n8n's task broker otherwise takes 5679, clashing with any other n8n). */
export function freePort(): Promise<number> {
	return new Promise((done, fail) => {
		const server = createServer();
		server.once('error', fail);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			server.close(() => done(port));
		});
	});
}
