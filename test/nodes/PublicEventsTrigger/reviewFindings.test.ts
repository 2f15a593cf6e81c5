import type { IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import { mark, since } from '../../../harness/nodes/publicEvents';
import {
	deliveriesOf,
	payOrder,
	reserveOrder,
	SECRET,
	signAt,
	subscribe,
	until,
	FIRST_RETRY,
} from '../../../harness/sandbox/push';
import {
	NONE,
	post,
	postSigned,
	pushSandbox,
	SIGNED,
	triggerSuite,
} from '../../../harness/nodes/webhookTrigger';

/**
 * The outside review's findings, each reproduced against the sandbox over real HTTP through
 * n8n-core's engine: each failed before the trigger let n8n answer once the run exists and
 * stopped keeping delivery windows in static data.
 */
const { sb, triggers } = triggerSuite(pushSandbox(4));

const answeredOf = async (subscriptionId: number, count: number) =>
	until(async () => {
		const list = await deliveriesOf(sb(), subscriptionId);
		return list.length >= count && list.every((d) => d.state !== 'pending') ? list : undefined;
	}, `${count} deliveries settled`);

describe('replay poisoning: an id outside the signature cannot hide a genuine delivery', () => {
	it(
		"a captured signed sale replayed under the sender's next three ids: the next three " +
			'genuine sales each start their run',
		async () => {
			const { trigger, subscription } = await triggers.subscribed(SIGNED);
			expect((await sb().admin('POST', '/widget-orders', {})).status).toBe(201);
			const [captured] = await trigger.waitForCalls(1);
			// The sandbox numbers its notifications ntf_00000001, ntf_00000002, …
			const first = Number(String(captured.headers['x-delivery-id']).slice('ntf_'.length));
			const next = (n: number) => `ntf_${String(first + n).padStart(8, '0')}`;
			for (const n of [1, 2, 3]) {
				const replay = await post(trigger.url, captured.raw, {
					'x-signature': String(captured.headers['x-signature']),
					'x-delivery-id': next(n),
				});
				expect(replay.status).toBe(200);
			}
			for (let n = 0; n < 3; n++)
				expect((await sb().admin('POST', '/widget-orders', {})).status).toBe(201);
			const deliveries = await answeredOf(subscription.id, 4);
			expect(deliveries.map((d) => d.notificationId)).toEqual([0, 1, 2, 3].map(next));
			const genuine = trigger.calls.filter((c) => c.headers['user-agent']?.includes('sandbox'));
			expect(genuine.map((c) => [c.status, c.response])).toEqual(
				genuine.map(() => [200, '']), // started, not "duplicate"
			);
			expect(trigger.executions.map(([item]) => item.json.deliveryId)).toEqual(
				[0, 1, 2, 3].map(next),
			);
		},
	);
});

describe('no 2xx before the run exists', () => {
	it(
		'n8n fails to create the run: the sender hears 500, not 2xx; its retry starts the run, ' +
			'once',
		async () => {
			const { trigger, subscription } = await triggers.subscribed(SIGNED);
			let failures = 1;
			trigger.createRun = async () => {
				if (failures-- > 0) throw new Error('database busy: no connection in the pool');
			};
			const { orderId } = await payOrder(sb());
			const [first] = await trigger.waitForCalls(1);
			expect([first.status, first.runError?.message]).toEqual([
				500,
				'database busy: no connection in the pool',
			]);
			expect(trigger.executions).toEqual([]);
			await sb().advanceClock(FIRST_RETRY);
			const [, second] = await trigger.waitForCalls(2);
			expect([second.status, second.response]).toEqual([200, '']);
			expect(trigger.executions.map(([item]) => item.json.orderId)).toEqual([String(orderId)]);
			const [delivery] = await answeredOf(subscription.id, 1);
			expect(delivery.attempts.map((a: IDataObject) => a.status)).toEqual([500, 200]);
			await sb().advanceClock(-FIRST_RETRY);
		},
	);
});

describe('Security None: a sale read while its payment is being recorded', () => {
	it('paid during the re-check: one run and 200', async () => {
		const trigger = await triggers.start(NONE);
		const { orderId } = await reserveOrder(sb());
		const before = await mark(sb());
		const reads = async () =>
			(await since(sb(), before)).filter((e) => e.route === '/orders/{id}').length;
		const answer = post(
			trigger.url,
			JSON.stringify({ id: 'lag-1', type: 'order.sale', data: { orderId } }),
		);
		await until(async () => (await reads()) >= 1, 'the first read of the order');
		expect((await sb().send('PUT', `/orders/${orderId}/status`, { toStatus: 'paid' })).status).toBe(
			200,
		);
		expect(await answer).toEqual({ status: 200, text: '' });
		expect(trigger.executions.map(([item]) => item.json.orderId)).toEqual([String(orderId)]);
	});

	it(
		'still not paid after the re-check: 503, so the sender asks again, and its retry once ' +
			'paid starts the run',
		async () => {
			const trigger = await triggers.start(NONE);
			const subscription = await subscribe(sb(), { url: trigger.url, types: ['order.sale'] });
			const { orderId } = await reserveOrder(sb());
			const claim = JSON.stringify({ id: 'lag-2', type: 'order.sale', data: { orderId } });
			const started = Date.now();
			const refused = await post(trigger.url, claim);
			const waitedMs = Date.now() - started;
			expect(refused.status).toBe(503);
			expect(waitedMs).toBeGreaterThanOrEqual(2_500);
			expect(waitedMs).toBeLessThan(8_000);
			expect(trigger.executions).toEqual([]);
			expect(
				(await sb().send('PUT', `/orders/${orderId}/status`, { toStatus: 'paid' })).status,
			).toBe(200);
			const [pushed] = await answeredOf(subscription.id, 1);
			expect(pushed.attempts.map((a: IDataObject) => a.status)).toEqual([200]);
			expect(trigger.executions.map(([item]) => item.json.orderId)).toEqual([String(orderId)]);
		},
	);
});

describe('folded notifications: a sender whose id names the record', () => {
	it(
		'two partial refunds and two updates of one event, no X-Delivery-ID: four runs; each ' +
			'sent again byte for byte: none more',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const bodies = [
				{ type: 'order.refund', data: { orderId: 700100, ticketIds: [1] }, at: '10:00:00' },
				{ type: 'order.refund', data: { orderId: 700100, ticketIds: [2] }, at: '10:05:00' },
				{ type: 'event.updated', data: { eventPointId: 1001 }, at: '11:00:00' },
				{ type: 'event.updated', data: { eventPointId: 1001 }, at: '12:00:00' },
			].map(({ type, data, at }) =>
				JSON.stringify({
					id: String(Object.values(data)[0]),
					type,
					occurredAt: `2026-05-04T${at}Z`,
					data,
				}),
			);
			for (const body of [...bodies, ...bodies])
				expect((await postSigned(trigger.url, body)).status).toBe(200);
			expect(trigger.executions.map(([item]) => item.json.type)).toEqual([
				'refund',
				'refund',
				'eventUpdated',
				'eventUpdated',
			]);
		},
	);
});

