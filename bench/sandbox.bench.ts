import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

/**
 * Sandbox throughput: pages of 100 places served per second by the sandbox, against a bare
 * node:http server answering the same pre-built JSON, measured in the same run. Each server
 * runs in its own process; one undici client drives both with the same concurrency.
 * Target: sandbox / bare >= 0.5, so later benchmarks measure the client, not the sandbox.
 */
const PLACES = 50_000;
const PAGES = PLACES / 100;
const CONNECTIONS = 8;
const ROUNDS = 3;
const REQUESTS_PER_ROUND = 2_000;
const TARGET = 0.5;

function startProcess(args: string[]): Promise<{ child: ChildProcess; first: any }> {
	const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`${args[0]} did not start in 30 s`)), 30_000);
		createInterface({ input: child.stdout! }).once('line', (line) => {
			clearTimeout(timer);
			resolve({ child, first: JSON.parse(line) });
		});
		child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
	});
}

async function measure(
	origin: string,
	token: string,
): Promise<{ pagesPerSecond: number; bytes: number }> {
	const pool = new Pool(origin, { connections: CONNECTIONS, pipelining: 1 });
	const headers = { authorization: `Bearer ${token}` };
	let next = 0;
	let bytes = 0;
	const started = process.hrtime.bigint();
	await Promise.all(
		Array.from({ length: CONNECTIONS }, async () => {
			while (next < REQUESTS_PER_ROUND) {
				const page = (next++ % PAGES) + 1;
				const res = await pool.request({
					method: 'GET',
					path: `/api/v2/event-points/1001/places?page=${page}&itemsPerPage=100`,
					headers,
				});
				const body = await res.body.arrayBuffer();
				if (res.statusCode !== 200) throw new Error(`page ${page}: ${res.statusCode}`);
				bytes += body.byteLength;
			}
		}),
	);
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	await pool.close();
	return { pagesPerSecond: REQUESTS_PER_ROUND / seconds, bytes };
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
	const dir = mkdtempSync(join(tmpdir(), 'pe-bench-'));
	const children: ChildProcess[] = [];
	try {
		const sandbox = await startProcess([
			'sandbox/cli.ts',
			'--port',
			'0',
			'--production-port',
			'0',
			'--events',
			'3',
			'--big-event-places',
			String(PLACES),
			'--rate-limit',
			'0',
		]);
		children.push(sandbox.child);
		const base = sandbox.first.baseUrl as string;
		const tokenRes = await fetch(`${base}/api/v2/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ apiKey: sandbox.first.keys.partner }),
		});
		const { token } = (await tokenRes.json()) as { token: string };

		// The baseline serves exactly the bytes the sandbox serves.
		const pages: string[] = [];
		for (let page = 1; page <= PAGES; page++) {
			const res = await fetch(
				`${base}/api/v2/event-points/1001/places?page=${page}&itemsPerPage=100`,
				{ headers: { authorization: `Bearer ${token}` } },
			);
			pages.push(await res.text());
		}
		writeFileSync(join(dir, 'pages.json'), JSON.stringify(pages));
		const bare = await startProcess(['bench/bareServer.ts', join(dir, 'pages.json')]);
		children.push(bare.child);
		const bareOrigin = `http://127.0.0.1:${bare.first.port}`;

		await measure(base, token); // warm-up both: JIT, connections
		await measure(bareOrigin, token);
		const sandboxRuns: number[] = [];
		const bareRuns: number[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			bareRuns.push((await measure(bareOrigin, token)).pagesPerSecond);
			sandboxRuns.push((await measure(base, token)).pagesPerSecond);
		}
		const ratio = median(sandboxRuns) / median(bareRuns);
		const pageKb = pages[0].length / 1024;
		console.log(
			`sandbox benchmark: GET /event-points/1001/places, pages of ` +
				`100 places (~${pageKb.toFixed(1)} KiB), ${CONNECTIONS} ` +
				`connections, ${REQUESTS_PER_ROUND} requests x ${ROUNDS} rounds`,
		);
		console.log(
			`  bare node:http  ${median(bareRuns).toFixed(0)} pages/s  ` +
				`(rounds: ${bareRuns.map((r) => r.toFixed(0)).join(', ')})`,
		);
		console.log(
			`  sandbox         ${median(sandboxRuns).toFixed(0)} pages/s  ` +
				`(rounds: ${sandboxRuns.map((r) => r.toFixed(0)).join(', ')})`,
		);
		console.log(
			`  ratio sandbox/bare = ${ratio.toFixed(2)} (target ` +
				`>= ${TARGET}): ${ratio >= TARGET ? 'met' : 'MISSED'}`,
		);
		process.exitCode = ratio >= TARGET ? 0 : 1;
	} finally {
		children.forEach((child) => child.kill('SIGTERM'));
		rmSync(dir, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
