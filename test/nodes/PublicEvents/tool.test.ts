import type { INodeParameters } from 'n8n-workflow';

import { PublicEvents } from '../../../nodes/PublicEvents/PublicEvents.node';
import { allOperations } from '../../../nodes/PublicEvents/resources';
import { runNode } from '../../../harness/engine';
import { credentialFor, runPublicEvents } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';

/**
 * The node as an AI agent's tool. n8n wraps a usableAsTool node as `<name>Tool` with the same
 * properties and execute; its name is what turns `'@tool'` display options on (n8n-workflow's
 * displayParameter), so the tool gets Limit 10, Simplify on and a Description per operation.
 * The MCP e2e (test/e2e/mcp.e2e.test.ts) serves it from real n8n to an MCP client.
 */
class PublicEventsTool extends PublicEvents {
	description = { ...new PublicEvents().description, name: 'publicEventsTool' };
}

let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 30, placesPerEvent: 40 });
	store = credentialFor(sb).store;
});
afterAll(() => sb.stop());

const asTool = (parameters: INodeParameters) =>
	runNode({
		nodeType: new PublicEventsTool(),
		type: 'CUSTOM.publicEventsTool',
		parameters,
		credentials: store,
	});
/** What the agent reads: n8n hands a tool's items to it as one JSON text. */
const text = (items: Array<{ json: unknown }>) => JSON.stringify(items.map((i) => i.json));
const eventId = { __rl: true, mode: 'id', value: '1001' };

describe('Public Events as a tool', () => {
	it(
		'events: 10 by default, simplified to what an ' +
			'agent decides with; Simplify off gives the records',
		async () => {
			const tool = await asTool({ resource: 'event', operation: 'getMany' });
			const plain = await runPublicEvents(store, {
				resource: 'event',
				operation: 'getMany',
				limit: 10,
			});
			const full = await asTool({ resource: 'event', operation: 'getMany', simplify: false });

			expect([tool.error, plain.error, full.error]).toEqual([undefined, undefined, undefined]);
			expect(tool.items).toHaveLength(10);
			expect(tool.items.map((i) => i.json.id)).toEqual(plain.items.map((i) => i.json.id));
			expect(text(full.items)).toBe(text(plain.items));
			const [simple, record] = [tool.items[0].json, plain.items[0].json as any];
			expect(simple).toEqual({
				id: record.id,
				eventName: record.eventName,
				dateStarted: record.dateStarted,
				dateEndOfSale: record.dateEndOfSale,
				venue: record.venue.name,
				venueHall: record.venueHall.name,
				city: record.city.name,
				categories: record.categories.map((c: any) => c.name).join(', '),
				minPrice: `${record.minPrice.amount} ${record.minPrice.currency}`,
				maxPrice: `${record.maxPrice.amount} ${record.maxPrice.currency}`,
				countAvailableTickets: record.countAvailableTickets,
				...(record.minAgeLimit === null ? {} : { minAgeLimit: record.minAgeLimit }),
			});
			console.log(
				`10 events for an agent: ${text(plain.items).length} ` +
					`characters as records, ${text(tool.items).length} simplified`,
			);
			expect(text(tool.items).length).toBeLessThan(text(plain.items).length / 2);
		},
	);

	it(
		"places: simplified, with each price category's " +
			'id and price; the plain node keeps its output',
		async () => {
			const tool = await asTool({
				resource: 'hallPlan',
				operation: 'getPlaces',
				eventId,
				limit: 20,
			});
			const plain = await runPublicEvents(store, {
				resource: 'hallPlan',
				operation: 'getPlaces',
				eventId,
				limit: 20,
			});

			expect([tool.error, plain.error]).toEqual([undefined, undefined]);
			expect(tool.items).toHaveLength(20);
			const record = plain.items[0].json as any;
			expect(tool.items[0].json).toEqual({
				id: record.id,
				sectorName: record.sectorName,
				rowName: record.rowName,
				placeName: record.placeName,
				availableCount: record.availableCount,
				priceCategories: Object.fromEntries(
					record.priceCategories.map((c: any) => [
						String(c.id),
						`${c.name}, ${c.price.amount} ${c.price.currency}`,
					]),
				),
			});
			console.log(
				`20 places for an agent: ${text(plain.items).length} ` +
					`characters as records, ${text(tool.items).length} simplified`,
			);
			expect(text(tool.items).length).toBeLessThan(text(plain.items).length * 0.7);
		},
	);

	it('a Simplify that is not true or false stops the item, naming the field', async () => {
		const run = await asTool({
			resource: 'event',
			operation: 'getMany',
			simplify: '={{ "maybe" }}',
		});
		expect(run.error?.message).toMatch(/^Simplify: /);
	});

	it('each operation has its own Description for the agent; the plain node has none', () => {
		const tool = new PublicEventsTool().description.properties.filter(
			(p) => p.name === 'toolDescription',
		);
		expect(tool).toHaveLength(allOperations.length);
		for (const property of tool) expect(property.displayOptions?.show?.['@tool']).toEqual([true]);
		const of = (resource: string, operation: string) =>
			tool.find(
				(p) =>
					p.displayOptions?.show?.resource?.[0] === resource &&
					p.displayOptions?.show?.operation?.[0] === operation,
			)?.default;
		expect(of('order', 'create')).toMatch(
			new RegExp(
				'event ID \\(event search\\), the place IDs and one price categ' +
					'ory ID every place offers \\(both from the place list\\)',
			),
		);
		expect(of('hallPlan', 'getPlaces')).toMatch(/by the event ID from the event search/);
	});
});
