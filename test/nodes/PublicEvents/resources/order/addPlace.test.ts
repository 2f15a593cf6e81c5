import type { IDataObject } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../harness/nodes/orderNode';

const { sb, order, create, setStatus, place } = orderNodeSuite();

describe('Order: changing a hold', () => {
	it('Add Place adds a held ticket', async () => {
		const { order: created, free } = await create(1);
		const extra = (await sb().freePlaces(EVENT, 2)).ids.find((id) => !free.ids.includes(id))!;
		const { items, error } = await order('addPlace', {
			orderId: String(created.id),
			places: byId(extra),
			priceCategory: free.priceCategory,
		});
		expect(error).toBeUndefined();
		expect((items[0].json.tickets as IDataObject[]).map((t) => String(t.placeId))).toEqual([
			...free.ids,
			extra,
		]);
		expect((await place(extra)).availableCount).toBe(0);
		await setStatus(created.id, 'expired');
	});
});
