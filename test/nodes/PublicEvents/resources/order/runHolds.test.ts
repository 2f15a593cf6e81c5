import type { IDataObject } from 'n8n-workflow';

import { byId, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { mark, since } from '../../../../../harness/nodes/publicEvents';

/**
 * No stranded hold (issue 33, finding 6): three items (event A, an unknown event, event A) into
 * Hold Best Available or Create stopped at item 2, and item 1's order stayed held 15 minutes,
 * named nowhere. Now a run a later item stops releases the orders earlier items made (Keep Holds
 * When a Later Item Fails keeps them) and names every one in the error; under continueOnFail
 * each hold is in the output.
 */
const suite = orderNodeSuite();
const { sb, order, getOrder, setStatus } = suite;

let eventA: number;
beforeAll(async () => {
	eventA = (await sb().admin('POST', '/events', { places: 60 })).body.id;
});
const UNKNOWN = '999999';

/** The account's live holds on event A. */
const liveOnA = async () =>
	(
		await sb().getAll(`/event-points/${eventA}/orders`, { query: { status: 'reserved_to_time' } })
	).map((o) => Number(o.id));
afterEach(async () => {
	for (const id of await liveOnA()) await setStatus(id, 'expired');
});

/** Orders made on event A since `from`, whatever became of them. */
const madeSince = async (from: number) =>
	(await since(sb(), from)).filter(
		(e) => e.method === 'POST' && e.route === '/orders' && e.status === 201,
	).length;

const holdBest = (options: IDataObject = {}, extra: Parameters<typeof order>[2] = {}) =>
	order(
		'holdBestAvailable',
		{ eventId: byId('={{ $json.event }}'), quantity: 2, options },
		{ inputItems: [{ event: eventA }, { event: UNKNOWN }, { event: eventA }], ...extra },
	);

describe('a run stopped by a later item leaves no hold unnamed', () => {
	it(
		"Hold Best Available, items A / unknown / A: item 1's order released, named in the " +
			"error with item 2's failure; item 3 never ran",
		async () => {
			const before = await mark(sb());
			const { items, error } = await holdBest();
			expect(items).toEqual([]);
			expect(await madeSince(before)).toBe(1);
			const made = Number(/order (\d+) \(item 1, places/.exec(error!.message)![1]);
			expect(error?.message).toMatch(/^Event 999999 was not found\. /);
			expect(error?.message).toMatch(
				new RegExp(
					`Item 2 of 3 stopped the run; what earlier items booked: order ${made} \\(item 1, ` +
						`places \\d+, \\d+\\) was released\\.$`,
				),
			);
			expect((await getOrder(made)).body.status).toBe('expired');
			expect(await liveOnA()).toEqual([]);
		},
	);

	it('Keep Holds When a Later Item Fails: still held, named with how to release it', async () => {
		const { error } = await holdBest({ keepHolds: true });
		const made = Number(/order (\d+) \(item 1, places/.exec(error!.message)![1]);
		expect(error?.message).toMatch(
			new RegExp(
				`order ${made} \\(item 1, places \\d+, \\d+\\) is still held\\. Release holds you no ` +
					`longer need: Order > Change Status > Release Hold\\.$`,
			),
		);
		expect(await liveOnA()).toEqual([made]);
	});

	it('Create, items A / unknown / A: the same', async () => {
		const free = await sb().freePlaces(eventA, 2);
		const { error } = await order(
			'create',
			{
				eventId: byId('={{ $json.event }}'),
				places: byId('={{ $json.place }}'),
				priceCategory: free.priceCategory,
			},
			{
				inputItems: [
					{ event: eventA, place: free.ids[0] },
					{ event: UNKNOWN, place: free.ids[1] },
					{ event: eventA, place: free.ids[1] },
				],
			},
		);
		expect(error?.message).toContain(
			`Item 2 of 3 stopped the run; what earlier items booked: order `,
		);
		expect(error?.message).toContain(`(item 1, places ${free.ids[0]}) was released.`);
		expect(await liveOnA()).toEqual([]);
	});

	it('a release that fails is said so, with how to release by hand', async () => {
		await sb().admin('POST', '/faults', {
			kind: 'status',
			status: 503,
			method: 'PUT',
			path: '/orders/{id}/status',
			count: 0,
		});
		try {
			const { error } = await holdBest({ maxRetries: 0 });
			expect(error?.message).toMatch(
				new RegExp(
					'could not be released \\(The service failed with status 503[^)]*\\): it may still be ' +
						'held\\. Release holds you no longer need: Order > Change Status > Release Hold\\.$',
				),
			);
		} finally {
			await sb().admin('DELETE', '/faults');
		}
	});

	it('continueOnFail: every hold is in the output, the failed item an error item', async () => {
		const { items, error } = await holdBest({}, { onError: 'continueRegularOutput' });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[1].json.error).toMatch(/^Event 999999 was not found/);
		const held = [items[0], items[2]].map((item) => Number(item.json.id));
		expect((await liveOnA()).sort()).toEqual(held.sort());
	});
});
