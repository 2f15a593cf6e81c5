import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

import {
	median,
	recordSummary,
	ROUNDS,
	table,
	verdict,
	type SummaryRow,
} from '../harness/bench/report';
import {
	pushCredentials,
	pushLoad,
	pushReceivers,
	saleDeliveries,
	type LoadResult,
	type PushReceiver,
} from '../harness/bench/pushLoad';
import { QueueCluster } from '../harness/n8n/queueCluster';
import { startWan, type WanLink } from '../harness/net/wan';
import { OWNER } from '../harness/n8n/owner';
import { SandboxClient } from '../harness/sandbox/client';
import { ensureN8n, N8nInstance, packPackage } from '../scripts/n8n/instance';

/**
 * The push trigger against n8n's own Webhook node, in real n8n 2.40.7 (N8N_VERSION for another):
 * the same N signed sale deliveries (the sandbox's own, made anew each round) into (a) the Public
 * Events Trigger with Signature and default settings, (b) n8n's Webhook node with Header Auth,
 * (c) n8n's Webhook node without authentication, each forwarding every item to a stand-in
 * destination (HTTP Request). Regular mode (`n8n start`, SQLite) and queue mode (Redis, Postgres,
 * main, 2 workers, 2 webhook processors, deliveries alternated over the processors). A sender
 * keeps CONCURRENCY deliveries in flight, waits for each answer and sends a refused one again.
 * Deliveries per second: N over the time until the last was answered 2xx (n8n 2.x answers once
 * the run exists), and until the destination held every sale. Ratios of one round, the median of
 * ROUNDS rounds (the order of the receivers turns each round).
 *   npx tsx bench/push.bench.ts [regular|queue|both] [N]
 * Env: BENCH_ROUNDS (3), PUSH_CONCURRENCY (16), PUSH_WAN_RTT=50 (the sender reaches n8n over
 * the WAN stand-in at that round trip, TLS, as a sender on the internet does),
 * PUSH_LAZY_ISOLATES=1 (every n8n process with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true: n8n 2.40
 * takes an expression isolate for the webhook phase of every trigger but its own Webhook node,
 * unless it is told to take one only when an expression is evaluated; docs/performance.md).
 */
