/**
 * The shop checkout's answers to an Idempotency-Key (examples/shop-checkout.json, Why No Hold),
 * over what Hold Best Available really says through n8n-core against the sandbox:
 * - a repeat of a purchase whose fresh read of its order fails (a 503 of the service, a timeout)
 *   is told the purchase is being checked (409 in_progress with its order, ask again with the same
 *   key, do not pay again), never that nothing was charged: the first request may have paid;
 * - an Idempotency-Key the node does not accept (over its 1,000 characters, blank) is a 400
 *   invalid_request naming the header, as Check Order answers a bad body, not a 503 "try again"
 *   that fails the same way every time.
 * Found by an outside review: the repeat's failed read came to Why No Hold as any error and was
 * answered 503 "Nothing was charged: please try again" to a buyer whose first request had paid,
 * and a key over the limit was answered 503 "try again in a minute" forever.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../harness/nodes/orderNode';
import { mark, since } from '../../harness/nodes/publicEvents';

const { sb, order, setStatus } = orderNodeSuite();

const shop = JSON.parse(
	readFileSync(join(__dirname, '..', '..', 'examples', 'shop-checkout.json'), 'utf8'),
) as { nodes: Array<{ name: string; parameters: { jsCode?: string } }> };

/** The shop's Why No Hold (a Code node run for each item), on one error item as n8n runs it. */
function whyNoHold(errorItem: IDataObject, checked: IDataObject) {
	const code = shop.nodes.find((n) => n.name === 'Why No Hold')!.parameters.jsCode!;
	const $ = (name: string) => {
		if (name !== 'Check Order') throw new Error(`Why No Hold read ${name}`);
		return { item: { json: checked } };
	};
	const run = new Function('$json', '$', code) as (
		json: IDataObject,
		node: typeof $,
	) => { json: { status: number; answer: IDataObject } };
	return run(errorItem, $).json;
}

const hold = (key: string, options: IDataObject = {}) => ({
	eventId: byId(String(EVENT)),
	quantity: 1,
	options: { idempotencyKey: key, ...options },
});
const checked = { eventId: String(EVENT), quantity: 1 };

afterEach(() => sb().admin('DELETE', '/faults'));

describe('shop checkout: answers to an Idempotency-Key', () => {
	it(
		'a repeat of a paid purchase whose order cannot be read just now: 409 in_progress with ' +
			'its order (ask again with the same key), never "nothing was charged"',
		async () => {
			const key = 'checkout-3b9e1c';
			const first = await order('holdBestAvailable', hold(key), {
				onError: 'continueErrorOutput',
			});
			expect(first.error).toBeUndefined();
			const orderId = String(first.items[0].json.id);
			const paid = await order('changeStatus', { orderId, toStatus: 'paid' });
			expect(paid.items[0].json.status).toBe('paid');

			// The buyer clicks again; the service answers the order's read with 503s for a moment.
			await sb().admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				method: 'GET',
				path: '/orders/{id}',
				count: 0,
			});
			const again = await order('holdBestAvailable', hold(key, { maxRetries: 0 }), {
				onError: 'continueErrorOutput',
			});
			await sb().admin('DELETE', '/faults');
			const errorItem = again.outputs[1]?.[0]?.json;
			expect(String(errorItem?.error)).toMatch(
				new RegExp(`^Repeated: .*Idempotency Key .*made order ${orderId}; .*nothing was sent`),
			);
			const { status, answer } = whyNoHold(errorItem!, checked);
			expect({ status, answer }).toEqual({
				status: 409,
				answer: {
					error: 'in_progress',
					orderId,
					message: expect.stringMatching(/same Idempotency-Key; do not pay again/),
				},
			});
			expect(answer.message).not.toMatch(/charged/i);
			// Asked again once the service answers: the first answer, the tickets.
			const later = await order('holdBestAvailable', hold(key));
			expect([later.items[0].json.id, later.items[0].json.status]).toEqual([
				first.items[0].json.id,
				'paid',
			]);
			await setStatus(Number(orderId), 'expired').catch(() => {});
		},
	);

	it.each([
		['over the 1,000 characters the node takes', `cart.${'x'.repeat(1200)}`, /at most 1000/],
		['blank', '   ', /expected a value/],
	])(
		'an Idempotency-Key %s: 400 invalid_request naming the header, nothing sent',
		async (_, key, why) => {
			const before = await mark(sb());
			const result = await order('holdBestAvailable', hold(key), {
				onError: 'continueErrorOutput',
			});
			expect((await since(sb(), before)).filter((e) => e.route !== '/token')).toEqual([]);
			const errorItem = result.outputs[1]?.[0]?.json;
			expect(errorItem).toBeDefined();
			const { status, answer } = whyNoHold(errorItem!, checked);
			expect({ status, error: answer.error, field: answer.field }).toEqual({
				status: 400,
				error: 'invalid_request',
				field: 'Idempotency-Key',
			});
			expect(answer.message).toMatch(why);
			expect(answer.message).toMatch(/^Idempotency-Key was not accepted/);
		},
	);
});
