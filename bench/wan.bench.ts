import { apiCredential, ensureN8n, N8nInstance, packPackage } from '../scripts/n8n/instance';
import { MAX_PAGES_IN_FLIGHT, readListPage } from '../nodes/shared/transport';
import { READS_IN_FLIGHT } from '../nodes/PublicEvents/router';
import { startWan, type WanLink } from '../harness/net/wan';
import { type N8nBench } from '../harness/bench/n8nBench';
import {
	median,
	ms,
	recordSummary,
	ROUNDS,
	table,
	verdict,
	type SummaryRow,
} from '../harness/bench/report';
import { SandboxProcess } from '../harness/sandbox/process';
import {
	chain,
	CREDENTIAL,
	httpRequestBuild,
	manualTrigger,
	packageGetPlaces,
	type Envelope,
} from '../harness/bench/workflows';

/**
 * Field performance: real n8n with the sandbox behind the WAN stand-in (harness/net/wan.ts), TLS
 * on, n8n trusting its throwaway certificate through NODE_EXTRA_CA_CERTS.
 *   1. 20,000 places (200 pages) at 0, 20, 50 and 100 ms round trip, hydra and plain array:
 *      the package vs the HTTP Request build vs the limit for the package's window
 *   2. 100 input items of Event Get vs the HTTP Request node doing the same
 *   3. a rate limit low enough to answer 429s: every place once, the 429s and extra requests,
 *      and no connection opened while a Retry-After runs
 * Loopback runs BENCH_ROUNDS rounds (medians); over the link WAN_ROUNDS (default 1, time-bounded).
 * `npx tsx bench/wan.bench.ts [places] [items] [limited]` runs a subset; WAN_RTTS="0,50" picks
 * RTTs.
 */
const PLACES = 20_000;
const EVENT = 1001;
const PAGES = PLACES / 100;
const RTTS = (process.env.WAN_RTTS ?? '0,20,50,100').split(',').map(Number);
/**
 * Rounds over the link (WAN_ROUNDS, default 1: the HTTP Request build takes over a minute at 100
 * ms).
 */
const LINK_ROUNDS = Number(process.env.WAN_ROUNDS ?? 1);
const LIMITED_RTT = 50;
const RATE_LIMIT = { limit: 25, windowMs: 1000 };
const ITEMS = 100;
const READ_LAG_MS = 50;
const PKG_PLACES = 'PeWanPlacesPkg';
const HTTP_PLACES = (e: Envelope) => `PeWanPlacesHttp${e === 'hydra' ? 'Hyd' : 'Arr'}`;
const PKG_ITEMS = 'PeWanItemsPkg';
const HTTP_ITEMS = 'PeWanItemsHttp';
const SECTIONS = ['places', 'items', 'limited'] as const;

/**
 * The floor for a window of W over n8n's helpers (a new connection and TLS handshake per
 * request: 3 round trips each): page 1 alone, then ceil((pages - 1) / W) rounds. Ignores CPU.
 */
const windowLimitMs = (rtt: number, pages: number, window: number) =>
	(1 + Math.ceil((pages - 1) / window)) * 3 * rtt;

function idsNodes(ids: string[]) {
	return [
		{
			name: 'Ids',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ ids }), options: {} },
		},
		{
			name: 'Split Out',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'ids', options: {} },
		},
	];
}

function workflows(apiUrl: string, apiKey: string, ids: string[]) {
	const [token] = httpRequestBuild(apiUrl, apiKey, EVENT, 'array');
	return [
		chain(PKG_PLACES, 'wan: places (package)', [manualTrigger, packageGetPlaces(EVENT)]),
		...(['hydra', 'array'] as const).map((e) =>
			chain(HTTP_PLACES(e), `wan: places (HTTP Request, ${e})`, [
				manualTrigger,
				...httpRequestBuild(apiUrl, apiKey, EVENT, e),
			]),
		),
		chain(PKG_ITEMS, 'wan: 100 x Event Get (package)', [
			manualTrigger,
			...idsNodes(ids),
			{
				name: 'Get Event',
				type: packageGetPlaces(EVENT).type,
				typeVersion: 1,
				parameters: {
					resource: 'event',
					operation: 'get',
					eventId: { __rl: true, mode: 'id', value: '={{ $json.ids }}' },
					options: {},
				},
				credentials: { publicEventsApi: CREDENTIAL },
			},
		]),
		chain(HTTP_ITEMS, 'wan: 100 x GET event (HTTP Request)', [
			manualTrigger,
			token,
			...idsNodes(ids),
			{
				name: 'Get Event (HTTP)',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: {
					url: `=${apiUrl}/event-points/{{ $json.ids }}`,
					sendHeaders: true,
					headerParameters: {
						parameters: [
							{ name: 'Authorization', value: "=Bearer {{ $('Token').first().json.token }}" },
						],
					},
					options: {},
				},
			},
		]),
	];
}

