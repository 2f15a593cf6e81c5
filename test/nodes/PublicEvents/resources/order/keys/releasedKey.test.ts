/**
 * An order the node released itself (a later item stopped the run) frees its key: the batch run
 * again with the same references holds item 1 anew (outside review: it answered the released,
 * expired order as a repeat).
 */
import type { IDataObject } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';

const { order, newEvent, setStatus } = orderNodeSuite();

const parameters = {
	eventId: byId('={{ $json.eventId }}'),
	quantity: '={{ $json.quantity }}',
	options: { idempotencyKey: '={{ $json.key }}' },
};

describe('keys of holds the node released after a later item failed', () => {
	it('the batch run again with the same references holds item 1 again', async () => {
		const small = await newEvent(1);
		const batch = (quantity2: number) => [
			{ key: 'ref-batch-A', eventId: String(EVENT), quantity: 1 },
			{ key: 'ref-batch-B', eventId: String(small.id), quantity: quantity2 },
		];
		const failed = await order('holdBestAvailable', parameters, { inputItems: batch(5) });
		expect(String(failed.error?.message)).toMatch(/Item 2 of 2 stopped the run/);
		expect(String(failed.error?.message)).toMatch(/\(item 1, places [^)]*\) was released/);

		const again = await order('holdBestAvailable', parameters, { inputItems: batch(1) });
		expect(again.error).toBeUndefined();
		const item1 = again.items[0].json as IDataObject;
		expect({
			status: item1.status,
			repeated: (item1.idempotency as IDataObject)?.repeated,
		}).toEqual({
			status: 'reserved_to_time',
			repeated: undefined,
		});
		for (const item of again.items)
			if (item.json.status === 'reserved_to_time')
				await setStatus(Number(item.json.id), 'expired').catch(() => {});
	});
});
