/**
 * A write is sent once per run of the node, and a retry is told from a new run by n8n's own signal,
 * not by what the items hold (retryGuard.ts). Against the sandbox, through n8n-core's engine:
 * - Retry On Fail, a later item refused: the retry gives the earlier items' orders again without a
 *   request, the last try's error names them (held with Keep Holds, released without), and the
 *   refused item is sent again;
 * - On Error: Continue, the first item refused (n8n retries then too): the applied items' orders
 *   are in the last try's output, sent once;
 * - two branches into one write node, and Loop Over Items with a batch of 1, feeding it items of
 *   the same content: each run of the node is its own; an earlier run's uncertain write is not
 *   thrown for a later run's item, whose write is sent.
 * Found by an outside round: Hold Best Available left item 1 held twice with one hold named;
 * Create's retry was refused by try 1's own hold and ended "NOT applied ... create the order
 * again"; the second branch's hold was never sent and got the first's "Uncertain ... order".
 */
import type { IDataObject } from 'n8n-workflow';

import {
	runWorkflow,
	type RunWorkflowResult,
	type WorkflowNode,
} from '../../../../../harness/engine';
import {
	FAN_OUT,
	FanOut,
	LOOP_OVER_ITEMS,
	LoopOverItems,
} from '../../../../../harness/engine/graphNodes';
import { byId, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { credentialFor, mark, since } from '../../../../../harness/nodes/publicEvents';
import { loseTheHoldsAnswer, sent } from '../../../../../harness/nodes/orderWrites';
import { PublicEvents } from '../../../../../nodes/PublicEvents/PublicEvents.node';

const suite = orderNodeSuite();
const { sb, newEvent } = suite;

/** Retry On Fail as a user sets it: 2 tries, 1 ms apart (0 would be n8n's default, 1 s). */
const RETRY = { retryOnFail: true, maxTries: 2, waitBetweenTries: 1 };

const write = (parameters: IDataObject, extra: Partial<WorkflowNode> = {}): WorkflowNode => ({
	name: 'Write',
	nodeType: new PublicEvents(),
	type: 'CUSTOM.publicEvents',
	parameters: { resource: 'order', ...parameters },
	...extra,
});

async function run(
	nodes: WorkflowNode[],
	inputItems: IDataObject[],
	links?: Parameters<typeof runWorkflow>[0]['links'],
) {
	const { store } = credentialFor(sb());
	const before = await mark(sb());
	const result = await runWorkflow({ nodes, links, inputItems, credentials: store });
	const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
	return { result, log };
}

/** The live orders on `eventId` (any buyer's), by id. */
async function live(eventId: number): Promise<string[]> {
	return [...sb().app.store.orders.values()]
		.filter((o) => o.eventPointId === eventId && o.status === 'reserved_to_time')
		.map((o) => String(o.id))
		.sort();
}

/** Everything the run said: the error of the write node's last run and every item it output. */
function said(result: RunWorkflowResult): string {
	const runs = result.runs('Write');
	return [
		result.error?.message ?? '',
		...runs.flatMap((r) => [r.error?.message ?? '', ...r.items.map((i) => JSON.stringify(i.json))]),
	].join('\n');
}

/** Another buyer's hold on `place`: a Create for it is refused (409). */
async function heldByAnother(eventId: number, place: string, priceCategory: string) {
	const made = await sb().send(
		'POST',
		'/orders',
		{ eventPoint: String(eventId), places: [place], priceCategory },
		'organiser',
	);
	expect(made.status).toBe(201);
	return String(made.body.id);
}

describe('Retry On Fail: a later item refused', () => {
	it.each([true, false])(
		'Hold Best Available, Keep Holds %s: item 1 held once, its order named by the last try',
		async (keepHolds) => {
			const event = await newEvent(20);
			const { result, log } = await run(
				[
					write(
						{
							operation: 'holdBestAvailable',
							eventId: byId('={{ $json.event }}'),
							quantity: 1,
							options: { keepHolds },
						},
						{ settings: RETRY },
					),
				],
				[{ event: String(event.id) }, { event: '999999' }],
			);
			expect(sent(log, 'POST', '/orders')).toBe(1);
			const message = result.error?.message ?? '';
			expect(message).toMatch(/Item 2 of 2 stopped the run/);
			const order = /order (\d+) \(item 1, places/.exec(message)?.[1];
			expect(order).toBeDefined();
			expect(await live(event.id)).toEqual(keepHolds ? [order] : []);
			expect(message).toMatch(keepHolds ? /is still held/ : /was released/);
			expect(message).not.toMatch(/next try/);
		},
	);

	it.each([true, false])(
		'Create, Keep Holds %s: the retry sends item 1 nothing, sends the refused item 2 again; ' +
			'no "NOT applied" for item 1',
		async (keepHolds) => {
			const event = await newEvent(20);
			const [first, second] = event.plan;
			const category = String(first.priceCategories[0].id);
			const other = await heldByAnother(event.id, String(second.id), category);
			const { result, log } = await run(
				[
					write(
						{
							operation: 'create',
							eventId: byId(String(event.id)),
							places: byId('={{ $json.place }}'),
							priceCategory: category,
							options: { keepHolds },
						},
						{ settings: RETRY },
					),
				],
				[{ place: String(first.id) }, { place: String(second.id) }],
			);
			// Item 1 once; item 2 (refused: not applied) once per try.
			expect(sent(log, 'POST', '/orders')).toBe(3);
			const message = result.error?.message ?? '';
			expect(message).toMatch(/^Refused: .*NOT applied/);
			expect(message).toMatch(/Item 2 of 2 stopped the run/);
			const order = /order (\d+) \(item 1, places/.exec(message)?.[1];
			expect(await live(event.id)).toEqual((keepHolds ? [order!, other] : [other]).sort());
		},
	);

	it('Change Status (Paid): item 1 paid once; the last try does not report it unpaid', async () => {
		const event = await newEvent(20);
		const [first] = event.plan;
		const made = await sb().send('POST', '/orders', {
			eventPoint: String(event.id),
			places: [String(first.id)],
			priceCategory: String(first.priceCategories[0].id),
		});
		const { result, log } = await run(
			[
				write(
					{ operation: 'changeStatus', orderId: '={{ $json.order }}', toStatus: 'paid' },
					{ settings: RETRY },
				),
			],
			[{ order: String(made.body.id) }, { order: '999999' }],
		);
		expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(3);
		expect(log.filter((e) => e.path === `/orders/${made.body.id}/status`)).toHaveLength(1);
		expect(result.error?.message).toMatch(/Item 2 of 2 stopped the run|999999/);
		expect((await sb().get(`/orders/${made.body.id}`)).body.status).toBe('paid');
	});
});

describe('Retry On Fail, On Error: Continue (n8n retries when the first item is an error)', () => {
	it('item 1 refused, item 2 held: item 2 sent once, its order in the last output', async () => {
		const event = await newEvent(20);
		const [first, second] = event.plan;
		const category = String(first.priceCategories[0].id);
		await heldByAnother(event.id, String(first.id), category);
		const { result, log } = await run(
			[
				write(
					{
						operation: 'create',
						eventId: byId(String(event.id)),
						places: byId('={{ $json.place }}'),
						priceCategory: category,
					},
					{ settings: RETRY, onError: 'continueRegularOutput' },
				),
			],
			[{ place: String(first.id) }, { place: String(second.id) }],
		);
		expect(result.runs('Write')).toHaveLength(1);
		const [refused, held] = result.output('Write').map((item) => item.json);
		expect(String(refused.error)).toMatch(/^Refused:/);
		const posted = log.filter((e) => e.method === 'POST' && e.route === '/orders');
		// Item 1 on each try, item 2 on the first only.
		expect(posted).toHaveLength(3);
		expect(await live(event.id)).toContain(String(held.id));
	});
});

/** The first POST /orders is applied and its answer lost, and every read back fails. */
async function loseFirstCreate() {
	await loseTheHoldsAnswer(sb());
}

describe('the same content, a new run of the node: not a retry', () => {
	afterEach(() => sb().admin('DELETE', '/faults'));

	const createEach = (event: number, place: string, category: string) =>
		write(
			{
				operation: 'create',
				eventId: byId(String(event)),
				places: byId(place),
				priceCategory: category,
				options: { confirmWaitSeconds: 0, maxRetries: 0 },
			},
			{ onError: 'continueRegularOutput' },
		);

	it('two branches into one write node: the second run is sent; each says its own', async () => {
		const event = await newEvent(20);
		const [first] = event.plan;
		await loseFirstCreate();
		const fan = { name: 'Fan', nodeType: new FanOut(), type: FAN_OUT };
		const { result, log } = await run(
			[fan, createEach(event.id, '={{ $json.place }}', String(first.priceCategories[0].id))],
			[{ place: String(first.id) }],
			[
				{ from: 'Start', to: 'Fan' },
				{ from: 'Fan', to: 'Write', output: 0 },
				{ from: 'Fan', to: 'Write', output: 1 },
			],
		);
		const runs = result.runs('Write');
		expect(runs).toHaveLength(2);
		// Both runs asked for the same place: the second is sent, and refused by the first's hold.
		expect(sent(log, 'POST', '/orders')).toBe(2);
		expect(String(runs[0].items[0].json.error)).toMatch(/^Uncertain:/);
		expect(String(runs[1].items[0].json.error)).toMatch(/^Refused:/);
		expect(said(result)).not.toMatch(/Uncertain[^\n]*\n[^\n]*Uncertain/);
	});

	it('Loop Over Items, a batch of 1, items of the same content: every batch is sent', async () => {
		const event = await newEvent(20);
		await loseFirstCreate();
		const loop = { name: 'Loop', nodeType: new LoopOverItems(), type: LOOP_OVER_ITEMS };
		const hold = write(
			{
				operation: 'holdBestAvailable',
				eventId: byId(String(event.id)),
				quantity: 1,
				options: { confirmWaitSeconds: 0, maxRetries: 0 },
			},
			{ onError: 'continueRegularOutput' },
		);
		const { result, log } = await run(
			[loop, hold],
			[{ buyer: 'same' }, { buyer: 'same' }, { buyer: 'same' }],
			[
				{ from: 'Start', to: 'Loop' },
				{ from: 'Loop', to: 'Write', output: 1 },
				{ from: 'Write', to: 'Loop' },
			],
		);
		const runs = result.runs('Write');
		expect(runs).toHaveLength(3);
		expect(sent(log, 'POST', '/orders')).toBe(3);
		expect(String(runs[0].items[0].json.error)).toMatch(/^Uncertain:/);
		for (const later of runs.slice(1)) expect(later.items[0].json.id).toEqual(expect.anything());
	});
});
