/**
 * Public Events as tools for AI agents, in real n8n 2.x: the shipped example
 * examples/ai-ticket-desk.json (n8n's MCP Server Trigger with four Public Events tools) is
 * published, and a real MCP client (@modelcontextprotocol/sdk over Streamable HTTP) plays the
 * agent: it lists the tools, finds an event, holds the best places, reads the order and releases
 * it against the sandbox. No LLM is involved: the test picks the arguments a model would pick from
 * each answer.
 * The example is closed: its trigger asks for a Bearer token (a credential this suite creates
 * with a random one), and a caller without it, or with a wrong one, runs nothing.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index';
// The SDK's subpaths without .js: the lint's import resolver does not map its exports wildcard with
// one (Jest adds it).
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp';

import {
	apiCredential,
	N8nInstance,
	REPO_ROOT,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { n8nWithSandbox } from '../../harness/n8n/withSandbox';
import { until } from '../../harness/sandbox/push';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { SandboxClient } from '../../harness/sandbox/client';
import { OWNER } from '../../harness/n8n/owner';

const example = JSON.parse(
	readFileSync(join(REPO_ROOT, 'examples', 'ai-ticket-desk.json'), 'utf8'),
) as {
	id: string;
	nodes: Array<{ name: string; type: string; parameters: any; credentials?: any }>;
};
const DEMO_API = example.nodes.find((n) => n.credentials?.publicEventsApi)!.credentials
	.publicEventsApi as { id: string; name: string };
const trigger = example.nodes.find((n) => n.type.endsWith('mcpTrigger'))!;
const PATH = trigger.parameters.path as string;
const BEARER = trigger.credentials.httpBearerAuth as { id: string; name: string };
const TOKEN = randomBytes(32).toString('base64url');
/** What the rotation test saves in the credential in place of TOKEN. */
const ROTATED = randomBytes(32).toString('base64url');
/** The path the example had while it was open: it must serve nothing now. */
const OLD_PATH = 'public-events-desk';
const INITIALIZE = {
	jsonrpc: '2.0',
	id: 1,
	method: 'initialize',
	params: {
		protocolVersion: '2025-03-26',
		capabilities: {},
		clientInfo: { name: 'stranger', version: '1.0.0' },
	},
};

type ToolResult = { isError?: boolean; content: Array<{ type: string; text: string }> };

