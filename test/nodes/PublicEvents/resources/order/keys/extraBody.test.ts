/**
 * Additional Body Fields (JSON) are part of what a key stands for: the same key with another
 * buyer's extra fields is refused, not answered with the first buyer's order (outside review).
 */
import type { IDataObject } from 'n8n-workflow';

import { byId, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';

const { order, newEvent } = orderNodeSuite();

it('the same key with other extra body fields is refused, not given the first order', async () => {
	const event = await newEvent(4);
	const [one, two] = event.plan;
	const create = (place: number, buyer: string) => ({
		eventId: byId(String(event.id)),
		places: byId(String(place)),
		priceCategory: String(one.priceCategories[0].id),
		reservedMinutes: 15,
		options: {
			idempotencyKey: 'checkout-42',
			additionalBodyFields: JSON.stringify({ comment: `buyer: ${buyer}` }),
		},
	});
	const alice = await order('create', create(one.id, 'alice@example.com'));
	expect(alice.error).toBeUndefined();
	const bob = await order('create', create(two.id, 'bob@example.com'), {
		onError: 'continueErrorOutput',
	});
	const json = bob.outputs[0]?.[0]?.json as IDataObject | undefined;
	expect({
		bobGotAlicesOrder: json?.id !== undefined && String(json.id) === String(alice.items[0].json.id),
		bobError: String(bob.outputs[1]?.[0]?.json.error ?? '').slice(0, 40),
	}).toEqual({
		bobGotAlicesOrder: false,
		bobError: expect.stringMatching(/^Refused: the purchase was NOT made/),
	});
});
