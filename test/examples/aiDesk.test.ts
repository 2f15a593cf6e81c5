import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The AI ticket desk (examples/ai-ticket-desk.json) as an agent meets it: the tools it may call and
 * what each tells it. Real n8n serves it to an MCP client in test/e2e/mcp.e2e.test.ts.
 */
const desk = JSON.parse(
	readFileSync(join(__dirname, '..', '..', 'examples', 'ai-ticket-desk.json'), 'utf8'),
) as {
	nodes: Array<{ name: string; type: string; parameters: Record<string, any> }>;
	connections: Record<string, { ai_tool?: Array<Array<{ node: string }>> }>;
};
const tools = desk.nodes.filter((n) => n.type === 'n8n-nodes-public-events.publicEventsTool');
const trigger = desk.nodes.find((n) => n.type.endsWith('mcpTrigger'))!;
/** n8n's tool name: the node's name with other characters turned to `_`. */
const toolName = (name: string) => name.replace(/[^a-zA-Z0-9_-]/g, '_');
const operation = (name: string) => {
	const { resource, operation: op } = tools.find((t) => t.name === name)!.parameters;
	return `${resource}.${op}`;
};
const fromAi = (value: unknown) =>
	[...JSON.stringify(value).matchAll(/\$fromAI\('(\w+)'/g)].map((m) => m[1]);

describe('AI ticket desk', () => {
	it('serves four tools: find events, hold the best places, read and release an order', () => {
		expect(Object.fromEntries(tools.map((t) => [t.name, operation(t.name)]))).toEqual({
			'Find Events': 'event.getMany',
			'Hold Best Available': 'order.holdBestAvailable',
			'Get Order': 'order.get',
			'Release Hold': 'order.changeStatus',
		});
		for (const tool of tools)
			expect([tool.name, desk.connections[tool.name]?.ai_tool?.flat().map((c) => c.node)]).toEqual([
				tool.name,
				[trigger.name],
			]);
	});

	it(
		'the agent never picks place IDs or a price category: it gives the event, how many and ' +
			'whether together; the node picks the rest',
		() => {
			const hold = tools.find((t) => t.name === 'Hold Best Available')!.parameters;
			expect([hold.price, hold.reservedMinutes]).toEqual(['cheapest', 15]);
			expect(hold).not.toHaveProperty('priceCategoryId');
			expect(hold).not.toHaveProperty('sectorId');
			expect(fromAi(hold).sort()).toEqual(['eventId', 'places', 'together']);
			// Everything the agent gives on the desk: no place, price category or sector among it.
			expect([...new Set(tools.flatMap((t) => fromAi(t.parameters)))].sort()).toEqual([
				'city',
				'eventId',
				'limit',
				'orderId',
				'places',
				'show',
				'startsOnOrAfter',
				'startsOnOrBefore',
				'together',
			]);
		},
	);

	it('its only status change releases a hold: no tool reports a payment or refunds', () => {
		const changes = tools.filter((t) => t.parameters.operation === 'changeStatus');
		expect(changes.map((t) => [t.name, t.parameters.toStatus])).toEqual([
			['Release Hold', 'expired'],
		]);
		expect(fromAi(changes[0].parameters)).toEqual(['orderId']);
	});

	it(
		"every tool's description says when to use it and names only tools of the desk; the " +
			"trigger's instructions name every tool and say who picks the places",
		() => {
			const names = tools.map((t) => toolName(t.name));
			for (const tool of tools) {
				const text = String(tool.parameters.toolDescription);
				expect([tool.name, text]).toEqual([
					tool.name,
					expect.stringMatching(/^Use (first|when|once|as soon as)\b/),
				]);
				const named = [...text.matchAll(/\b[A-Z][a-z]+(?:_[A-Z][a-z]+)+\b/g)].map((m) => m[0]);
				expect([tool.name, named.filter((n) => !names.includes(n))]).toEqual([tool.name, []]);
			}
			const instructions = String(trigger.parameters.instructions);
			for (const name of names) expect([name, instructions.includes(name)]).toEqual([name, true]);
			expect(instructions).toMatch(/Never choose place or price ids yourself/);
			expect(instructions).toMatch(/Release_Hold as soon as the customer no longer wants/);
		},
	);
});
