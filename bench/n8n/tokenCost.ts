import { credentialFor, type N8nBench } from '../../harness/bench/n8nBench';
import { int, median, ms, table, type SummaryRow } from '../../harness/bench/report';
import { countersDelta, total } from '../../harness/sandbox/process';
import {
	chain,
	httpRequestBuild,
	packageGetPlaces,
	webhookTrigger,
} from '../../harness/bench/workflows';
import { HALL_EVENT } from './hallPlan';

/**
 * Benchmark 2: /token requests over 100 executions. One `n8n start`, two active workflows with
 * a Webhook trigger (answering when the run ends): one runs the package's Get Places with Limit 1
 * on a credential that has no token yet, the other the HTTP Request build (a token step, then
 * one page). Each webhook is called 100 times, one call after the other.
 */
const CALLS = 100;
const TOKEN_CREDENTIAL = {
	id: 'PeBenchApiCred02',
	name: 'Public Events sandbox (bench, token count)',
};
const PACKAGE_WF = 'PeBenchWfTokPkg1';
const HTTP_WF = 'PeBenchWfTokHttp';
const OWNER = {
	email: 'owner@bench.invalid',
	firstName: 'Bench',
	lastName: 'Owner',
	password: 'Bench-owner-passw0rd',
};

export const tokenCredentials = (bench: N8nBench) => [
	credentialFor(bench.sandbox, TOKEN_CREDENTIAL),
];

export function tokenWorkflows(bench: N8nBench) {
	const getPlaces = {
		...packageGetPlaces(HALL_EVENT, 1),
		credentials: { publicEventsApi: TOKEN_CREDENTIAL },
	};
	// The HTTP build reads one page of 1 place: the same request as the package's Limit 1.
	const [token, page] = httpRequestBuild(
		bench.sandbox.apiUrl,
		bench.sandbox.keys.partner,
		HALL_EVENT,
		'array',
	);
	const onePage = {
		...page,
		parameters: {
			...(page.parameters as object),
			queryParameters: {
				parameters: [
					{ name: 'page', value: '1' },
					{ name: 'itemsPerPage', value: '1' },
				],
			},
			options: {},
		},
	};
	return [
		chain(PACKAGE_WF, 'bench: token cost (package)', [
			webhookTrigger('pe-bench-token-package'),
			getPlaces,
		]),
		chain(HTTP_WF, 'bench: token cost (HTTP Request)', [
			webhookTrigger('pe-bench-token-http'),
			token,
			onePage,
		]),
	];
}

async function call(url: string): Promise<number> {
	const started = process.hrtime.bigint();
	const res = await fetch(url);
	const body = (await res.json()) as { id?: unknown };
	if (res.status !== 200 || body.id === undefined)
		throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
	return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * The first execution, once the webhook is registered (n8n answers the activation before that;
 * a 404 runs nothing).
 */
async function firstCall(url: string): Promise<void> {
	const deadline = Date.now() + 30_000;
	for (;;) {
		const res = await fetch(url);
		await res.arrayBuffer();
		if (res.status === 200) return;
		if (res.status !== 404 || Date.now() > deadline)
			throw new Error(`${url} answered ${res.status}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

export async function tokenCostBench(bench: N8nBench): Promise<SummaryRow[]> {
	console.log(
		`\n== 2. Token cost: ${CALLS} executions of each workflow in one ` +
			`running n8n (n8n start, Webhook trigger, one call at a time)`,
	);
	await bench.sandbox.admin('PUT', '/config', { envelope: 'array' });
	const server = await bench.n8n.start();
	try {
		const cookie = await server.setupOwner(OWNER);
		const results = [];
		for (const [name, id, path] of [
			['package (Get Places, Limit 1)', PACKAGE_WF, 'pe-bench-token-package'],
			['HTTP Request build (token + GET)', HTTP_WF, 'pe-bench-token-http'],
		]) {
			await server.activateWorkflow(cookie, id);
			const url = `${server.url}/webhook/${path}`;
			const before = await bench.sandbox.counters();
			await firstCall(url);
			const times = [];
			for (let i = 1; i < CALLS; i++) times.push(await call(url));
			const requests = countersDelta(before, await bench.sandbox.counters());
			results.push({ name, requests, tokens: requests['POST /token'] ?? 0, times });
		}
		table(
			['workflow', 'executions', '/token requests', 'all requests', 'median webhook call'],
			results.map((r) => [
				r.name,
				CALLS,
				int(r.tokens),
				int(total(r.requests)),
				ms(median(r.times)),
			]),
		);
		const [pkg, http] = results;
		console.log(
			`  package: ${pkg.tokens} token request(s) in ${CALLS} ` +
				`executions (target 1: ${pkg.tokens === 1 ? 'met' : 'MISSED'}` +
				`); HTTP Request build: ${http.tokens} (one per execution)`,
		);
		return [
			[
				`token cost: /token requests in ${CALLS} executions, package / HTTP Request`,
				`${pkg.tokens} / ${http.tokens}`,
				`package 1: ${pkg.tokens === 1 ? 'met' : 'MISSED'}`,
			],
			[
				`token cost: all requests in ${CALLS} executions, package / HTTP Request`,
				`${total(pkg.requests)} / ${total(http.requests)}`,
				'-',
			],
		];
	} finally {
		await server.stop();
	}
}
