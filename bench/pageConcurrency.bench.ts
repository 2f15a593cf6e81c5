import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import { PublicEventsApi } from '../credentials/PublicEventsApi.credentials';
import { CredentialStore, runNode } from '../harness/engine';
import { TransportProbe } from '../harness/engine/transportProbe';

/**
 * Should Return All fetch pages in parallel once the total is known? Reads 20,000 places
 * (200 pages, hydra envelope) through n8n-core with 1, 2 and 4 pages in flight, the sandbox
 * in its own process, and prints each time as a ratio to the sequential one measured in the same
 * run.
 */
const PLACES = 20_000;
const ROUNDS = 5;

async function main() {
	const child = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			'sandbox/cli.ts',
			'--port',
			'0',
			'--big-event-places',
			String(PLACES),
			'--envelope',
			'hydra',
			'--rate-limit',
			'1000000',
		],
		{
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const first = JSON.parse(
		await new Promise<string>((resolve) =>
			createInterface({ input: child.stdout! }).once('line', resolve),
		),
	);
	try {
		const store = new CredentialStore([new PublicEventsApi()]);
		store.add('publicEventsApi', {
			environment: 'staging',
			baseUrl: first.baseUrl,
			apiKey: first.keys.partner,
		});
		const run = async (concurrency: number) => {
			const started = process.hrtime.bigint();
			const parameters = {
				path: '/event-points/1001/places',
				allPages: true,
				maxPagesInFlight: concurrency,
			};
			const { items, error } = await runNode({
				nodeType: new TransportProbe(),
				type: 'CUSTOM.transportProbe',
				credentials: store,
				parameters,
			});
			if (error || items.length !== PLACES) throw error ?? new Error(`got ${items.length} places`);
			return Number(process.hrtime.bigint() - started) / 1e6;
		};
		await run(1); // token and warm-up
		const levels = [1, 2, 4];
		const times: Record<number, number[]> = { 1: [], 2: [], 4: [] };
		for (let round = 0; round < ROUNDS; round++)
			for (const level of levels) times[level].push(await run(level));
		const median = (values: number[]) =>
			[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
		for (const level of levels) {
			console.log(
				`${level} page(s) in flight: time ratio to sequential ` +
					`${(median(times[level]) / median(times[1])).toFixed(2)}`,
			);
		}
	} finally {
		child.kill();
	}
}

void main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