interface Run {
	/** The job's own time: the working nodes' executionTime summed (not Start, Ids, Split Out). */
	jobMs: number;
	items: Array<Record<string, unknown>>;
	requests: number;
}

async function execute(n8n: N8nInstance, sandbox: SandboxProcess, id: string): Promise<Run> {
	const before = await sandbox.counters();
	const run = await n8n.execute(id);
	const after = await sandbox.counters();
	const requests = Object.entries(after).reduce(
		(sum, [key, n]) => (key.includes('/__sandbox') ? sum : sum + n - (before[key] ?? 0)),
		0,
	);
	const runData = run.data.resultData.runData as Record<string, any[]>;
	const names = Object.keys(runData);
	const jobMs = names
		.filter((n) => !['Start', 'Ids', 'Split Out'].includes(n))
		.reduce((sum, n) => sum + runData[n][0].executionTime, 0);
	const last = runData[names.at(-1)!][0].data.main[0] as Array<{ json: Record<string, unknown> }>;
	return { jobMs, items: last.map((i) => i.json), requests };
}

async function placesBench(b: Ctx, expected: string[]): Promise<SummaryRow[]> {
	const summary: SummaryRow[] = [];
	const check = (run: Run, what: string) => {
		const got = run.items.map((p) => String(p.id));
		if (got.length !== expected.length || got.some((id, i) => id !== expected[i]))
			throw new Error(`${what}: ${got.length} places, not every place once in order`);
	};
	for (const rtt of RTTS) {
		b.link.setRtt(rtt);
		const rounds = rtt === 0 ? ROUNDS : LINK_ROUNDS;
		const rows: string[][] = [];
		for (const envelope of ['hydra', 'array'] as const) {
			await b.sandbox.admin('PUT', '/config', { envelope });
			const pkg: Run[] = [];
			const http: Run[] = [];
			// Warm-up (not counted), before the first figure of each envelope: n8n's first token, and
			// the sandbox renders and caches each page once per query string.
			if (rtt === RTTS[0]) await execute(b.n8n, b.sandbox, PKG_PLACES);
			for (let r = 0; r < rounds; r++) {
				pkg.push(await execute(b.n8n, b.sandbox, PKG_PLACES));
				http.push(await execute(b.n8n, b.sandbox, HTTP_PLACES(envelope)));
			}
			pkg.forEach((run) => check(run, `package ${envelope} ${rtt} ms`));
			http.forEach((run) => check(run, `HTTP Request ${envelope} ${rtt} ms`));
			console.log(
				`${envelope}, ${rtt} ms, each round: package ${pkg.map((r) => ms(r.jobMs)).join(', ')}` +
					`; HTTP Request ${http.map((r) => ms(r.jobMs)).join(', ')}`,
			);
			const p = median(pkg.map((r) => r.jobMs));
			const h = median(http.map((r) => r.jobMs));
			const floor = windowLimitMs(rtt, PAGES, MAX_PAGES_IN_FLIGHT);
			rows.push([
				envelope === 'hydra' ? 'hydra (a total)' : 'plain array (no total)',
				ms(p),
				String(pkg[0].requests),
				ms(h),
				String(http[0].requests),
				(p / h).toFixed(2),
				rtt === 0 ? '-' : ms(floor),
				rtt === 0 ? '-' : (p / floor).toFixed(2),
			]);
			const label = `${envelope}, ${rtt} ms`;
			if (rtt === 0)
				summary.push([
					`WAN bench loopback ${envelope}: package / HTTP Request`,
					verdict(p / h, 0.5),
					'<= 0.5',
				]);
			if (rtt === 50) {
				summary.push([`WAN ${label} TLS: package / HTTP Request`, verdict(p / h, 0.15), '<= 0.15']);
				summary.push([
					`WAN ${label} TLS: package / window limit`,
					verdict(p / floor, 1.3),
					'<= 1.3',
				]);
			}
		}
		console.log(
			`\n${PLACES.toLocaleString('en-US')} places, round trip ${rtt} ms` +
				`${rtt ? ' + TLS' : ' (loopback, TLS)'}, ${rounds} round(s)` +
				`${rounds > 1 ? ', medians' : ''}; every run returned every place once, in order`,
		);
		table(
			[
				'pages',
				'package',
				'requests',
				'HTTP Request build',
				'requests',
				'package / HTTP',
				`limit for ${MAX_PAGES_IN_FLIGHT} in flight`,
				'package / limit',
			],
			rows,
		);
	}
	return summary;
}

