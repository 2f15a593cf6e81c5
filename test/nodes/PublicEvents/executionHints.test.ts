import type { IDataObject, IRun, NodeExecutionHint } from 'n8n-workflow';

import type { Order } from '../../../harness/nodes/orderFixtures';
import { byId, EVENT, orderNodeSuite } from '../../../harness/nodes/orderNode';
import { mark, since } from '../../../harness/nodes/publicEvents';

const { sb, order, setStatus, getOrder } = orderNodeSuite();

/** The hints n8n recorded for the node under test (the run's only node besides its start). */
function hintsOf(run: IRun): NodeExecutionHint[] {
	const [task] =
		Object.entries(run.data.resultData.runData).find(([name]) => name !== 'Start')?.[1] ?? [];
	return (task?.hints ?? []) as NodeExecutionHint[];
}

const onePlacePerItem = (ids: string[]) => ({ inputItems: ids.map((placeId) => ({ placeId })) });

describe('no hidden holds: a node run once per item says so', () => {
	it('Create fed two items makes two orders, and the output pane names Execute Once', async () => {
		const free = await sb().freePlaces(EVENT, 2);
		const { items, error, run } = await order(
			'create',
			{
				eventId: byId(String(EVENT)),
				places: byId('={{ $json.placeId }}'),
				priceCategory: free.priceCategory,
			},
			onePlacePerItem(free.ids),
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		const [hint] = hintsOf(run);
		expect(hint).toEqual(expect.objectContaining({ location: 'outputPane', type: 'warning' }));
		expect(hint.message).toMatch(
			new RegExp(
				'^This node ran 2 times, once for each input item: each item ' +
					'created its own order, whose places stay held',
			),
		);
		expect(hint.message).toMatch(/turn on Execute Once in the node's Settings/);
		for (const item of items) await setStatus((item.json as unknown as Order).id, 'expired');
	});

	it('one item: no hint', async () => {
		const free = await sb().freePlaces(EVENT, 1);
		const { items, run } = await order('create', {
			eventId: byId(String(EVENT)),
			places: byId(free.ids[0]),
			priceCategory: free.priceCategory,
		});
		expect(hintsOf(run)).toEqual([]);
		await setStatus((items[0].json as unknown as Order).id, 'expired');
	});

	it(
		'a 409 on a place an earlier item of this run holds ' +
			'names that item and its order, not someone else',
		async () => {
			const free = await sb().freePlaces(EVENT, 1);
			const before = await mark(sb());
			const { error } = await order(
				'create',
				{
					eventId: byId(String(EVENT)),
					places: byId('={{ $json.placeId }}'),
					priceCategory: free.priceCategory,
				},
				onePlacePerItem([free.ids[0], free.ids[0]]),
			);
			const created = (await since(sb(), before))
				.filter((e) => e.method === 'POST' && e.route === '/orders')
				.map((e) => e.status);
			expect(created).toEqual([201, 409]);
			// Item 1's order: released since (below), so found in the sandbox's store.
			const held = [...sb().app.store.orders.values()]
				.filter((o) => o.tickets.some((t) => String(t.placeId) === free.ids[0]))
				.sort((a, b) => b.id - a.id)[0];
			expect(error?.message).toBe(
				`Refused: item 2's places were NOT booked. Place ${free.ids[0]} is already held by ` +
					`order ${held.id}: item 1 of this same run created it a moment ago, nobody else. ` +
					"This node runs once per input item, and each item's order holds " +
					"its places. For one order, turn on Execute Once in the node's " +
					'Settings, or give all places in one item (Places takes a list). ' +
					`Item 2 of 2 stopped the run; what earlier items booked: order ${held.id} (item 1, ` +
					`places ${free.ids[0]}) was released.`,
			);
			// The run stopped: item 1's hold did not stay behind.
			expect((await getOrder(held.id)).body.status).toBe('expired');
		},
	);

	it(
		'a 409 on a place held by another order (not ' + "this run's) keeps the service's conflict",
		async () => {
			const free = await sb().freePlaces(EVENT, 1);
			const first = await order('create', {
				eventId: byId(String(EVENT)),
				places: byId(free.ids[0]),
				priceCategory: free.priceCategory,
			});
			const { error } = await order('create', {
				eventId: byId(String(EVENT)),
				places: byId(free.ids[0]),
				priceCategory: free.priceCategory,
			});
			expect(error?.message).toMatch(/Conflict: Places already held or sold/);
			expect(error?.message).not.toMatch(/this same run/);
			await setStatus((first.items[0].json as unknown as Order).id, 'expired');
		},
	);
});

describe('conflicts name the place as the hall plan does, when the items carry it', () => {
	/** The hall plan's record of a place, as Hall Plan > Get Places outputs it. */
	const record = async (id: string) =>
		(await sb().getAll(`/event-points/${EVENT}/places`)).find(
			(p: IDataObject) => String(p.id) === id,
		) as IDataObject;
	const label = (p: IDataObject) =>
		`${String(p.id)} (${String(p.sectorName)} · Row ` +
		`${String(p.rowName)} · Place ${String(p.placeName)})`;

	it("this run's own hold: item, order and the place by sector, row and place", async () => {
		const free = await sb().freePlaces(EVENT, 1);
		const place = await record(free.ids[0]);
		const { error } = await order(
			'create',
			{
				eventId: byId(String(EVENT)),
				places: byId('={{ $json.id }}'),
				priceCategory: free.priceCategory,
			},
			{ inputItems: [place, place] },
		);
		expect(error?.message).toMatch(
			new RegExp(
				`^Refused: item 2's places were NOT booked\\. Place ` +
					`${label(place).replace(/[()]/g, '\\$&')} is already ` +
					`held by order \\d+: item 1 of this same run created it`,
			),
		);
		const held = Number(/order (\d+)/.exec(error!.message)![1]);
		await setStatus(held, 'expired');
	});

	it("someone else's hold: the service's conflict, the place named", async () => {
		const free = await sb().freePlaces(EVENT, 1);
		const place = await record(free.ids[0]);
		const first = await order('create', {
			eventId: byId(String(EVENT)),
			places: byId(free.ids[0]),
			priceCategory: free.priceCategory,
		});
		const { error } = await order(
			'create',
			{
				eventId: byId(String(EVENT)),
				places: byId('={{ $json.id }}'),
				priceCategory: free.priceCategory,
			},
			{ inputItems: [place] },
		);
		expect(error?.message).toContain(`Conflict: Places already held or sold: ${label(place)}`);
		await setStatus((first.items[0].json as unknown as Order).id, 'expired');
	});
});

describe('reads fed copies say how to avoid them', () => {
	const getPlaces = (eventId: string, inputItems: IDataObject[]) =>
		order(
			'getPlaces',
			{
				resource: 'hallPlan',
				eventId: { __rl: true, mode: 'id', value: eventId },
				returnAll: true,
			},
			{ inputItems },
		);

	it('Get Places fed three items with a fixed event outputs copies, and says so', async () => {
		const { items, run, error } = await getPlaces(String(EVENT), [{ id: 1 }, { id: 2 }, { id: 3 }]);
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		expect(items.length % 3).toBe(0);
		const [hint] = hintsOf(run);
		expect(hint.message).toMatch(
			new RegExp(
				'^All 3 input items asked for the same thing, so the output r' +
					'epeats the same results 2 more times\\. To read it once, turn' +
					' on Execute Once',
			),
		);
		expect(hint.message).toMatch(/map the field to the item's data, e\.g\. \{\{ \$json\.id \}\}/);
	});

	it('items naming different events: no hint', async () => {
		const { run, error } = await getPlaces('={{ $json.id }}', [{ id: EVENT }, { id: EVENT + 1 }]);
		expect(error).toBeUndefined();
		expect(hintsOf(run)).toEqual([]);
	});
});
