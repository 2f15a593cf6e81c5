import { createRequire } from 'node:module';
import { join } from 'node:path';

import { Pool } from 'undici';

/**
 * A bare loop over the pages a node reads (page size 100, the token in hand), outside any
 * workflow, in a fresh process as each `n8n execute` is (bench/n8n/hallPlan.ts runs it on n8n's
 * Node 24):
 *
 *   node --import tsx harness/bench/wireLoop.ts \
 *     <client> <apiUrl> <path> <token> <inFlight> [n8nDir]
 *
 * client `undici`: one keep-alive connection per page in flight, the wire's limit.
 * client `n8n`: n8n's own outbound HTTP stack (@n8n/backend-network, what a node's
 * `this.helpers.httpRequest` calls) loaded from the n8n install: the floor for any node.
 *
 * Knowing the total (a hydra page), it reads exactly the pages that exist; without one, until a
 * short page: the pages the node reads. Prints one JSON line: { ms, items, requests }.
 */
const [client, apiUrl, path, token, inFlightArg, n8nDir] = process.argv.slice(2);
const inFlight = Number(inFlightArg);
const PER_PAGE = 100;

type Get = (page: number) => Promise<any>;

function undiciClient(): { get: Get; close: () => Promise<void> } {
	const url = new URL(apiUrl);
	const pool = new Pool(url.origin, { connections: inFlight });
	const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
	const get: Get = async (page) => {
		const res = await pool.request({
			method: 'GET',
			path: `${url.pathname}${path}?page=${page}&itemsPerPage=${PER_PAGE}`,
			headers,
		});
		const body = await res.body.json();
		if (res.statusCode !== 200) throw new Error(`page ${page}: ${res.statusCode}`);
		return body;
	};
	return { get, close: () => pool.close() };
}

function n8nClient(): { get: Get; close: () => Promise<void> } {
	const load = createRequire(join(n8nDir, 'node_modules', 'n8n', 'package.json'));
	load('reflect-metadata');
	const { Container } = load('@n8n/di');
	const { OutboundHttp } = load('@n8n/backend-network');
	const http = Container.get(OutboundHttp).requests();
	const headers = { Accept: 'application/json', Authorization: `Bearer ${token}` };
	const get: Get = (page) =>
		http.request({
			method: 'GET',
			url: `${apiUrl}${path}`,
			qs: { page, itemsPerPage: PER_PAGE },
			json: true,
			headers,
		});
	return { get, close: async () => {} };
}

async function main() {
	const { get, close } = client === 'n8n' ? n8nClient() : undiciClient();
	let requests = 0;
	const fetchPage = async (page: number): Promise<{ items: unknown[]; total?: number }> => {
		requests++;
		const body = await get(page);
		return Array.isArray(body)
			? { items: body }
			: { items: body['hydra:member'], total: body['hydra:totalItems'] };
	};
	const started = process.hrtime.bigint();
	const first = await fetchPage(1);
	const pages: unknown[][] = [first.items];
	if (first.total !== undefined) {
		const last = Math.ceil(first.total / PER_PAGE);
		let next = 2;
		const worker = async () => {
			for (let page = next++; page <= last; page = next++)
				pages[page - 1] = (await fetchPage(page)).items;
		};
		await Promise.all(Array.from({ length: inFlight }, worker));
	} else {
		// No total: one page at a time until a short one.
		for (let page = 2; pages[page - 2].length === PER_PAGE; page++)
			pages.push((await fetchPage(page)).items);
	}
	const items = pages.flat();
	const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
	await close();
	console.log(JSON.stringify({ ms: elapsed, items: items.length, requests }));
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
