import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * The sandbox in a process of its own (so that its CPU is not the client's), driven through
 * its control surface at /__sandbox: counters, config, new events.
 */
export class SandboxProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly baseUrl: string,
		readonly keys: { partner: string; organiser: string },
	) {}

	get apiUrl() {
		return `${this.baseUrl}/api/v2`;
	}

	static start(args: string[]): Promise<SandboxProcess> {
		const child = spawn(
			process.execPath,
			['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--production-port', '0', ...args],
			{
				stdio: ['ignore', 'pipe', 'inherit'],
			},
		);
		return new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error('the sandbox did not start in 60 s')),
				60_000,
			);
			createInterface({ input: child.stdout! }).once('line', (line) => {
				clearTimeout(timer);
				const first = JSON.parse(line) as {
					baseUrl: string;
					keys: { partner: string; organiser: string };
				};
				resolve(new SandboxProcess(child, first.baseUrl, first.keys));
			});
			child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
		});
	}

	async admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await fetch(`${this.baseUrl}/__sandbox${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok)
			throw new Error(`${method} /__sandbox${path} answered ${res.status}: ${text.slice(0, 500)}`);
		return JSON.parse(text) as T;
	}

	/** Requests served so far, by "METHOD route" (e.g. "GET /event-points/{id}/places"). */
	async counters(): Promise<Record<string, number>> {
		return (await this.admin<{ counters: Record<string, number> }>('GET', '/counters')).counters;
	}

	/** A fresh token for the partner key (counted by the sandbox like any other). */
	async token(): Promise<string> {
		const res = await fetch(`${this.apiUrl}/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ apiKey: this.keys.partner }),
		});
		return ((await res.json()) as { token: string }).token;
	}

	/** A new event point visible to the partner key, with `places` places; its id. */
	async createEvent(places: number): Promise<number> {
		return (
			await this.admin<{ id: number }>('POST', '/events', { places, name: `Bench hall ${places}` })
		).id;
	}

	stop(): void {
		this.child.kill('SIGTERM');
	}
}

/** How many requests of each kind were served between two counter snapshots. */
export function countersDelta(
	before: Record<string, number>,
	after: Record<string, number>,
): Record<string, number> {
	const delta: Record<string, number> = {};
	for (const [key, value] of Object.entries(after)) {
		const d = value - (before[key] ?? 0);
		if (d !== 0) delta[key] = d;
	}
	return delta;
}

export const total = (counts: Record<string, number>) =>
	Object.values(counts).reduce((a, b) => a + b, 0);