const [argMode = 'both', argCount] = process.argv.slice(2);
const COUNT = Number(argCount) || 200;
const CONCURRENCY = Number(process.env.PUSH_CONCURRENCY ?? 16);
const WARM_UP = 20;
const TARGETS = { headerAuth: 1.0, plain: 0.8 };
const N8N_ENV: Record<string, string> = process.env.PUSH_LAZY_ISOLATES
	? { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' }
	: {};
const WAN_RTT = Number(process.env.PUSH_WAN_RTT ?? 0);
const SETTINGS =
	(process.env.PUSH_LAZY_ISOLATES ? ', lazy isolates' : '') +
	(WAN_RTT > 0 ? `; sender over the WAN stand-in, ${WAN_RTT} ms, TLS` : '');

interface Mode {
	name: string;
	sandbox: SandboxClient;
	/** Each webhook URL of a receiver, as the sender spreads deliveries over them. */
	urls(receiver: PushReceiver): string[];
	stop(): Promise<void>;
}

const sandboxInit = (rounds: number) => ({
	events: 4,
	placesPerEvent: Math.ceil(((COUNT + WARM_UP) * (rounds + 1)) / 4) + 50,
	rateLimit: { limit: 0 },
});

async function regularMode(receivers: PushReceiver[]): Promise<Mode> {
	const [install, sandbox, packed] = await Promise.all([
		ensureN8n(),
		SandboxClient.start(sandboxInit(ROUNDS)),
		packPackage(),
	]);
	const n8n = await N8nInstance.create({ install, packed, env: N8N_ENV });
	let server: Awaited<ReturnType<N8nInstance['start']>> | undefined;
	const stop = async () => {
		await server?.stop();
		n8n.cleanup();
		packed.cleanup();
		await sandbox.stop();
	};
	try {
		await n8n.importCredentials(pushCredentials());
		await n8n.importWorkflows(receivers.map((r) => r.workflow));
		server = await n8n.start();
		const cookie = await server.setupOwner(OWNER);
		for (const r of receivers) await server.activateWorkflow(cookie, r.workflow.id);
		const url = server.url;
		return {
			name: `regular mode (n8n ${install.n8nVersion}, one process, SQLite${SETTINGS})`,
			sandbox,
			urls: (r) => [`${url}/webhook/${r.path}`],
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

async function queueMode(receivers: PushReceiver[]): Promise<Mode> {
	const cluster = await QueueCluster.start({
		sandbox: sandboxInit(ROUNDS),
		env: async () => N8N_ENV,
		credentials: () => pushCredentials(),
		workflows: receivers.map((r) => r.workflow),
		activate: receivers.map((r) => r.workflow.id),
		paths: receivers.map((r) => r.path),
	});
	return {
		name:
			`queue mode (n8n ${cluster.n8n.install.n8nVersion}: main, ${cluster.workers.length} ` +
			`workers, ${cluster.webhooks.length} webhook processors, Postgres, Redis${SETTINGS})`,
		sandbox: cluster.sandbox,
		urls: (r) => cluster.webhooks.map((hook) => `${hook.url}/webhook/${r.path}`),
		stop: () => cluster.stop(),
	};
}

const rate = (seconds: number) => COUNT / seconds;

/** Each n8n origin the URLs name behind its own WAN link; the URLs rewritten to the links. */
async function overWan(urls: string[]) {
	const links = new Map<string, WanLink>();
	for (const origin of new Set(urls.map((url) => new URL(url).origin))) {
		const upstreamPort = Number(new URL(origin).port);
		links.set(origin, await startWan({ upstreamPort, rttMs: WAN_RTT, tls: true }));
	}
	// Each link has its own throwaway certificate: the sender trusts them all.
	const ca = [...links.values()].map((link) => readFileSync(link.caFile!, 'utf8'));
	return {
		url: (url: string) => {
			const { origin, pathname } = new URL(url);
			return `${links.get(origin)!.url}${pathname}`;
		},
		ca,
		close: () => Promise.all([...links.values()].map((link) => link.close())),
	};
}

async function measure(start: (receivers: PushReceiver[]) => Promise<Mode>): Promise<SummaryRow[]> {
	const receivers = await pushReceivers();
	const started = Date.now();
	const mode = await start(receivers);
	const wan = WAN_RTT > 0 ? await overWan(receivers.flatMap((r) => mode.urls(r))) : undefined;
	const urls = (r: PushReceiver) => mode.urls(r).map((url) => wan?.url(url) ?? url);
	try {
		console.log(
			`\n${mode.name}: up in ${Math.round((Date.now() - started) / 1000)} s; ${COUNT} signed ` +
				`sale deliveries per receiver and round, ${CONCURRENCY} in flight, ${ROUNDS} rounds`,
		);
		const warm = await saleDeliveries(mode.sandbox, WARM_UP);
		for (const r of receivers) await pushLoad(r, urls(r), warm, CONCURRENCY, wan?.ca);
		const runs: LoadResult[][] = receivers.map(() => []);
		for (let round = 0; round < ROUNDS; round++) {
			const bodies = await saleDeliveries(mode.sandbox, COUNT);
			for (let k = 0; k < receivers.length; k++) {
				const i = (k + round) % receivers.length;
				runs[i].push(
					await pushLoad(receivers[i], urls(receivers[i]), bodies, CONCURRENCY, wan?.ca),
				);
			}
			console.log(
				`  round ${round + 1}: ` +
					receivers
						.map((r, i) => `${r.label} ${rate(runs[i][round].answeredS).toFixed(1)}/s`)
						.join(', ') +
					`; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
			);
		}
		const med = (i: number, pick: (r: LoadResult) => number) => median(runs[i].map(pick));
		const sum = (i: number, pick: (r: LoadResult) => number) =>
			runs[i].reduce((n, r) => n + pick(r), 0);
		table(
			['receiver', 'answered/s', 'at destination/s', 'retries', 'lost', 'twice'],
			receivers.map((r, i) => [
				r.label,
				rate(med(i, (x) => x.answeredS)).toFixed(1),
				rate(med(i, (x) => x.forwardedS)).toFixed(1),
				sum(i, (x) => x.retries),
				sum(i, (x) => x.lost),
				sum(i, (x) => x.duplicates),
			]),
		);
		// Ratios round by round (the receivers met the same machine load), then their median.
		const ratio = (other: number, pick: (r: LoadResult) => number) =>
			median(runs[0].map((ours, round) => pick(runs[other][round]) / pick(ours)));
		const rows: SummaryRow[] = [
			[
				`${mode.name}: (a)/(b) deliveries answered per second`,
				verdict(
					ratio(1, (x) => x.answeredS),
					TARGETS.headerAuth,
					'higher',
				),
				`>= ${TARGETS.headerAuth}`,
			],
			[
				`${mode.name}: (a)/(c) deliveries answered per second`,
				verdict(
					ratio(2, (x) => x.answeredS),
					TARGETS.plain,
					'higher',
				),
				`>= ${TARGETS.plain}`,
			],
			[
				`${mode.name}: (a)/(b), (a)/(c) sales at the destination per second`,
				`${ratio(1, (x) => x.forwardedS).toFixed(2)}, ${ratio(2, (x) => x.forwardedS).toFixed(2)}`,
				'-',
			],
			[
				`${mode.name}: (a) sales lost / twice at the destination`,
				`${sum(0, (x) => x.lost)} / ${sum(0, (x) => x.duplicates)}`,
				'0 / 0',
			],
		];
		table(['figure', 'measured', 'target'], rows);
		return rows;
	} finally {
		await wan?.close();
		await mode.stop();
		await Promise.all(receivers.map((r) => r.destination.close()));
	}
}

async function main() {
	const rows: SummaryRow[] = [];
	if (argMode !== 'queue') rows.push(...(await measure(regularMode)));
	if (argMode !== 'regular') rows.push(...(await measure(queueMode)));
	console.log('\nSummary (push)');
	table(['figure', 'measured', 'target'], rows);
	recordSummary('push', rows);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