async function itemsBench(b: Ctx, ids: string[]): Promise<SummaryRow[]> {
	const rows: string[][] = [];
	const summary: SummaryRow[] = [];
	for (const rtt of RTTS) {
		b.link.setRtt(rtt);
		const pkg = await execute(b.n8n, b.sandbox, PKG_ITEMS);
		const http = await execute(b.n8n, b.sandbox, HTTP_ITEMS);
		const got = pkg.items.map((e) => String(e.id));
		if (got.join() !== ids.join())
			throw new Error(`package items ${rtt} ms: output order differs from the input`);
		if (http.items.length !== ids.length)
			throw new Error(`HTTP Request items ${rtt} ms: ${http.items.length}`);
		rows.push([
			`${rtt} ms`,
			ms(pkg.jobMs),
			ms(http.jobMs),
			(pkg.jobMs / http.jobMs).toFixed(2),
			ms(windowLimitMs(rtt, ITEMS, READS_IN_FLIGHT)),
		]);
		if (rtt === 50)
			summary.push([
				`WAN ${ITEMS} x Event Get, 50 ms TLS: package / HTTP Request node`,
				(pkg.jobMs / http.jobMs).toFixed(2),
				'printed',
			]);
	}
	console.log(
		`\n${ITEMS} input items, one Event Get each (package: up to ${READS_IN_FLIGHT} items at ` +
			`once, in order; HTTP Request node: all at once), 1 round; package output in input order`,
	);
	table(
		[
			'round trip',
			'package',
			'HTTP Request node',
			'package / HTTP',
			`limit for ${READS_IN_FLIGHT} at once`,
		],
		rows,
	);
	return summary;
}

async function limitedBench(b: Ctx, expected: string[]): Promise<SummaryRow[]> {
	b.link.setRtt(LIMITED_RTT);
	await b.sandbox.admin('PUT', '/config', { envelope: 'hydra', rateLimit: RATE_LIMIT });
	const seq = (await b.sandbox.admin('GET', '/requests')).lastSeq as number;
	const answersBefore = b.link.answers.length;
	const openedBefore = b.link.opened.length;
	const run = await execute(b.n8n, b.sandbox, PKG_PLACES);
	await b.sandbox.admin('PUT', '/config', { rateLimit: { limit: 0 } });
	const got = run.items.map((p) => String(p.id));
	const onceInOrder = got.length === expected.length && got.every((id, i) => id === expected[i]);
	const log = (
		(await b.sandbox.admin('GET', `/requests?since=${seq}`)).entries as Array<{
			at: number;
			status?: number;
			route: string;
		}>
	).filter((e) => e.route !== '/__sandbox');
	const refused = b.link.answers.slice(answersBefore).filter((a) => a.status === 429);
	const opened = b.link.opened.slice(openedBefore);
	// A connection opened while a Retry-After ran (the client's time: the proxy is on its side).
	// The 429's bytes reach n8n's socket up to READ_LAG_MS before its busy event loop reads them:
	// connections opened in that gap were sent before the client knew; they are counted apart.
	const after = refused.flatMap((a) => {
		const until = a.deliveredAt + Number(a.retryAfter ?? 0) * 1000;
		return opened
			.filter((t) => t > a.deliveredAt && t < until - 5)
			.map((t) => Math.round(t - a.deliveredAt));
	});
	const early = after.filter((lag) => lag > READ_LAG_MS);
	console.log(
		`  connections opened after a 429 reached n8n's socket, before ` +
			`its Retry-After ended (ms after): ${after.join(', ') || 'none'}`,
	);
	const extra = log.length - PAGES - log.filter((e) => e.route === '/token').length;
	console.log(
		`\nRate limit ${RATE_LIMIT.limit} requests per ${RATE_LIMIT.windowMs} ms, ` +
			`${LIMITED_RTT} ms + TLS, package Return All (hydra): ${ms(run.jobMs)}; ` +
			`every place once, in order: ${onceInOrder ? 'yes' : 'NO'}; 429s: ` +
			`${refused.length}; requests beyond the ${PAGES} pages and the token: ${extra}; ` +
			`connections opened while a Retry-After ran (more than ${READ_LAG_MS}` +
			` ms after the 429 reached the socket): ${early.length}`,
	);
	return [
		['WAN rate-limited run: every place once, in order', onceInOrder ? 'yes' : 'NO', 'yes'],
		['WAN rate-limited run: 429s / extra requests', `${refused.length} / ${extra}`, 'printed'],
		[
			'WAN rate-limited run: connections opened during a Retry-After',
			String(early.length),
			early.length === 0 ? '0: met' : '0: MISSED',
		],
	];
}