describe('Security None: forged claims cost at most one run per real change', () => {
	it('20 forged "event updated" posts about one event, a sale between each: one run', async () => {
		const trigger = await triggers.start({ ...NONE, events: ['eventUpdated'] });
		const [event] = (await sb().get('/event-points', { query: { itemsPerPage: 1 } })).body;
		for (let n = 0; n < 20; n++) {
			const sold = await sb().admin('POST', '/widget-orders', { eventPoint: event.id });
			expect(sold.status).toBe(201);
			const forged = JSON.stringify({
				id: `forged-${n}`,
				type: 'event.updated',
				data: { eventPointId: event.id },
			});
			expect((await post(trigger.url, forged)).status).toBe(200);
		}
		expect(trigger.executions).toHaveLength(1); // the first claim: the event is there
	});
});

describe('a signed time inside the window is a signed time', () => {
	it('the same body signed at two times is one delivery: one run', async () => {
		const trigger = await triggers.start(SIGNED);
		const body = JSON.stringify({ id: 'ntf_t', type: 'order.sale', data: { orderId: 7 } });
		for (const at of [Date.now() - 60_000, Date.now()])
			expect(
				(await post(trigger.url, body, { 'x-signature': signAt(SECRET, body, at) })).status,
			).toBe(200);
		expect(trigger.executions).toHaveLength(1);
	});
});

describe('a sender whose timeout is shorter than the order read', () => {
	/** A signed POST that hangs up after `timeoutMs` without reading a later answer. */
	async function sendWithTimeout(url: string, body: string, timeoutMs: number) {
		try {
			const res = await request(url, {
				method: 'POST',
				body,
				headers: { 'content-type': 'application/json', 'x-signature': signAt(SECRET, body) },
				signal: AbortSignal.timeout(timeoutMs),
			});
			return { status: res.statusCode, text: await res.body.text() };
		} catch {
			return 'hung up';
		}
	}

	it(
		'hangs up and delivers again at once: the copy waits for the first run, then is a ' +
			'duplicate; one run',
		async () => {
			const trigger = await triggers.start({ ...SIGNED, fetchFullOrder: true });
			const { orderId, eventId } = await payOrder(sb());
			await sb().admin('POST', '/faults', {
				kind: 'latency',
				method: 'GET',
				path: '/orders/{id}',
				delayMs: 2_500,
				count: 1,
			});
			try {
				const body = JSON.stringify({
					id: 'ntf_slow_1',
					type: 'order.sale',
					occurredAt: new Date().toISOString(),
					data: { orderId, eventPointId: eventId, status: 'paid', source: 'api' },
				});
				const first = await sendWithTimeout(trigger.url, body, 1_000);
				const second = await sendWithTimeout(trigger.url, body, 10_000);
				expect([first, second]).toEqual([
					'hung up',
					{ status: 200, text: JSON.stringify({ received: true, duplicate: 'ntf_slow_1' }) },
				]);
				await trigger.waitForCalls(2);
				expect(trigger.executions.map(([item]) => item.json.orderId)).toEqual([String(orderId)]);
			} finally {
				await sb().admin('DELETE', '/faults');
			}
		},
	);
});
