import { ids, mark, runPublicEvents, since } from '../../../../../harness/nodes/publicEvents';
import { EVENT, hallPlanSuite } from '../../../../../harness/nodes/hallPlan';

const { sb, store, hallPlan } = hallPlanSuite();

describe('Hall Plan operations', () => {
	it('Get Sectors: one item per sector; Limit asks for no more than it needs', async () => {
		const sectors = await sb().getAll(`/event-points/${EVENT}/sectors`);
		expect(sectors.length).toBe(2);
		const all = await hallPlan('getSectors');
		expect(all.error).toBeUndefined();
		expect(ids(all.items)).toEqual(sectors.map((s) => String(s.id)));
		expect(all.items[0].json).toEqual(
			expect.objectContaining({ name: sectors[0].name, availableCount: sectors[0].availableCount }),
		);

		const before = await mark(sb());
		const one = await hallPlan('getSectors', { returnAll: false, limit: 1 });
		expect(ids(one.items)).toEqual([String(sectors[0].id)]);
		const requests = (await since(sb(), before)).filter(
			(e) => e.route === '/event-points/{id}/sectors',
		);
		expect(requests.map((e) => new URLSearchParams(e.query).get('itemsPerPage'))).toEqual(['1']);
	});

	it('the event by expression, one run per input item, paired to its item', async () => {
		const two = await runPublicEvents(
			store(),
			{
				resource: 'hallPlan',
				operation: 'getSectors',
				eventId: { __rl: true, mode: 'id', value: '={{ $json.event }}' },
				returnAll: false,
				limit: 1,
			},
			{ inputItems: [{ event: EVENT }, { event: `/api/v2/event-points/${EVENT + 1}` }] },
		);
		expect(two.error).toBeUndefined();
		expect(two.items.map((item) => [item.json.eventPointId, item.pairedItem])).toEqual([
			[EVENT, { item: 0 }],
			[EVENT + 1, { item: 1 }],
		]);
	});
});