interface Ctx extends Pick<N8nBench, 'sandbox' | 'n8n'> {
	link: WanLink;
}

async function main() {
	const chosen = process.argv
		.slice(2)
		.filter((a): a is (typeof SECTIONS)[number] => (SECTIONS as readonly string[]).includes(a));
	const run = new Set(chosen.length ? chosen : SECTIONS);
	const started = Date.now();
	const [install, sandbox, packed] = await Promise.all([
		ensureN8n(),
		SandboxProcess.start([
			'--big-event-places',
			String(PLACES),
			'--rate-limit',
			'0',
			'--envelope',
			'hydra',
		]),
		packPackage(),
	]);
	let link: WanLink | undefined;
	let n8n: N8nInstance | undefined;
	try {
		link = await startWan({
			upstreamPort: Number(new URL(sandbox.baseUrl).port),
			rttMs: 0,
			tls: true,
		});
		n8n = await N8nInstance.create({ install, packed, env: { NODE_EXTRA_CA_CERTS: link.caFile! } });
		const apiUrl = `${link.url}/api/v2`;
		const token = await sandbox.token();
		const get = async (path: string) =>
			readListPage(
				await (
					await fetch(`${sandbox.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
				).json(),
			)!.items;
		const places: string[] = [];
		for (let page = 1; page <= PAGES; page++)
			places.push(
				...(await get(`/event-points/${EVENT}/places?page=${page}&itemsPerPage=100`)).map((p) =>
					String(p.id),
				),
			);
		const events = (await get('/event-points?itemsPerPage=100')).map((e) => String(e.id));
		const ids = Array.from({ length: ITEMS }, (_, i) => events[i % events.length]);
		await n8n.importCredentials([apiCredential(CREDENTIAL, link.url, sandbox.keys.partner)]);
		await n8n.importWorkflows(workflows(apiUrl, sandbox.keys.partner, ids));
		console.log(
			`real n8n ${install.n8nVersion} on Node ${install.nodeVersion}; ` +
				`sandbox behind the WAN stand-in (TLS 1.3, self-signed, trusted via ` +
				`NODE_EXTRA_CA_CERTS); Max Pages in Flight ${MAX_PAGES_IN_FLIGHT}`,
		);
		const ctx: Ctx = { sandbox, n8n, link };
		const summary: SummaryRow[] = [];
		if (run.has('places')) summary.push(...(await placesBench(ctx, places)));
		if (run.has('items')) summary.push(...(await itemsBench(ctx, ids)));
		if (run.has('limited')) summary.push(...(await limitedBench(ctx, places)));
		console.log(`\nSummary (WAN, ${Math.round((Date.now() - started) / 1000)} s)`);
		table(['figure', 'measured', 'target'], summary);
		recordSummary('wan', summary);
	} finally {
		n8n?.cleanup();
		packed.cleanup();
		await link?.close();
		sandbox.stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
