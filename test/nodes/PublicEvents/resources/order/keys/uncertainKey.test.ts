/**
 * A checkout whose first hold ended uncertain (the answer to POST /orders lost, the read-back
 * failing too): the shop answers 409 in_doubt with the time after which the same key buys, and
 * the buyer asking again then can buy (outside review: told to retry "in a minute", every retry
 * was refused for 75 minutes).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';
import { loseTheHoldsAnswer } from '../../../../../../harness/nodes/orderWrites';

const { sb, order } = orderNodeSuite();

const shop = JSON.parse(
	readFileSync(
		join(__dirname, '..', '..', '..', '..', '..', '..', 'examples', 'shop-checkout.json'),
		'utf8',
	),
) as { nodes: Array<{ name: string; parameters: { jsCode?: string } }> };

/** The shop's Why No Hold (a Code node run for each item), on one error item. */
function whyNoHold(errorItem: IDataObject, checked: IDataObject) {
	const code = shop.nodes.find((n) => n.name === 'Why No Hold')!.parameters.jsCode!;
	const $ = () => ({ item: { json: checked } });
	const run = new Function('$json', '$', code) as (
		json: IDataObject,
		node: typeof $,
	) => { json: { status: number; answer: IDataObject } };
	return run(errorItem, $).json;
}

const checked = { eventId: String(EVENT), quantity: 1 };
const hold = (key: string) => ({
	eventId: byId(String(EVENT)),
	quantity: 1,
	reservedMinutes: 15,
	options: { idempotencyKey: key, confirmWaitSeconds: 0, maxRetries: 0 },
});

afterEach(async () => {
	jest.restoreAllMocks();
	await sb().admin('DELETE', '/faults');
});

describe('a checkout whose first hold ended uncertain', () => {
	it('the buyer tries again as told, after the possible hold has ended: it can buy', async () => {
		const key = 'checkout-uncertain-7f2a';
		await loseTheHoldsAnswer(sb());
		const first = await order('holdBestAvailable', hold(key), { onError: 'continueErrorOutput' });
		await sb().admin('DELETE', '/faults');
		const firstAnswer = whyNoHold(first.outputs[1][0].json, checked);
		// The shop tells the buyer when the same key buys again.
		const { retryAfter } = firstAnswer.answer as { retryAfter: string };
		expect([firstAnswer.status, firstAnswer.answer.error]).toEqual([409, 'in_doubt']);
		const wait = Date.parse(retryAfter) - Date.now();
		expect(wait).toBeGreaterThan(15 * 60_000);
		expect(wait).toBeLessThanOrEqual(17 * 60_000);
		expect(String(firstAnswer.answer.message)).toContain(`ask again after ${retryAfter}`);

		// Asked again before then: the same answer.
		const early = await order('holdBestAvailable', hold(key), { onError: 'continueErrorOutput' });
		expect(whyNoHold(early.outputs[1][0].json, checked).answer).toMatchObject({
			error: 'in_doubt',
			retryAfter,
		});

		// 20 minutes later: the first request's possible hold (15 min) has ended; nothing was paid.
		const real = Date.now.bind(Date);
		jest.spyOn(Date, 'now').mockImplementation(() => real() + 20 * 60_000);
		const retry = await order('holdBestAvailable', hold(key), { onError: 'continueErrorOutput' });
		const errorItem = retry.outputs[1]?.[0]?.json;
		const answer = errorItem ? whyNoHold(errorItem, checked) : undefined;
		expect({ answer: answer?.answer.error, held: retry.outputs[0]?.[0]?.json.status }).toEqual({
			answer: undefined,
			held: 'reserved_to_time',
		});
	});
});
