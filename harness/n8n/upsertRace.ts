/**
 * A measurement, not a test: how often two runs that upsert the same new key into an n8n Data
 * Table at the same instant leave two rows. n8n's upsert is an UPDATE then, when nothing matched,
 * an INSERT, in one transaction with no unique key: two at once can both insert. Run with
 * `npx tsx harness/n8n/upsertRace.ts [pairs]`; docs/triggers.md ("Push and poll together") has the
 * figures.
 */
import { deploy, type Deployment } from './deployment';

const WORKFLOW = 'PeUpsertRace0001';
const PATH = 'upsert-race';

function workflow(tableId: string) {
	return {
		id: WORKFLOW,
		name: 'upsert race',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: { Webhook: { main: [[{ node: 'Upsert', type: 'main', index: 0 }]] } },
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: PATH,
				parameters: { httpMethod: 'POST', path: PATH },
			},
			{
				name: 'Upsert',
				type: 'n8n-nodes-base.dataTable',
				typeVersion: 1.1,
				position: [240, 0],
				parameters: {
					resource: 'row',
					operation: 'upsert',
					dataTableId: { __rl: true, mode: 'id', value: tableId },
					filters: {
						conditions: [{ keyName: 'orderId', condition: 'eq', keyValue: '={{ $json.body.id }}' }],
					},
					columns: {
						mappingMode: 'defineBelow',
						value: { orderId: '={{ $json.body.id }}', path: '={{ $json.body.path }}' },
						matchingColumns: [],
						schema: [],
					},
					options: {},
				},
			},
		],
	};
}

async function measure(queue: boolean, pairs: number): Promise<string> {
	const n8n: Deployment = await deploy({ queue, credentials: () => [], workflows: [] });
	try {
		const rest = (method: string, path: string, body?: unknown) =>
			n8n.main().rest(n8n.cookie, method, path, body);
		const project = ((await rest('GET', '/projects/personal')) as { id: string }).id;
		const table = (await rest('POST', `/projects/${project}/data-tables`, {
			name: 'race',
			columns: [
				{ name: 'orderId', type: 'string' },
				{ name: 'path', type: 'string' },
			],
		})) as { id: string };
		await rest('POST', '/workflows', workflow(table.id));
		await n8n.main().activateWorkflow(n8n.cookie, WORKFLOW);
		const url = `${n8n.webhooks().url}/webhook/${PATH}`;
		const post = (id: string, path: string) =>
			fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ id, path }),
			});
		for (let tries = 0; (await post('warm-up', 'push')).status === 404 && tries < 60; tries++)
			await new Promise((r) => setTimeout(r, 500));
		for (let i = 0; i < pairs; i++)
			await Promise.all([post(`o${i}`, 'push'), post(`o${i}`, 'poll')]);
		// The runs are queued: wait until the table stops growing.
		let last = -1;
		for (;;) {
			await new Promise((r) => setTimeout(r, 3000));
			const { count } = (await rest(
				'GET',
				`/projects/${project}/data-tables/${table.id}/rows?take=1`,
			)) as { count: number };
			if (count === last) break;
			last = count;
		}
		const rows = (await rest(
			'GET',
			`/projects/${project}/data-tables/${table.id}/rows?take=${pairs * 2 + 10}`,
		)) as { data: Array<{ orderId: string }> };
		const perKey = new Map<string, number>();
		for (const row of rows.data) perKey.set(row.orderId, (perKey.get(row.orderId) ?? 0) + 1);
		const doubled = [...perKey.values()].filter((n) => n > 1).length;
		return (
			`${queue ? 'queue mode (Postgres, 1 worker, concurrency 5)' : 'regular mode (SQLite)'}: ` +
			`${pairs} pairs of simultaneous upserts of one new key, ${doubled} left two rows`
		);
	} finally {
		await n8n.stop();
	}
}

async function main() {
	const pairs = Number(process.argv[2] ?? 100);
	for (const queue of [false, true]) console.log(await measure(queue, pairs));
}

main().catch((error: Error) => {
	console.error(error);
	process.exit(1);
});
