/**
 * A run stopped (execution timeout, Stop) while its keyed hold is on the way: the service may apply
 * it, so the key is in doubt, and the buyer's second request with the same key, waiting on the
 * first, sends nothing and says so: one key, at most one hold (outside review: the key was freed
 * and the repeat held a second time, the first hold known to nobody).
 */
import type { INodeParameters } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';
import { arrived, stoppableRun } from '../../../../../../harness/nodes/orderWrites';
import { credentialFor, mark, since } from '../../../../../../harness/nodes/publicEvents';

const { sb, setStatus } = orderNodeSuite();

const parameters = {
	resource: 'order',
	operation: 'holdBestAvailable',
	eventId: byId(String(EVENT)),
	quantity: 1,
	options: { idempotencyKey: 'checkout-cancelled-91c', maxRetries: 0 },
} as unknown as INodeParameters;

afterEach(() => sb().admin('DELETE', '/faults'));

describe('a keyed hold cut off by a stopped run', () => {
	it("the buyer's repeat waiting on it does not hold a second time", async () => {
		const { store } = credentialFor(sb());
		// The hold's POST is slow (it is applied 1.5 s after it arrives, whoever waits for it).
		await sb().admin('POST', '/faults', {
			kind: 'latency',
			delayMs: 1500,
			method: 'POST',
			path: '/orders',
			count: 1,
		});
		const before = await mark(sb());
		const first = stoppableRun(store, parameters, 'stopped-exec');
		first.catch(() => {});
		await arrived(sb(), before, 'POST', '/orders');
		// The buyer's second request, same key: it waits for the first.
		const second = stoppableRun(store, parameters, 'stopped-exec');
		await new Promise((resolve) => setTimeout(resolve, 100));
		// The first run is stopped (timeout / Stop) while its POST is on the way.
		first.cancel();
		await Promise.allSettled([first]);
		const run2 = await second;
		await new Promise((resolve) => setTimeout(resolve, 1700));
		await sb().app.idle();

		const posts = (await since(sb(), before)).filter(
			(e) => e.method === 'POST' && e.route === '/orders',
		);
		const secondError = run2.data.resultData.error?.message ?? '';
		const live = await sb().getAll<{ id: number }>(`/event-points/${EVENT}/orders`, {
			query: { status: 'reserved_to_time' },
		});
		for (const { id } of live) await setStatus(Number(id), 'expired').catch(() => {});
		expect({ posts: posts.length, liveHolds: live.length }).toEqual({ posts: 1, liveHolds: 1 });
		expect(secondError).toMatch(
			/^Uncertain: an earlier request with Idempotency Key "checkout-cancelled-91c" may have/,
		);
		expect(secondError).toMatch(/ is in doubt until \d{4}-\d\d-\d\dT[\d:.]+Z/);
	});
});
