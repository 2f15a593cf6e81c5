/**
 * A buyer's resend waits on the first request with the same key and its run is stopped while it
 * waits; the first ends refused (nothing held, the key free). The stopped run sent nothing, so the
 * key is not in doubt: the next request with it holds (outside review: it was told "Uncertain"
 * for the hold's length, and the shop answered 409 in_doubt meanwhile).
 */
import type { INodeParameters } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';
import { arrived, stoppableRun } from '../../../../../../harness/nodes/orderWrites';
import { credentialFor, mark, since } from '../../../../../../harness/nodes/publicEvents';

const { sb, order, setStatus } = orderNodeSuite();

const KEY = 'checkout-waiter-cancelled-1';
const parameters = {
	resource: 'order',
	operation: 'holdBestAvailable',
	eventId: byId(String(EVENT)),
	quantity: 1,
	reservedMinutes: 15,
	options: { idempotencyKey: KEY, maxRetries: 0, limitWaitSeconds: 2 },
} as unknown as INodeParameters;

afterEach(() => sb().admin('DELETE', '/faults'));

it('a stopped resend that never sent anything does not put the key in doubt', async () => {
	const { store } = credentialFor(sb());
	// The account's reserved-tickets limit is reached: every hold is refused (422) for now.
	await sb().admin('POST', '/faults', {
		kind: 'status',
		status: 422,
		method: 'POST',
		path: '/orders',
		count: 0,
		body: { code: 'reserved_tickets_limit', message: 'Limit of reserved tickets reached' },
	});
	const before = await mark(sb());
	const first = stoppableRun(store, parameters, 'first-exec');
	first.catch(() => {});
	await arrived(sb(), before, 'POST', '/orders');
	// The buyer's resend, same key: it waits for the first.
	const second = stoppableRun(store, parameters, 'second-exec');
	second.catch(() => {});
	await new Promise((resolve) => setTimeout(resolve, 100));
	second.cancel(); // its execution timeout, while it only waits
	const run1 = await first; // refused after waiting out the limit: nothing held
	await Promise.allSettled([second]);
	await new Promise((resolve) => setTimeout(resolve, 300));
	const postsBefore = (await since(sb(), before)).filter(
		(e) => e.method === 'POST' && e.route === '/orders',
	).length;
	if (process.env.SHOWLOG)
		console.log(
			JSON.stringify((await since(sb(), before)).map((e) => `${e.method} ${e.path} ${e.status}`)),
			run1.data.resultData.error?.message,
		);
	await sb().admin('DELETE', '/faults');

	// The limit cleared; the buyer tries again with the same key.
	const third = await order('holdBestAvailable', parameters as never, {
		onError: 'continueErrorOutput',
	});
	for (const o of third.outputs[0] ?? [])
		await setStatus(Number(o.json.id), 'expired').catch(() => {});
	expect({
		firstError: String(run1.data.resultData.error?.message).slice(0, 20),
		third: String(
			third.outputs[1]?.[0]?.json.error ?? `HELD ${third.outputs[0]?.[0]?.json.status}`,
		).slice(0, 60),
		postsOnlyFromFirst: postsBefore,
	}).toEqual({
		firstError: expect.stringMatching(/^Refused/),
		third: 'HELD reserved_to_time',
		postsOnlyFromFirst: expect.any(Number),
	});
});
