/**
 * `npm run demo` as a user runs it, non-interactively: start it, wait for what it prints, log in
 * with the printed account, find the examples and credentials, test the credentials, follow the
 * printed push step (a sale reaches the push workflow's test URL), then Ctrl+C (SIGINT to its
 * process group, as a terminal sends it) and check that nothing it started is left.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp';

import { REPO_ROOT } from '../../scripts/n8n/instance';
import { defaultTrigger, type CanvasNode } from '../../harness/n8n/editor/canvas';
import { until } from '../../harness/sandbox/push';
import {
	DemoProcess,
	processesUsing,
	restClient,
	type DemoPrinted,
} from '../../harness/n8n/demoProcess';

const EXAMPLES = readdirSync(join(REPO_ROOT, 'examples')).filter((f) => f.endsWith('.json'));

const listening = (url: string) =>
	new Promise<boolean>((done) => {
		const { hostname, port } = new URL(url);
		const socket = connect(Number(port), hostname, () => (socket.destroy(), done(true)));
		socket.on('error', () => done(false));
	});

describe('npm run demo', () => {
	let demo: DemoProcess;
	let output = '';
	let printed: DemoPrinted;
	let rest: ReturnType<typeof restClient>;

	beforeAll(async () => {
		demo = await DemoProcess.start();
		printed = demo.printed!;
		output = demo.output;
	});

	afterAll(() => demo?.kill());

	it(
		'logs in with the printed account and finds every example ' +
			'workflow and the demo credentials',
		async () => {
			rest = restClient(printed.editor, await demo.login());

			const workflows = (await rest('GET', '/workflows')) as Array<{ id: string; name: string }>;
			const examples = EXAMPLES.map(
				(f) =>
					JSON.parse(readFileSync(join(REPO_ROOT, 'examples', f), 'utf8')) as {
						id: string;
						name: string;
					},
			);
			expect(workflows.map((w) => w.id).sort()).toEqual(examples.map((e) => e.id).sort());
			for (const example of examples) expect(output).toContain(example.name);

			const credentials = (await rest('GET', '/credentials')) as Array<{
				id: string;
				name: string;
				type: string;
			}>;
			expect(credentials.map((c) => `${c.type}: ${c.name}`).sort()).toEqual(
				[
					'publicEventsApi: Public Events (sandbox)',
					'publicEventsApi: Public Events (sandbox, organiser)',
					'publicEventsWebhookApi: Public Events webhook (sandbox)',
					'httpBearerAuth: Public Events MCP token',
					'httpHeaderAuth: Public Events shop key',
					'n8nApi: n8n API (demo)',
				].sort(),
			);
			// The Test button: the editor sends the stored credential (its key redacted) to
			// /credentials/test.
			for (const { id } of credentials.filter((c) => c.type === 'publicEventsApi')) {
				const stored = await rest('GET', `/credentials/${id}?includeData=true`);
				const result = await rest('POST', '/credentials/test', {
					credentials: { id, name: stored.name, type: stored.type, data: stored.data },
				});
				expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
			}
		},
	);

	it('the first steps printed read as docs/demo.md shows them, those with URLs aside', () => {
		const steps = (text: string) =>
			text.split('\n').filter((line) => /^ {2}\d\. /.test(line) && !line.includes('http'));
		const documented = steps(readFileSync(join(REPO_ROOT, 'docs', 'demo.md'), 'utf8'));
		expect(documented.length).toBeGreaterThanOrEqual(4);
		expect(steps(output)).toEqual(documented);
	});

	it(
		'the printed push step works: a workflow waiting in the editor receives a sale sold by ' +
			'"sell a ticket", then a widget sale, and the stand-in CRM holds each as a complete deal',
		async () => {
			const examples = (await rest('GET', '/workflows')) as Array<{ id: string; name: string }>;
			const push = examples.find((w) => /push each sale/i.test(w.name))!;
			const sell = examples.find((w) => /sell a ticket/i.test(w.name))!;
			// What "Execute workflow" does: the push workflow waits on its test URL.
			expect(
				await rest('POST', `/workflows/${push.id}/run`, {
					triggerToStartFrom: { name: 'On Sale' },
				}),
			).toEqual({ waitingForWebhook: true });
			await rest('POST', `/workflows/${sell.id}/run`, { triggerToStartFrom: { name: 'Start' } });

			const executionsOf = async (workflowId: string) =>
				(
					(await rest(
						'GET',
						`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
					)) as { results: Array<{ status: string; mode: string }> }
				).results;
			const sold = await until(
				async () => {
					const [run] = await executionsOf(sell.id);
					return run && run.status !== 'running' && run.status !== 'new' && run;
				},
				'"sell a ticket" to finish',
				60_000,
			);
			expect(sold.status).toBe('success');
			const deliveries = await until(
				async () => {
					// (The published Data Table example's Production URL gets its own delivery.)
					const all = (
						(await (await fetch(`${printed.sandbox}/__sandbox/deliveries`)).json()) as Array<{
							url: string;
							type: string;
							attempts: Array<{ status?: number }>;
							payload: { data: { orderId: number } };
						}>
					).filter((d) => d.url.includes('/webhook-test/'));
					return all.length > 0 && all[0].attempts.length > 0 && all;
				},
				'the sandbox to push the sale',
				30_000,
			);
			expect(
				deliveries.map((d) => [d.type, d.url.includes('/webhook-test/'), d.attempts[0].status]),
			).toEqual([['order.sale', true, 200]]);
			const pushed = await until(
				async () => (await executionsOf(push.id))[0],
				'the push workflow to run',
				30_000,
			);
			expect(pushed.mode).toBe('manual');

			// Send to CRM wrote each sale to the printed stand-in CRM as a complete deal: this API
			// sale, and a sale from the widget (the printed curl line), whose push names no amount.
			const crm = /^\s+crm\s+(http\S+)/m.exec(output)![1];
			// One deal per sale, keyed by its channel and order ID (the example's PUT .../{channel}-{id})
			const deal = (channel: 'api' | 'widget', orderId: unknown) =>
				until(
					async () => {
						const res = await fetch(`${crm}/${channel}-${String(orderId)}`);
						return res.status === 200 && ((await res.json()) as { properties: any });
					},
					`the deal of order ${String(orderId)}`,
					30_000,
				);
			const complete = {
				status: 'paid',
				amount: expect.any(Number),
				currency: expect.stringMatching(/^[A-Z]{3}$/),
				barcodes: expect.arrayContaining([expect.stringMatching(/^\d{13}$/)]),
			};
			const orderId = deliveries[0].payload.data.orderId;
			expect((await deal('api', orderId)).properties).toMatchObject({
				...complete,
				channel: 'api',
				orderId: String(orderId),
				email: null,
			});
			expect(
				await rest('POST', `/workflows/${push.id}/run`, {
					triggerToStartFrom: { name: 'On Sale' },
				}),
			).toEqual({ waitingForWebhook: true });
			const widget = (await (
				await fetch(`${printed.sandbox}/__sandbox/widget-orders`, { method: 'POST' })
			).json()) as { id: number };
			const widgetDeal = (await deal('widget', widget.id)).properties;
			expect(widgetDeal).toMatchObject({
				...complete,
				channel: 'widget',
				orderId: String(widget.id),
				email: expect.stringContaining('@'),
			});
			expect(widgetDeal.amount).toBeGreaterThan(0);
		},
	);

	it(
		'the printed MCP server is the published AI ticket desk on a ' +
			'path of its own: with the printed token an MCP client lists ' +
			'its four tools, without it nothing',
		async () => {
			const url = /MCP server\s+(http:\S+)/.exec(output)?.[1];
			const token = /MCP token\s+(\S+)/.exec(output)?.[1];
			const shipped = JSON.parse(
				readFileSync(join(REPO_ROOT, 'examples', 'ai-ticket-desk.json'), 'utf8'),
			) as { nodes: Array<{ type: string; parameters: { path?: string } }> };
			const shippedPath = shipped.nodes.find((n) => n.type.endsWith('mcpTrigger'))!.parameters
				.path!;
			expect(url).toMatch(
				/\/mcp\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
			);
			expect(url).not.toContain(shippedPath);
			expect(token).toMatch(/^[\w-]{43}$/);
			const connect = (headers: Record<string, string>) => {
				const candidate = new Client({ name: 'demo-e2e', version: '1.0.0' });
				return candidate
					.connect(new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers } }))
					.then(
						() => candidate,
						(error: { code?: number }) => (
							candidate.close().catch(() => undefined),
							error.code ?? 'failed'
						),
					);
			};
			const client = await until(
				async () => {
					const connected = await connect({ Authorization: `Bearer ${token}` });
					return typeof connected === 'object' && connected;
				},
				'the MCP endpoint to serve',
				30_000,
			);
			try {
				expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
					'Find_Events',
					'Get_Order',
					'Hold_Best_Available',
					'Release_Hold',
				]);
			} finally {
				await client.close();
			}
			expect(await connect({})).toBe(403);
			expect(await connect({ Authorization: 'Bearer not-the-printed-token' })).toBe(403);
		},
	);

	it(
		'the printed Data Table step works: the table is there, the ' +
			'sync published, and a sale made with the printed curl line ' +
			'becomes its row',
		async () => {
			const sync = (
				(await rest('GET', '/workflows')) as Array<{ id: string; name: string; active: boolean }>
			).find((w) => /data table/i.test(w.name) && w.active)!;
			expect([output.includes(`"${sync.name}" is published`), sync.active]).toEqual([true, true]);
			const project = ((await rest('GET', '/projects/personal')) as { id: string }).id;
			// the table the printed step names (Overview > Data tables > "…")
			const name = /Data tables > "([^"]+)"/.exec(output)![1];
			const table = (
				(await rest('GET', `/projects/${project}/data-tables`)) as {
					data: Array<{ id: string; name: string }>;
				}
			).data.find((t) => t.name === name);
			expect([name, table?.name]).toEqual(['Public Events ledger', name]);
			const curl = /curl -X POST (\S+)/.exec(output)![1];
			const sale = (await (await fetch(curl, { method: 'POST' })).json()) as { id: number };
			// It polls every minute; publishing again polls at once, as n8n does on activation.
			await rest('POST', `/workflows/${sync.id}/deactivate`, {});
			const { versionId } = (await rest('GET', `/workflows/${sync.id}`)) as { versionId: string };
			await rest('POST', `/workflows/${sync.id}/activate`, { versionId });
			// a ledger row, keyed by channel and order
			const key = `sale:widget:${sale.id}`;
			const filter = encodeURIComponent(
				JSON.stringify({
					type: 'and',
					filters: [{ columnName: 'key', condition: 'eq', value: key }],
				}),
			);
			const rows = await until(
				async () => {
					const found = (
						(await rest(
							'GET',
							`/projects/${project}/data-tables/${table!.id}/rows?take=5&filter=${filter}`,
						)) as { data: Array<Record<string, unknown>> }
					).data;
					return found.length > 0 && found;
				},
				'the sale to reach the table',
				60_000,
			);
			expect(rows.map((r) => [r.key, r.type, r.channel, r.orderId])).toEqual([
				[key, 'sale', 'widget', String(sale.id)],
			]);
			expect(Number(rows[0].amount)).toBeGreaterThan(0);
		},
	);

	it(
		'the printed shop line works: the published checkout answers two tickets with the printed ' +
			'key, 403 without it, and a failed payment a 402 with the hold released',
		async () => {
			const [, header, key, body, url] = /-H '([\w-]+): (\S+)' -d '(\{[^']*\})' (http\S+)/.exec(
				output,
			)!;
			const buy = async (extra: object, headers = { [header]: key }) => {
				const res = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...headers },
					body: JSON.stringify({ ...JSON.parse(body), ...extra }),
				});
				return [res.status, await res.text()] as const;
			};
			const [status, sold] = await buy({});
			expect([status, JSON.parse(sold).tickets.length]).toEqual([200, 2]);
			expect((await buy({}, {}))[0]).toBe(403);
			const [declined, answer] = await buy({ quantity: 1, failPayment: true });
			expect([declined, JSON.parse(answer).seatsReleased]).toEqual([402, true]);
		},
	);

	it(
		'the file examples run green from the trigger the big "Execute workflow" button names, as ' +
			'the printed step says, and write into the printed files folder',
		async () => {
			const folder = /files\s+(\S+?)\/?\s/.exec(output)![1];
			const workflows = (await rest('GET', '/workflows')) as Array<{ id: string; name: string }>;
			for (const [pattern, file] of [
				[/barcode export/i, /^barcodes-\d+\.csv$/],
				[/spreadsheet file/i, /^sales-and-refunds\.xlsx$/],
				[/reference lists daily \(files/i, /^countries\.json$/],
				[/catalog on each change \(file/i, /^events\.json$/],
			] as const) {
				const workflow = workflows.find((w) => pattern.test(w.name))!;
				const { nodes } = (await rest('GET', `/workflows/${workflow.id}`)) as {
					nodes: CanvasNode[];
				};
				// as the big button asks: the schedule of a scheduled example, the catalog's poll
				await rest('POST', `/workflows/${workflow.id}/run`, {
					triggerToStartFrom: { name: defaultTrigger(nodes)!.name },
				});
				const filter = encodeURIComponent(JSON.stringify({ workflowId: workflow.id }));
				const run = await until(
					async () => {
						const [last] = (
							(await rest('GET', `/executions?filter=${filter}`)) as {
								results: Array<{ status: string }>;
							}
						).results;
						return last && !['new', 'running'].includes(last.status) && last;
					},
					`"${workflow.name}" to finish`,
					120_000,
				);
				expect([workflow.name, run.status]).toEqual([workflow.name, 'success']);
				expect([workflow.name, readdirSync(folder).some((f) => file.test(f))]).toEqual([
					workflow.name,
					true,
				]);
			}
		},
	);

	it('Ctrl+C stops n8n and the sandbox and removes the data folder', async () => {
		const n8nPids = processesUsing(printed.dataFolder);
		expect(n8nPids.length).toBeGreaterThanOrEqual(1);
		expect(await listening(printed.editor)).toBe(true);

		process.kill(-demo.child.pid!, 'SIGINT');
		const ended = await Promise.race([
			demo.exited,
			new Promise((r) => setTimeout(() => r('still running after 30 s'), 30_000).unref()),
		]);
		expect([0, 'SIGINT']).toContain(ended);

		expect(demo.output).toContain('stopping n8n and the sandbox');
		expect(processesUsing(printed.dataFolder)).toEqual([]);
		expect(n8nPids.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
		expect(await listening(printed.editor)).toBe(false);
		expect(await listening(printed.sandbox)).toBe(false);
		expect(existsSync(printed.dataFolder)).toBe(false);
	});
});
