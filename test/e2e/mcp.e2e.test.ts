/**
 * Public Events as tools for AI agents, in real n8n 2.x: the shipped example
 * examples/ai-ticket-desk.json (n8n's MCP Server Trigger with four Public Events tools) is
 * published, and a real MCP client (@modelcontextprotocol/sdk over Streamable HTTP) plays the
 * agent: it lists the tools and calls them in the integration order against the sandbox. No
 * LLM is involved: the test picks the arguments a model would pick from each answer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index';
// The SDK's subpaths without .js: the lint's import resolver does not map its exports wildcard with one (Jest adds it).
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp';

import { apiCredential, ensureN8n, N8nInstance, packPackage, REPO_ROOT, toCustomTypes, type N8nServer, type PackedPackage } from '../../scripts/n8n/instance';
import { until } from '../helpers/push';
import { expectNoSecrets, secretsOf } from '../helpers/secrets';
import { SandboxClient } from '../helpers/sandboxClient';

const OWNER = { email: 'owner@e2e.invalid', firstName: 'E2E', lastName: 'Owner', password: 'E2e-owner-passw0rd' };
const example = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', 'ai-ticket-desk.json'), 'utf8')) as { id: string; nodes: Array<{ name: string; type: string; parameters: any; credentials?: any }> };
const DEMO_API = example.nodes.find((n) => n.credentials)!.credentials.publicEventsApi as { id: string; name: string };
const PATH = example.nodes.find((n) => n.type.endsWith('mcpTrigger'))!.parameters.path as string;

type ToolResult = { isError?: boolean; content: Array<{ type: string; text: string }> };

describe('real n8n: the AI ticket desk example served by the MCP Server Trigger to an MCP client', () => {
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let client: Client;

	async function call(name: string, args: Record<string, unknown>): Promise<{ result: ToolResult; text: string; json: any }> {
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
		const [install, started, pkg] = await Promise.all([ensureN8n(), SandboxClient.start({ placesPerEvent: 40 }), packPackage()]);
		sandbox = started;
		packed = pkg;
		n8n = await N8nInstance.create({ install, extensionsDir: packed.extensionsDir });
		await n8n.importCredentials([apiCredential(DEMO_API, sandbox.sandbox.baseUrl, sandbox.keys.partner)]);
		await n8n.importWorkflow(toCustomTypes(example));
		server = await n8n.start();
		const cookie = await server.setupOwner(OWNER);
		await server.activateWorkflow(cookie, example.id);
		// n8n answers the activation before the endpoint serves: connect once it does.
		await until(
			async () => {
				const candidate = new Client({ name: 'e2e-agent', version: '1.0.0' });
				try {
					await candidate.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/${PATH}`)));
					client = candidate;
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

	it('lists the four tools with descriptions saying where their IDs come from, and $fromAI inputs as their schema', async () => {
		const { tools } = await client.listTools();
		const byName = Object.fromEntries(tools.map((t) => [t.name, t]));

		expect(Object.keys(byName).sort()).toEqual(['Event_Places', 'Find_Events', 'Get_Order', 'Hold_Places']);
		expect(byName.Find_Events.description).toMatch(/^Search the events .* id \(the event ID every other tool takes\)/);
		expect(byName.Event_Places.description).toMatch(/by the event ID from the event search/);
		expect(byName.Hold_Places.description).toMatch(/place IDs and one price category ID every place offers \(both from the place list\)/);
		expect(byName.Get_Order.description).toMatch(/the id answered when the hold was created/);
		// Not n8n's generic "<action> in Public Events".
		for (const tool of tools) expect(tool.description).not.toMatch(/in Public Events$/);

		const schema = (name: string) => byName[name].inputSchema as { properties: Record<string, { type: string; description?: string }>; required?: string[] };
		expect(Object.keys(schema('Find_Events').properties).sort()).toEqual(['limit', 'startsOnOrAfter', 'startsOnOrBefore']);
		expect(schema('Event_Places').properties.eventId).toEqual(expect.objectContaining({ type: 'number', description: expect.stringContaining('Find_Events') }));
		expect(schema('Event_Places').required).toEqual(['eventId']);
		expect(schema('Hold_Places').required?.sort()).toEqual(['eventId', 'placeIds', 'priceCategoryId']);
		expect(schema('Hold_Places').properties.placeIds.type).toBe('string');
		expect(schema('Get_Order').required).toEqual(['orderId']);
	});

	it('plays the integration order: events -> free places -> a hold that exists once in the sandbox -> the order', async () => {
		const events = await call('Find_Events', { startsOnOrAfter: '2026-01-01' });
		expect(events.result.isError).toBeFalsy();
		// Simplified and limited on the tool: 10 events, names instead of records.
		expect(events.json).toHaveLength(10);
		for (const event of events.json) {
			expect(Object.keys(event)).toEqual(expect.arrayContaining(['id', 'eventName', 'dateStarted', 'venue', 'city', 'minPrice', 'countAvailableTickets']));
			expect(event).not.toHaveProperty('media');
			expect(typeof event.venue).toBe('string');
		}
		const event = events.json.find((e: any) => e.countAvailableTickets > 1);
		console.log(`what the agent read: 10 events ${events.text.length} characters`);

		const places = await call('Event_Places', { eventId: event.id });
		expect(places.result.isError).toBeFalsy();
		expect(places.json.length).toBeGreaterThan(1);
		expect(places.json.length).toBeLessThanOrEqual(10);
		for (const place of places.json) {
			expect(place.availableCount).toBeGreaterThan(0);
			expect(Object.keys(place).sort()).toEqual(['availableCount', 'id', 'placeName', 'priceCategories', 'rowName', 'sectorName']);
		}
		console.log(`what the agent read: ${places.json.length} free places ${places.text.length} characters`);
		const [first, second] = places.json;
		// Price category ID -> "name, price"; one both places offer.
		const category = Number(Object.keys(first.priceCategories).find((id) => id in second.priceCategories));

		const holdsBefore = await sandbox.get(`/event-points/${event.id}/orders`, { query: { status: 'reserved_to_time' } });
		const hold = await call('Hold_Places', { eventId: event.id, placeIds: `${first.id}, ${second.id}`, priceCategoryId: category });
		expect(hold.result.isError).toBeFalsy();
		expect(hold.json).toEqual([expect.objectContaining({ id: expect.anything(), status: 'reserved_to_time', reservedToDate: expect.any(String) })]);
		const orderId = hold.json[0].id;

		// Exactly one new hold, holding exactly those places.
		const holdsAfter = await sandbox.get(`/event-points/${event.id}/orders`, { query: { status: 'reserved_to_time' } });
		expect(holdsAfter.body.length).toBe(holdsBefore.body.length + 1);
		const inSandbox = (await sandbox.get(`/orders/${orderId}`)).body;
		expect(inSandbox.tickets.map((t: any) => String(t.placeId)).sort()).toEqual([String(first.id), String(second.id)].sort());

		const got = await call('Get_Order', { orderId });
		expect(got.result.isError).toBeFalsy();
		expect(got.json).toEqual([expect.objectContaining({ id: orderId, status: 'reserved_to_time' })]);

		// A place now taken: the error says what to do next, and nothing more is held.
		const taken = await call('Hold_Places', { eventId: event.id, placeIds: String(first.id), priceCategoryId: category });
		expect(taken.result.isError).toBe(true);
		expect(taken.text).toMatch(/pick other places from the event's place list/);
		const holdsLast = await sandbox.get(`/event-points/${event.id}/orders`, { query: { status: 'reserved_to_time' } });
		expect(holdsLast.body.length).toBe(holdsAfter.body.length);
	});

	it('more places than an order may hold: the error names the limit and its value, and nothing is held', async () => {
		const { ticketsPerOrder } = sandbox.app.options.limits;
		const events = await call('Find_Events', {});
		const event = events.json.find((e: any) => e.countAvailableTickets > ticketsPerOrder);
		const places = await call('Event_Places', { eventId: event.id, limit: ticketsPerOrder + 1 });
		expect(places.json).toHaveLength(ticketsPerOrder + 1);
		const shared = Object.keys(places.json[0].priceCategories).find((id) => places.json.every((p: any) => id in p.priceCategories));
		const held = async () => (await sandbox.get(`/event-points/${event.id}/orders`, { query: { status: 'reserved_to_time' } })).body.length;
		const before = await held();

		const tooMany = await call('Hold_Places', { eventId: event.id, placeIds: places.json.map((p: any) => p.id).join(', '), priceCategoryId: Number(shared) });
		expect(tooMany.result.isError).toBe(true);
		expect(tooMany.text).toContain(`A limit of the service was exceeded (limit ${ticketsPerOrder}, current ${ticketsPerOrder + 1})`);
		expect(await held()).toBe(before);
	});

	it('never exposes payment, refunds or ticket status changes, and nothing printed holds a key or a token', () => {
		const operations = example.nodes.filter((n) => n.type.endsWith('publicEventsTool')).map((n) => `${n.parameters.resource}.${n.parameters.operation}`);
		expect(operations.sort()).toEqual(['event.getMany', 'hallPlan.getPlaces', 'order.create', 'order.get']);
		expectNoSecrets([n8n.printedText(), server.log()].join('\n'), secretsOf(sandbox), 'real n8n MCP tools');
	});
});
