import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { credentialFor, ids, mark, routed, since } from '../../harness/nodes/publicEvents';
import { runToolAgent, type ToolCall } from '../../harness/nodes/toolAgent';
import { SandboxClient } from '../../harness/sandbox/client';

/**
 * The AI ticket desk's Find Events tool as shipped (examples/ai-ticket-desk.json), called the way
 * n8n calls it for an agent or its MCP Server Trigger: n8n-core builds the tool from the node
 * (its `$fromAI()` parameters become the input schema) and the agent's arguments fill them. Real
 * n8n serves the same tool to an MCP client in test/e2e/mcp.e2e.test.ts.
 */
const desk = JSON.parse(
	readFileSync(join(__dirname, '..', '..', 'examples', 'ai-ticket-desk.json'), 'utf8'),
) as { nodes: Array<{ name: string; parameters: INodeParameters }> };
const FIND = 'Find Events';
const findEvents = desk.nodes.find((n) => n.name === FIND)!.parameters;

let sb: SandboxClient;
let events: any[];
beforeAll(async () => {
	sb = await SandboxClient.start({ events: 120, placesPerEvent: 2, archivedEvents: 0 });
	events = await sb.getAll('/event-points');
});
afterAll(() => sb.stop());

const ask = async (...calls: Array<ToolCall['args']>) =>
	await runToolAgent(
		credentialFor(sb).store,
		{ [FIND]: findEvents },
		calls.map((args) => ({ tool: FIND, args })),
	);
const asItems = (answer: unknown) => (answer as IDataObject[]).map((json) => ({ json }));

describe('AI ticket desk: Find Events searches by city and by show', () => {
	it('its input schema: city and show beside the days and the limit, all optional', async () => {
		const [answer] = await ask({});
		expect(answer.schemaKeys).toEqual([
			'city',
			'limit',
			'show',
			'startsOnOrAfter',
			'startsOnOrBefore',
		]);
		expect(answer.requiredKeys).toEqual([]);
		// Nothing given: the first 10 events on sale, soonest first.
		expect(answer.answer).toHaveLength(10);
	});

	it(
		"a city and words of a show's name, as a customer says them: exactly the events of that " +
			'show in that city, soonest first',
		async () => {
			const [first] = events;
			const performer = String(first.eventName).split(':')[0];
			const expected = events
				.filter((e) => e.city.id === first.city.id && e.eventName.startsWith(`${performer}:`))
				.sort((a, b) => a.dateStarted.localeCompare(b.dateStarted))
				.slice(0, 10)
				.map((e) => String(e.id));
			expect(expected.length).toBeGreaterThan(0);
			const before = await mark(sb);

			const [answer] = await ask({
				city: String(first.city.name).toUpperCase(),
				show: performer.toLowerCase(),
			});

			expect(ids(asItems(answer.answer))).toEqual(expected);
			for (const event of answer.answer as any[]) expect(event.city).toBe(first.city.name);
			const log = await since(sb, before);
			expect(routed(log, '/cities')).toHaveLength(1);
			expect(
				routed(log, '/event-points').every((e) =>
					new URLSearchParams(e.query).getAll('city.id[]').includes(String(first.city.id)),
				),
			).toBe(true);
		},
	);

	it('a city no list has: words saying so and naming the cities, no event searched', async () => {
		const before = await mark(sb);
		const [answer] = await ask({ city: 'Atlantis', show: '' });
		expect(answer.answer).toEqual([
			{
				message: expect.stringMatching(
					new RegExp(
						'^No city is named "Atlantis" in the service\'s list of cities, so no events were ' +
							'searched\\. The cities are: .*Berlin',
					),
				),
			},
		]);
		expect(routed(await since(sb, before), '/event-points')).toEqual([]);
	});

	it('a show no event has: words saying so', async () => {
		const [answer] = await ask({ show: 'Hamlet', city: 'Vienna' });
		expect(answer.answer).toEqual([
			{ message: 'No event was found whose name contains "Hamlet" in Vienna (Austria).' },
		]);
	});

	it('a wrong type is refused by the schema n8n built from $fromAI: nothing is sent', async () => {
		const before = await mark(sb);
		const [answer] = await ask({ city: 42 });
		expect(answer.answer).toEqual({
			error: expect.stringMatching(/did not match expected schema[\s\S]*at city/),
		});
		expect((await since(sb, before)).filter((e) => e.route !== '/token')).toEqual([]);
	});

	it('a show of no letter or digit fails naming the field before any request', async () => {
		const before = await mark(sb);
		const [answer] = await ask({ show: '?!', city: 'Berlin' });
		expect(answer.answer).toEqual({
			error: expect.stringMatching(/^Name Contains: expected letters or digits, got "\?!"/),
		});
		expect((await since(sb, before)).filter((e) => e.route !== '/token')).toEqual([]);
	});
});
