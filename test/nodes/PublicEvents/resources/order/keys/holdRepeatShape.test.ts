/**
 * A repeat of Hold Best Available under the same Idempotency Key answers as the first did: its
 * `places` and `priceCategory`, which a workflow or an AI agent reads (outside review: the raw
 * order, without them).
 */
import type { IDataObject } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';

const { order, setStatus } = orderNodeSuite();

it('a repeat of Hold Best Available answers the same places as the first', async () => {
	const p = {
		eventId: byId(String(EVENT)),
		quantity: 2,
		reservedMinutes: 15,
		options: { idempotencyKey: 'shape-1' },
	};
	const first = (await order('holdBestAvailable', p)).items[0].json as IDataObject;
	const again = (await order('holdBestAvailable', p)).items[0].json as IDataObject;
	await setStatus(Number(first.id), 'expired');
	expect({ id: again.id, places: again.places, priceCategory: again.priceCategory }).toEqual({
		id: first.id,
		places: first.places,
		priceCategory: first.priceCategory,
	});
});