describe(
	'real n8n: the AI ticket desk example served by the MCP ' + 'Server Trigger to an MCP client',
	() => {
		let sandbox: SandboxClient;
		let packed: PackedPackage;
		let n8n: N8nInstance;
		let server: N8nServer;
		let client: Client;
		let transport: StreamableHTTPClientTransport;
		let cookie: string;

		const connectAs = (headers: Record<string, string>) =>
			new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/${PATH}`), {
				requestInit: { headers },
			});

		/** A raw Streamable HTTP request, as any HTTP client could send it. */
		async function raw(
			method: string,
			path: string,
			headers: Record<string, string>,
			body?: object,
		): Promise<{ status: number; text: string }> {
			const res = await fetch(`${server.url}/mcp/${path}`, {
				method,
				headers: {
					accept: 'application/json, text/event-stream',
					...(body ? { 'content-type': 'application/json' } : {}),
					...headers,
				},
				body: body && JSON.stringify(body),
				signal: AbortSignal.timeout(30_000),
			});
			return { status: res.status, text: await res.text() };
		}

		const holdsOf = async (eventId: number) =>
			(
				await sandbox.get(`/event-points/${eventId}/orders`, {
					query: { status: 'reserved_to_time' },
				})
			).body.length as number;
		const executions = async () =>
			(
				(await server.rest(
					cookie,
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: example.id }))}`,
				)) as { count: number }
			).count;
		/**
		 * Tool calls made with the token so far: each is one execution, saved shortly after its answer.
		 */
		let toolCalls = 0;
		const settledExecutions = () =>
			until(
				async () => (await executions()) === toolCalls && toolCalls,
				'one saved execution per tool call',
				30_000,
			);

		async function call(
			name: string,
			args: Record<string, unknown>,
		): Promise<{ result: ToolResult; text: string; json: any }> {
			toolCalls++;
			const result = (await client.callTool({ name, arguments: args })) as ToolResult;
			const text = result.content.map((c) => c.text).join('');
			let json: unknown;
			try {
				json = JSON.parse(text);
			} catch {
				json = undefined;
			}
			return { result, text, json };
		}

		beforeAll(async () => {
			({ sandbox, packed, n8n } = await n8nWithSandbox({ placesPerEvent: 40 }));
			await n8n.importCredentials([
				apiCredential(DEMO_API, sandbox.sandbox.baseUrl, sandbox.keys.partner),
				{ ...BEARER, type: 'httpBearerAuth', data: { token: TOKEN } },
			]);
			await n8n.importWorkflow(example);
			server = await n8n.start();
			cookie = await server.setupOwner(OWNER);
			await server.activateWorkflow(cookie, example.id);
			// n8n answers the activation before the endpoint serves: connect once it does.
			await until(
				async () => {
					const candidate = new Client({ name: 'e2e-agent', version: '1.0.0' });
					const candidateTransport = connectAs({ Authorization: `Bearer ${TOKEN}` });
					try {
						await candidate.connect(candidateTransport);
						client = candidate;
						transport = candidateTransport;
						return true;
					} catch {
						await candidate.close().catch(() => undefined);
						return false;
					}
				},
				'the MCP endpoint to serve',
				60_000,
			);
		});

		afterAll(async () => {
			await client?.close().catch(() => undefined);
			await server?.stop();
			n8n?.cleanup();
			packed?.cleanup();
			await sandbox?.stop();
		});

		it(
			'lists the four tools, each description saying when to use it, and $fromAI inputs as ' +
				'their schema: no place or price category among them',
			async () => {
				const { tools } = await client.listTools();
				const byName = Object.fromEntries(tools.map((t) => [t.name, t]));

				expect(Object.keys(byName).sort()).toEqual([
					'Find_Events',
					'Get_Order',
					'Hold_Best_Available',
					'Release_Hold',
				]);
				for (const tool of tools)
					expect(tool.description).toMatch(/^Use (first|when|once|as soon as)\b/);
				expect(byName.Hold_Best_Available.description).toMatch(
					/never place or price IDs: this tool picks them/,
				);
				expect(byName.Release_Hold.description).toMatch(/no longer wants places held for them/);

				const schema = (name: string) =>
					byName[name].inputSchema as {
						properties: Record<string, { type: string; description?: string }>;
						required?: string[];
					};
				expect(Object.keys(schema('Find_Events').properties).sort()).toEqual([
					'city',
					'limit',
					'show',
					'startsOnOrAfter',
					'startsOnOrBefore',
				]);
				// Every search is optional: the agent may ask what is on at all.
				expect(schema('Find_Events').required ?? []).toEqual([]);
				expect(byName.Find_Events.description).toMatch(/city \(a city's name/);
				expect(byName.Find_Events.description).toMatch(/show \(words from the event's name/);
				expect(Object.keys(schema('Hold_Best_Available').properties).sort()).toEqual([
					'eventId',
					'places',
					'together',
				]);
				expect(schema('Hold_Best_Available').required?.sort()).toEqual(['eventId', 'places']);
				expect(schema('Hold_Best_Available').properties.eventId).toEqual(
					expect.objectContaining({
						type: 'number',
						description: expect.stringContaining('Find_Events'),
					}),
				);
				expect(schema('Get_Order').required).toEqual(['orderId']);
				expect(schema('Release_Hold').required).toEqual(['orderId']);
			},
		);

		it(
			'plays the sale up to payment: events -> the best places held once in the sandbox -> the ' +
				'order -> released at once, its places free again',
			async () => {
				const events = await call('Find_Events', { startsOnOrAfter: '2026-01-01' });
				expect(events.result.isError).toBeFalsy();
				// Simplified and limited on the tool: 10 events, names instead of records.
				expect(events.json).toHaveLength(10);
				for (const event of events.json) {
					expect(Object.keys(event)).toEqual(
						expect.arrayContaining([
							'id',
							'eventName',
							'dateStarted',
							'venue',
							'city',
							'minPrice',
							'countAvailableTickets',
						]),
					);
					expect(event).not.toHaveProperty('media');
					expect(typeof event.venue).toBe('string');
				}
				const event = events.json.find((e: any) => e.countAvailableTickets > 1);
				console.log(`what the agent read: 10 events ${events.text.length} characters`);

				const holdsBefore = await holdsOf(event.id);
				const hold = await call('Hold_Best_Available', { eventId: event.id, places: 2 });
				expect(hold.result.isError).toBeFalsy();
				expect(hold.json).toEqual([
					expect.objectContaining({
						id: expect.anything(),
						status: 'reserved_to_time',
						reservedToDate: expect.any(String),
						places: [
							expect.objectContaining({ sectorName: expect.any(String) }),
							expect.objectContaining({ sectorName: expect.any(String) }),
						],
					}),
				]);
				const orderId = hold.json[0].id;
				// Exactly one new hold, holding the places the tool answered.
				expect(await holdsOf(event.id)).toBe(holdsBefore + 1);
				const inSandbox = (await sandbox.get(`/orders/${orderId}`)).body;
				expect(inSandbox.tickets.map((t: any) => String(t.placeId)).sort()).toEqual(
					hold.json[0].places.map((p: any) => String(p.id)).sort(),
				);

				const got = await call('Get_Order', { orderId });
				expect(got.result.isError).toBeFalsy();
				expect(got.json).toEqual([
					expect.objectContaining({ id: orderId, status: 'reserved_to_time' }),
				]);

				// The customer walks away: the hold ends at once, its places on sale again.
				const released = await call('Release_Hold', { orderId });
				expect(released.result.isError).toBeFalsy();
				expect(released.json).toEqual([
					expect.objectContaining({ id: orderId, status: 'expired' }),
				]);
				expect((await sandbox.get(`/orders/${orderId}`)).body.status).toBe('expired');
				expect(await holdsOf(event.id)).toBe(holdsBefore);
				const plan = await sandbox.getAll(`/event-points/${event.id}/places`);
				for (const place of hold.json[0].places)
					expect(
						plan.find((p: any) => String(p.id) === String(place.id)).availableCount,
					).toBeGreaterThan(0);
			},
		);

		it(
			'finds by city and show as a customer names them: exactly the events of that show in ' +
				'that city; a city no list has is answered in words',
			async () => {
				const all = await sandbox.getAll('/event-points');
				const performerOf = (e: any) => String(e.eventName).split(':')[0];
				const matching = (e: any, by: any) =>
					e.city.id === by.city.id && performerOf(e) === performerOf(by);
				// A city and a show each with events beyond the other: both filters must do their part.
				const first = all.find(
					(by) =>
						all.some((e) => e.city.id === by.city.id && !matching(e, by)) &&
						all.some((e) => performerOf(e) === performerOf(by) && !matching(e, by)),
				);
				const performer = performerOf(first);
				const expected = all
					.filter((e) => matching(e, first))
					.sort((a, b) => a.dateStarted.localeCompare(b.dateStarted))
					.slice(0, 10)
					.map((e) => String(e.id));
				expect(expected.length).toBeGreaterThan(0);

				const found = await call('Find_Events', {
					city: String(first.city.name).toLowerCase(),
					show: performer.toUpperCase(),
				});
				expect(found.result.isError).toBeFalsy();
				expect(found.json.map((e: any) => String(e.id))).toEqual(expected);
				for (const event of found.json) expect(event.city).toBe(first.city.name);

				const nowhere = await call('Find_Events', { city: 'Atlantis', show: '' });
				expect(nowhere.result.isError).toBeFalsy();
				expect(nowhere.json).toEqual([
					{ message: expect.stringMatching(/^No city is named "Atlantis".*The cities are: /) },
				]);
			},
		);

		it('Release_Hold cannot undo a sale: a paid order stays paid, the error says so', async () => {
			const places = await sandbox.freePlaces(1002, 1);
			const created = await sandbox.send('POST', '/orders', {
				eventPoint: '1002',
				places: places.ids,
				priceCategory: places.priceCategory,
			});
			const paid = await sandbox.send('PUT', `/orders/${created.body.id}/status`, {
				toStatus: 'paid',
			});
			expect(paid.status).toBe(200);

			const refused = await call('Release_Hold', { orderId: created.body.id });
			expect(refused.result.isError).toBe(true);
			expect(refused.text).toMatch(/paid/);
			expect((await sandbox.get(`/orders/${created.body.id}`)).body.status).toBe('paid');
		});

		it('more places than an order may hold: the error names the limit, nothing held', async () => {
			const { ticketsPerOrder } = sandbox.app.options.limits;
			const events = await call('Find_Events', {});
			const event = events.json.find((e: any) => e.countAvailableTickets > ticketsPerOrder);
			const before = await holdsOf(event.id);

			const tooMany = await call('Hold_Best_Available', {
				eventId: event.id,
				places: ticketsPerOrder + 1,
			});
			expect(tooMany.result.isError).toBe(true);
			expect(tooMany.text).toContain(String(ticketsPerOrder));
			expect(await holdsOf(event.id)).toBe(before);
		});

		it(
			'closed: without the token, with a wrong one or a malformed ' +
				'header, every method of the endpoint is refused and no MCP ' +
				'exchange starts',
			async () => {
				const strangers: Array<[string, Record<string, string>]> = [
					['no header', {}],
					['a wrong token', { Authorization: `Bearer ${randomBytes(32).toString('base64url')}` }],
					['the token without "Bearer"', { Authorization: TOKEN }],
					[
						'the token with one character off',
						{ Authorization: `Bearer ${TOKEN.slice(0, -1)}${TOKEN.endsWith('A') ? 'B' : 'A'}` },
					],
					[
						'the token as Basic auth',
						{ Authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
					],
				];
				const before = await settledExecutions();
				for (const [who, headers] of strangers) {
					for (const [method, body] of [
						['POST', INITIALIZE],
						['GET', undefined],
						['DELETE', undefined],
					] as const) {
						const answer = await raw(method, PATH, headers, body);
						// n8n answers 403 for a missing token as for a wrong one.
						expect([who, method, [401, 403].includes(answer.status), answer.text]).toEqual([
							who,
							method,
							true,
							expect.not.stringMatching(/jsonrpc|serverInfo|Find_Events/),
						]);
					}
					const stranger = new Client({ name: 'stranger', version: '1.0.0' });
					const refused = await stranger.connect(connectAs(headers)).then(
						() => 'connected',
						(error: { code?: number }) => error.code,
					);
					expect([who, [401, 403].includes(refused as number)]).toEqual([who, true]);
					await stranger.close().catch(() => undefined);
				}
				// The same request with the token is answered: what was refused was the caller.
				expect(await raw('POST', PATH, { Authorization: `Bearer ${TOKEN}` }, INITIALIZE)).toEqual({
					status: 200,
					text: expect.stringContaining('serverInfo'),
				});
				expect(await executions()).toBe(before);
			},
		);

		it(
			'a session opened with the token does not let a caller ' +
				'without it hold places: no hold, no execution, no API call',
			async () => {
				const event = (await call('Find_Events', {})).json.find(
					(e: any) => e.countAvailableTickets > 0,
				);
				const holdPlace = {
					jsonrpc: '2.0',
					id: 99,
					method: 'tools/call',
					params: {
						name: 'Hold_Best_Available',
						arguments: { eventId: event.id, places: 1 },
					},
				};
				// The session ID travels in a header any proxy log may show: it must not stand in for the
				// token.
				const session = {
					'mcp-session-id': transport.sessionId!,
					'mcp-protocol-version': '2025-03-26',
				};
				expect(session['mcp-session-id']).toEqual(expect.any(String));
				const holds = await holdsOf(event.id);
				const runs = await settledExecutions();
				const seq = sandbox.app.log.lastSeq;

				for (const headers of [
					session,
					{ ...session, Authorization: 'Bearer wrong-token-of-the-right-length-0000000000' },
				]) {
					const answer = await raw('POST', PATH, headers, holdPlace);
					expect([401, 403]).toContain(answer.status);
				}
				expect(await holdsOf(event.id)).toBe(holds);
				expect(await executions()).toBe(runs);
				expect(sandbox.app.log.since(seq).filter((e) => e.method !== 'GET')).toEqual([]);

				// The same request with the token holds the place: the refusal was the only difference.
				const allowed = await raw(
					'POST',
					PATH,
					{ ...session, Authorization: `Bearer ${TOKEN}` },
					holdPlace,
				);
				expect(allowed.status).toBe(200);
				expect(
					await until(
						async () => (await holdsOf(event.id)) === holds + 1,
						'the hold made with the token',
						30_000,
					),
				).toBe(true);
				// n8n saves tool runs as executions, so "no execution" above was a real check.
				toolCalls++;
				expect(await settledExecutions()).toBe(runs + 1);
			},
		);

		it('the old guessable path serves nothing, with or without the token', async () => {
			expect(PATH).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
			for (const headers of [{}, { Authorization: `Bearer ${TOKEN}` }] as Array<
				Record<string, string>
			>) {
				expect((await raw('POST', OLD_PATH, headers, INITIALIZE)).status).toBe(404);
				expect((await raw('GET', OLD_PATH, headers)).status).toBe(404);
			}
		});

		it(
			'rotating: a new token saved in the credential works at once ' +
				'and the old one is refused, without re-publishing',
			async () => {
				await server.rest(cookie, 'PATCH', `/credentials/${BEARER.id}`, {
					name: BEARER.name,
					type: 'httpBearerAuth',
					data: { token: ROTATED },
				});
				expect(
					(await raw('POST', PATH, { Authorization: `Bearer ${TOKEN}` }, INITIALIZE)).status,
				).toBe(403);
				expect(await raw('POST', PATH, { Authorization: `Bearer ${ROTATED}` }, INITIALIZE)).toEqual(
					{
						status: 200,
						text: expect.stringContaining('serverInfo'),
					},
				);
			},
		);

		it(
			'never exposes payment, refunds or ticket status changes (its one status change ' +
				'releases a hold), and nothing printed holds a key or a token',
			() => {
				const operations = example.nodes
					.filter((n) => n.type.endsWith('publicEventsTool'))
					.map((n) => `${n.parameters.resource}.${n.parameters.operation}`);
				expect(operations.sort()).toEqual([
					'event.getMany',
					'order.changeStatus',
					'order.get',
					'order.holdBestAvailable',
				]);
				expect(
					example.nodes
						.filter((n) => n.parameters.operation === 'changeStatus')
						.map((n) => n.parameters.toStatus),
				).toEqual(['expired']);
				expectNoSecrets(
					[n8n.printedText(), server.log()].join('\n'),
					secretsOf(sandbox, { 'MCP bearer token': TOKEN, 'rotated MCP bearer token': ROTATED }),
					'real n8n MCP tools',
				);
			},
		);
	},
);
