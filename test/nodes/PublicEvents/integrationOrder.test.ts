import type { IDataObject } from 'n8n-workflow';

import { PublicEvents } from '../../../nodes/PublicEvents/PublicEvents.node';
import { runWorkflow, type WorkflowNode } from '../../../harness/engine';
import { credentialFor, mark, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { onlyEvents } from '../../../harness/sandbox/suite';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(3, 20));
});
afterAll(() => sb.stop());

const step = (name: string, parameters: IDataObject): WorkflowNode => ({
	name,
	nodeType: new PublicEvents(),
	type: 'CUSTOM.publicEvents',
	parameters: parameters as never,
});
const byExpression = (expression: string) => ({
	__rl: true,
	mode: 'id',
	value: `={{ ${expression} }}`,
});

/**
 * The integration order, steps 2-5 (docs/architecture.md), as a user builds them: each step takes
 * its ids from the one before.
 */
const integrationOrder = (payOptions: IDataObject = {}) => [
	step('Get Events', { resource: 'event', operation: 'getMany', returnAll: false, limit: 1 }),
	step('Get Places', {
		resource: 'hallPlan',
		operation: 'getPlaces',
		eventId: byExpression('$json.id'),
		returnAll: false,
		limit: 1,
		options: { onlyAvailable: true },
	}),
	step('Create Order', {
		resource: 'order',
		operation: 'create',
		eventId: byExpression("$('Get Events').item.json.id"),
		places: byExpression('$json.id'),
		priceCategory: '={{ $json.priceCategories[0].id }}',
		reservedMinutes: 15,
	}),
	step('Pay', {
		resource: 'order',
		operation: 'changeStatus',
		orderId: '={{ $json.id }}',
		toStatus: 'paid',
		options: payOptions,
	}),
];

describe("the spec's integration order as one n8n workflow", () => {
	it(
		'token, events, places, order, paid: the output carries the ' +
			'tickets with barcodes; one token request',
		async () => {
			const { store } = credentialFor(sb);
			const [event] = await sb.getAll('/event-points');
			const place = (await sb.getAll(`/event-points/${event.id}/places`)).find(
				(p) => p.availableCount > 0,
			);
			const before = await mark(sb);

			const { executed, output, error } = await runWorkflow({
				nodes: integrationOrder(),
				credentials: store,
			});

			expect(error).toBeUndefined();
			expect(executed).toEqual(['Get Events', 'Get Places', 'Create Order', 'Pay']);
			expect(output('Get Places').map((item) => item.json.id)).toEqual([place.id]);
			const [paid] = output('Pay');
			expect(paid.json).toEqual(
				expect.objectContaining({ id: output('Create Order')[0].json.id, status: 'paid' }),
			);
			const tickets = paid.json.tickets as IDataObject[];
			expect(tickets).toHaveLength(1);
			expect(tickets[0]).toEqual(
				expect.objectContaining({ placeId: place.id, barcode: expect.stringMatching(/^\d{13}$/) }),
			);

			const log = (await since(sb, before)).map((e) => `${e.method} ${e.route} ${e.status}`);
			expect(log).toEqual([
				'POST /token 200',
				'GET /event-points 200',
				'GET /event-points/{id}/places 200',
				'POST /orders 201',
				// Create answers without tickets: the order named is read once (its places are these).
				'GET /orders/{id} 200',
				'PUT /orders/{id}/status 200',
			]);
			// What the sandbox now holds agrees: the place is sold, the order paid with the same barcode.
			const stored = (await sb.get(`/orders/${paid.json.id}`)).body;
			expect(stored.tickets[0].barcode).toBe(tickets[0].barcode);
			expect(
				(await sb.getAll(`/event-points/${event.id}/places`)).find((p) => p.id === place.id)
					.availableCount,
			).toBe(0);
		},
	);

	it(
		'with Split Tickets Into Items on the last step, each ticket ' +
			'is a row paired back to its order',
		async () => {
			const { store } = credentialFor(sb);
			const nodes = integrationOrder({ splitTickets: true });
			nodes[1].parameters = { ...nodes[1].parameters, limit: 2 };
			const before = await mark(sb);

			const { output, error } = await runWorkflow({ nodes, credentials: store });

			expect(error).toBeUndefined();
			// Two places, so two orders (one per item), and one row per ticket of each.
			const orders = output('Create Order').map((item) => item.json.id);
			expect(orders).toHaveLength(2);
			const rows = output('Pay');
			expect(rows.map((row) => [row.json.orderId, row.json.orderStatus, row.pairedItem])).toEqual([
				[orders[0], 'paid', { item: 0 }],
				[orders[1], 'paid', { item: 1 }],
			]);
			expect(rows.every((row) => /^\d{13}$/.test(String(row.json.barcode)))).toBe(true);
			expect((await since(sb, before)).filter((e) => e.route === '/token')).toHaveLength(1);
		},
	);
});
