/**
 * Invariant: a run of Create or Hold Best Available over several input items, some of which fail
 * (an unknown event, bad input, places taken by an earlier item, not enough places), leaves no hold
 * stranded unnamed:
 * 1. stopped by a failing item, the error names that item as a person counts it ("Item 3 of 5")
 *    and every order earlier items made, each released unless Keep Holds When a Later Item Fails
 *    was on (then named as still held); nothing made by the run stays held otherwise;
 * 2. under On Error: Continue, every order the run made is in the output, each failed item an
 *    error item, nothing released;
 * 3. either way, no order the run made is live and unnamed.
 * Cases run through n8n-core against the sandbox over real HTTP.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { byId, orderNodeSuite } from '../../harness/nodes/orderNode';
import { checkProperty } from '../../harness/props/property';

const suite = orderNodeSuite();
const { sb, order, setStatus } = suite;

type Item = 'ok' | 'unknownEvent' | 'badInput' | 'taken' | 'tooMany';

interface Case {
	operation: 'create' | 'holdBestAvailable';
	items: Item[];
	keepHolds: boolean;
	/** The share of answers to writes lost after the service acted (0: none), and its seed. */
	loseRate?: number;
	seed?: number;
	onError: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
}

const caseArb: fc.Arbitrary<Case> = fc.record({
	operation: fc.constantFrom('create' as const, 'holdBestAvailable' as const),
	items: fc.array(
		fc.oneof(
			{ weight: 3, arbitrary: fc.constant<Item>('ok') },
			{
				weight: 2,
				arbitrary: fc.constantFrom<Item>('unknownEvent', 'badInput', 'taken', 'tooMany'),
			},
		),
		{ minLength: 2, maxLength: 6 },
	),
	keepHolds: fc.boolean(),
	loseRate: fc.constantFrom(0, 0, 0.3),
	seed: fc.integer({ min: 1, max: 2 ** 30 }),
	onError: fc.constantFrom(
		'stopWorkflow' as const,
		'stopWorkflow' as const,
		'stopWorkflow' as const,
		'continueRegularOutput' as const,
		'continueErrorOutput' as const,
	),
});

/**
 * Kept: issue 33's three items (event A, an unknown event, event A), and the counterexample the
 * property finds when a stopped run releases nothing (before this suite): one good item, then an
 * unknown event.
 */
const KEPT: Case[] = [
	{
		operation: 'holdBestAvailable',
		items: ['ok', 'unknownEvent', 'ok'],
		keepHolds: false,
		onError: 'stopWorkflow',
	},
	{ operation: 'create', items: ['ok', 'unknownEvent'], keepHolds: false, onError: 'stopWorkflow' },
];

let stopped = 0;
let named = 0;
let lostCases = 0;

async function run(c: Case): Promise<void> {
	const { body: event } = await sb().admin('POST', '/events', { places: 40 });
	const free = await sb().freePlaces(event.id, c.items.length);
	const last = Math.max(0, ...sb().app.store.orders.keys());
	// One input item per case item: its event, its place, how many places.
	const inputs = c.items.map((item, n) => ({
		event: item === 'unknownEvent' ? '999999' : String(event.id),
		place: item === 'badInput' ? 'abc' : item === 'taken' && n > 0 ? free.ids[0] : free.ids[n],
		quantity: item === 'badInput' ? 'two' : item === 'tooMany' ? 41 : 1,
	}));
	const parameters: IDataObject =
		c.operation === 'create'
			? {
					eventId: byId('={{ $json.event }}'),
					places: byId('={{ $json.place }}'),
					priceCategory: free.priceCategory,
				}
			: { eventId: byId('={{ $json.event }}'), quantity: '={{ $json.quantity }}' };
	if (c.loseRate)
		await sb().setQuirks({ loseWriteAnswersRate: c.loseRate, loseWriteAnswersSeed: c.seed });
	const result = await order(
		c.operation,
		{ ...parameters, options: { keepHolds: c.keepHolds, confirmWaitSeconds: 1 } },
		{ inputItems: inputs, ...(c.onError === 'stopWorkflow' ? {} : { onError: c.onError }) },
	).finally(() => sb().setQuirks({}));
	const made = [...sb().app.store.orders.values()].filter((o) => o.id > last);
	const live = made.filter((o) => o.status === 'reserved_to_time');
	const message = result.error?.message ?? '';
	const context = { case: c, message, made: made.map((o) => `${o.id} ${o.status}`) };
	// Where an order can be named: the error, an error item, an item of the output.
	const said = [message, ...result.outputs.flat().map((item) => JSON.stringify(item.json))].join(
		'\n',
	);
	const output = result.outputs.flat().map((item) => Number(item.json.id));
	const namedAt = (id: number) => output.includes(id) || said.includes(`order ${id} (`);
	if (result.error) {
		stopped++;
		expect(c.onError).toBe('stopWorkflow');
		// 1. The item as a person counts it, and every order the run made.
		const failed = /Item (\d+) of (\d+) stopped the run/.exec(message);
		if (made.length > 0 && !c.loseRate)
			expect({ ...context, counted: failed?.[2] }).toEqual({
				...context,
				counted: String(c.items.length),
			});
		for (const o of made)
			expect({ ...context, named: o.id, at: namedAt(o.id) }).toMatchObject({ at: true });
		named += made.length;
		// Without lost answers, released unless kept.
		if (!c.loseRate)
			for (const o of live) {
				expect({ ...context, live: o.id, kept: c.keepHolds }).toEqual({
					...context,
					live: o.id,
					kept: true,
				});
				expect(message).toMatch(
					new RegExp(`order ${o.id} \\(item \\d+, places [\\d, ]+\\) is still held`),
				);
			}
	} else {
		// 2. Every order made is in the output (or, its answer lost, named in an error item).
		for (const o of made)
			expect({ ...context, out: namedAt(o.id) }).toEqual({ ...context, out: true });
		if (!c.loseRate) expect(live.map((o) => o.id).sort()).toEqual(made.map((o) => o.id).sort());
	}
	if (c.loseRate) lostCases++;
	// 3. No order the run made is live and unnamed.
	for (const o of live)
		expect({ ...context, live: o.id, at: namedAt(o.id) }).toMatchObject({ at: true });
	for (const o of live) await setStatus(o.id, 'expired');
}

describe('multi-item runs with failures at random items', () => {
	it.each(KEPT.map((c) => [JSON.stringify(c), c] as const))('kept: %s', async (_, c) => {
		await run(c);
	});

	it('property: no hold stranded unnamed', async () => {
		await checkProperty('multi-item runs', caseArb, run, 25);
		// Runs did stop after earlier items had made orders.
		expect(named).toBeGreaterThan(0);
		process.stdout.write(
			`multi-item runs: ${stopped} stopped, ${named} orders named, ` +
				`${lostCases} with lost answers\n`,
		);
	}, 600_000);
});
