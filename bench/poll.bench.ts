import type { IDataObject } from 'n8n-workflow';

import { PollSession } from '../harness/engine';
import { credentialFor, mark, since } from '../harness/nodes/publicEvents';
import { SandboxClient } from '../harness/sandbox/client';
import { recordSummary, table, type SummaryRow } from '../harness/bench/report';

/**
 * Benchmark 3: requests per poll of the Poll Trigger (Sales and Refunds), through n8n-core's
 * poll machinery (the engine harness) against the sandbox: one feed (Widget Sales) and all
 * feeds (widget sales and refunds, and the orders of each of the EVENTS visible events).
 * Target: a poll with nothing new costs one request per source.
 */
const EVENTS = 6;
// tsx resolves `….node` to the node's codex file (….node.json) first: name the .ts file.
const NODE_FILE = '../nodes/PublicEventsPollTrigger/PublicEventsPollTrigger.node.ts';
const SALES = 100;

interface Poll {
	label: string;
	requests: number;
	emitted: number;
	routes: string;
}

async function measure(
	sb: SandboxClient,
	name: string,
	parameters: IDataObject,
): Promise<{ sources: number; polls: Poll[] }> {
	const { store } = credentialFor(sb);
	const { PublicEventsPollTrigger } = (await import(
		NODE_FILE
	)) as typeof import('../nodes/PublicEventsPollTrigger/PublicEventsPollTrigger.node');
	const trigger = new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters,
		credentials: store,
	});
	const polls: Poll[] = [];
	const poll = async (label: string) => {
		const before = await mark(sb);
		const result = await trigger.poll();
		if (result.error) throw result.error;
		const log = (await since(sb, before)).filter((e) => !e.route.startsWith('/__sandbox'));
		const routes = new Map<string, number>();
		for (const e of log)
			routes.set(`${e.method} ${e.route}`, (routes.get(`${e.method} ${e.route}`) ?? 0) + 1);
		polls.push({
			label,
			requests: log.length,
			emitted: result.items.length,
			routes: [...routes].map(([route, n]) => `${n} x ${route}`).join(', '),
		});
		return result;
	};
	await poll('activation (first poll: what is there is history)');
	await poll('quiet (nothing new)');
	for (let i = 0; i < SALES; i++)
		await sb.admin('POST', '/widget-orders', { company: 'partner', tickets: 1 });
	const sold = await poll(`${SALES} new widget sales`);
	if (sold.items.length !== SALES)
		throw new Error(`${name}: the poll after ${SALES} sales emitted ${sold.items.length}`);
	await poll('quiet again (re-reads the overlap window, emits nothing)');
	const watched = parameters.include === undefined ? EVENTS : 0;
	const sources = (parameters.include as string[] | undefined)?.length ?? 2 + watched;
	return { sources, polls };
}

async function main() {
	const setups: Array<[string, IDataObject]> = [
		['Widget Sales only (1 source)', { source: 'salesAndRefunds', include: ['widgetSales'] }],
		[
			`all feeds, all visible events (2 + ${EVENTS} event order feeds)`,
			{ source: 'salesAndRefunds' },
		],
	];
	const summary: SummaryRow[] = [];
	console.log(
		'== 3. Poll cost: Public Events Poll Trigger (Sales and ' +
			'Refunds) through n8n-core against the sandbox (plain-array ' +
			'pages)',
	);
	for (const [name, parameters] of setups) {
		// A sandbox each: the sales of one setup would sit in the next one's overlap window.
		const sb = await SandboxClient.start({
			events: EVENTS,
			placesPerEvent: 200,
			widgetOrders: 0,
			rateLimit: { limit: 0 },
		});
		try {
			const { sources, polls } = await measure(sb, name, parameters);
			console.log(`\n${name}`);
			table(
				['poll', 'requests', 'items emitted', 'requests by route'],
				polls.map((p) => [p.label, p.requests, p.emitted, p.routes]),
			);
			const quiet = polls[1].requests;
			console.log(
				`  quiet poll: ${quiet} request(s) for ${sources} source(s) ` +
					`(target one per source: ${quiet === sources ? 'met' : 'MISSED'})`,
			);
			summary.push(
				[
					`poll cost, ${name}: quiet poll`,
					`${quiet} requests`,
					`${sources} (one per source): ${quiet === sources ? 'met' : 'MISSED'}`,
				],
				[`poll cost, ${name}: poll with ${SALES} new sales`, `${polls[2].requests} requests`, '-'],
			);
		} finally {
			await sb.stop();
		}
	}
	console.log();
	table(['figure', 'measured', 'target'], summary);
	recordSummary('poll', summary);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
