import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession } from '../../../harness/engine';
import { mark, since } from '../../../harness/nodes/publicEvents';
import {
	deliveriesOf,
	payOrder,
	SECRET,
	sign,
	signAt,
	signedTime,
	subscribe,
	until,
	FIRST_RETRY,
} from '../../../harness/sandbox/push';
import {
	post,
	SIGNED,
	triggerCredentials,
	pushSandbox,
	triggerSuite,
} from '../../../harness/nodes/webhookTrigger';

const { sb, triggers } = triggerSuite(pushSandbox(6));

const widgetSale = async () => {
	const sale = await sb().admin('POST', '/widget-orders', { tickets: 2 });
	expect(sale.status).toBe(201);
	return sale.body as { id: number; eventPoint: number };
};

const delivered = (subscriptionId: number, count: number) =>
	until(async () => {
		const list = await deliveriesOf(sb(), subscriptionId);
		return list.length >= count && list.every((d) => d.state === 'delivered') ? list : undefined;
	}, `${count} delivered notification(s) of subscription ${subscriptionId}`);

describe('Public Events Trigger: deliveries pushed by the sandbox (real HTTP)', () => {
	it(
		'a signed sale starts one execution: normalised type, ids, ' +
			'delivery id and the payload whole',
		async () => {
			const { trigger, subscription } = await triggers.subscribed(SIGNED);
			const sale = await widgetSale();
			const [call] = await trigger.waitForCalls(1);
			expect([call.status, call.response]).toEqual([200, '']); // responseData noData: an empty 200
			const payload = JSON.parse(call.raw);
			expect(call.headers['x-signature']).toBe(
				signAt(SECRET, call.raw, signedTime(call.headers['x-signature']) * 1000),
			);
			expect(trigger.executions).toEqual([
				[
					{
						json: {
							type: 'sale',
							sourceType: 'order.sale',
							deliveryId: payload.id,
							orderId: String(sale.id),
							eventPointId: String(sale.eventPoint),
							occurredAt: new Date(payload.occurredAt).toISOString(),
							payload,
							// the notification's source: a widget order, keyed as one
							channel: 'widget',
							dedupeKey: `sale:widget:${sale.id}`,
						},
					},
				],
			]);
			expect(payload).toMatchObject({
				type: 'order.sale',
				data: { orderId: sale.id, source: 'widget' },
			});
			await delivered(subscription.id, 1);
			expect(JSON.stringify(trigger.calls)).not.toContain(SECRET);
		},
	);

	it(
		'a bad signature: 401 and nothing started; the sandbox ' +
			'retries on its clock; with the secret fixed the retry fires ' +
			'once',
		async () => {
			const wrong = 'whsec_not_the_one';
			const { trigger, subscription } = await triggers.subscribed(SIGNED, { secret: wrong });
			await widgetSale();
			const [first] = await trigger.waitForCalls(1);
			expect(first.status).toBe(401);
			expect(JSON.parse(first.response)).toEqual({
				message: 'X-Signature does not match the body',
			});
			expect(trigger.executions).toEqual([]);
			let [delivery] = await until(async () => {
				const list = await deliveriesOf(sb(), subscription.id);
				return list[0]?.attempts.length === 1 ? list : undefined;
			}, 'the first attempt');
			expect(delivery).toMatchObject({
				state: 'pending',
				attempts: [expect.objectContaining({ status: 401 })],
			});
			// The retry waits for the sandbox clock (moved below), not for wall time.
			expect(delivery.nextAttemptAt - delivery.attempts[0].at).toBeGreaterThanOrEqual(FIRST_RETRY);
			expect(trigger.calls).toHaveLength(1);
			await sb().advanceClock(FIRST_RETRY);
			const [, second] = await trigger.waitForCalls(2);
			expect([second.status, second.headers['x-delivery-attempt'], second.raw]).toEqual([
				401,
				'2',
				first.raw,
			]);
			expect(trigger.executions).toEqual([]);

			trigger.configure({ credentials: triggerCredentials(sb(), SECRET) });
			await sb().advanceClock(2 * FIRST_RETRY);
			const [, , third] = await trigger.waitForCalls(3);
			expect([third.status, third.headers['x-delivery-attempt']]).toEqual([200, '3']);
			expect(trigger.executions).toHaveLength(1);
			[delivery] = await delivered(subscription.id, 1);
			expect(delivery.attempts.map((a: IDataObject) => a.status)).toEqual([401, 401, 200]);
			for (const call of trigger.calls) {
				expect(call.response).not.toContain(SECRET);
				expect(call.response).not.toContain(wrong);
			}
		},
	);

	it(
		'a missing or malformed signature header: 401; bare hex is ' +
			'accepted as well as sha256=<hex>',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const body = JSON.stringify({ id: 'd-sig', type: 'order.sale', data: { orderId: 1 } });
			const hex = sign(SECRET, body).slice('sha256='.length);
			expect(await post(trigger.url, body)).toEqual({
				status: 401,
				text: JSON.stringify({ message: 'Missing X-Signature header' }),
			});
			expect((await post(trigger.url, body, { 'x-signature': 'md5=abc' })).status).toBe(401);
			expect((await post(trigger.url, `${body} `, { 'x-signature': `sha256=${hex}` })).status).toBe(
				401,
			); // one byte more
			expect(trigger.executions).toEqual([]);
			expect((await post(trigger.url, body, { 'x-signature': hex.toUpperCase() })).status).toBe(
				200,
			);
			expect(trigger.executions).toHaveLength(1);
		},
	);

	it(
		'a replayed delivery, and the same notification delivered ' +
			'twice at once, start one execution',
		async () => {
			const { trigger } = await triggers.subscribed(SIGNED);
			const { orderId } = await payOrder(sb());
			const [call] = await trigger.waitForCalls(1);
			expect(trigger.executions).toHaveLength(1);

			// The exact delivery again (a retry after a lost answer): 200 so the sender stops, nothing
			// started.
			const headers = {
				'x-delivery-id': String(call.headers['x-delivery-id']),
				'x-signature': String(call.headers['x-signature']),
			};
			const replay = await post(trigger.url, call.raw, headers);
			expect(replay.status).toBe(200);
			expect(JSON.parse(replay.text)).toEqual({
				received: true,
				duplicate: JSON.parse(call.raw).id,
			});
			expect(trigger.executions).toHaveLength(1);

			// A second subscription to the same URL: the sandbox sends each notification twice,
			// concurrently.
			await subscribe(sb(), { url: trigger.url, secret: SECRET });
			const refund = await sb().send('PUT', `/orders/${orderId}/status`, { toStatus: 'refund' });
			expect(refund.status).toBe(200);
			const calls = await trigger.waitForCalls(4);
			expect(calls.slice(2).map((c) => c.headers['x-delivery-id'])).toEqual([
				calls[2].headers['x-delivery-id'],
				calls[2].headers['x-delivery-id'],
			]);
			expect(calls.map((c) => c.status)).toEqual([200, 200, 200, 200]);
			expect(trigger.executions.map(([item]) => item.json.type)).toEqual(['sale', 'refund']);
			// Remembered in this process only: nothing is written to the workflow's static data.
			expect(trigger.staticData).toEqual({});
		},
	);

	it('ten copies of one delivery at the same moment start one execution', async () => {
		const trigger = await triggers.start(SIGNED);
		const body = JSON.stringify({ id: 'd-burst', type: 'order.sale', data: { orderId: 3 } });
		const answers = await Promise.all(
			Array.from({ length: 10 }, () =>
				post(trigger.url, body, { 'x-signature': sign(SECRET, body) }),
			),
		);
		expect(answers.map((a) => a.status)).toEqual(new Array(10).fill(200));
		expect(trigger.executions).toHaveLength(1);
	});

	it(
		'each event filter is honoured: a notification of another ' +
			'kind is answered 200 and starts nothing',
		async () => {
			const kinds = ['newEvent', 'eventUpdated', 'sale', 'refund'];
			const only = await Promise.all(kinds.map((kind) => triggers.subscribed({ events: [kind] })));
			const all = await triggers.subscribed({});

			const created = await sb().admin('POST', '/events', { name: 'Filter Night', places: 10 });
			await sb().admin('PATCH', `/events/${created.body.id}`, { name: 'Filter Night (moved)' });
			const sale = await widgetSale();
			expect((await sb().admin('POST', `/widget-orders/${sale.id}/refund`)).status).toBe(201);

			for (const [index, { trigger, subscription }] of only.entries()) {
				await trigger.waitForCalls(4);
				await delivered(subscription.id, 4);
				expect(trigger.calls.map((c) => c.status)).toEqual([200, 200, 200, 200]);
				expect(trigger.executions.map(([item]) => item.json.type)).toEqual([kinds[index]]);
				const ignored = trigger.calls
					.filter((c) => !c.workflowData)
					.map((c) => JSON.parse(c.response));
				expect(ignored).toHaveLength(3);
				for (const answer of ignored)
					expect(answer.ignored).toMatch(/is not among the trigger's Events/);
			}
			await all.trigger.waitForCalls(4);
			expect(all.trigger.executions.map(([item]) => item.json.type)).toEqual(kinds);
			expect(all.trigger.executions[0][0].json).toMatchObject({
				eventPointId: String(created.body.id),
				orderId: null,
			});
		},
	);

	it(
		'Fetch Full Order: a paid order comes with its tickets and ' +
			'barcodes; a refund with its new state',
		async () => {
			const { trigger } = await triggers.subscribed({ ...SIGNED, fetchFullOrder: true });
			const { orderId } = await payOrder(sb());
			await trigger.waitForCalls(1);
			const [[sale]] = trigger.executions;
			const order = (await sb().get(`/orders/${orderId}`)).body;
			expect(sale.json).toMatchObject({
				type: 'sale',
				channel: 'api',
				orderId: String(orderId),
				order,
				orderUnavailable: null,
			});
			const tickets = (sale.json.order as IDataObject).tickets as IDataObject[];
			expect(tickets.length).toBeGreaterThan(0);
			for (const ticket of tickets) expect(ticket.barcode).toEqual(expect.stringMatching(/\S/));

			expect(
				(await sb().send('PUT', `/orders/${orderId}/status`, { toStatus: 'refund' })).status,
			).toBe(200);
			await trigger.waitForCalls(2);
			expect(trigger.executions[1][0].json).toMatchObject({
				type: 'refund',
				channel: 'api',
				orderId: String(orderId),
				order: { id: orderId, status: 'refund' },
			});
			console.log(
				`answer with Fetch Full Order (one GET /orders/{id}, first with a token request): ` +
					`${trigger.calls.map((c) => `${c.durationMs.toFixed(1)} ms`).join(', ')}`,
			);
		},
	);

	it(
		'Fetch Full Order with a key the service refuses: 503 and nothing started (the key ' +
			'never in the answer); with the key fixed, the retry starts the sale with its order',
		async () => {
			const wrongKey = 'pe_test_partner_not_a_key_0000';
			const store = triggerCredentials(sb());
			store.add(
				'publicEventsApi',
				{ environment: 'staging', baseUrl: sb().sandbox.baseUrl, apiKey: wrongKey },
				{ id: 'wrong' },
			);
			const trigger = await triggers.start({ ...SIGNED, fetchFullOrder: true });
			trigger.configure({
				credentials: store,
				nodeCredentials: {
					publicEventsWebhookApi: { id: '1', name: 'secret' },
					publicEventsApi: { id: 'wrong', name: 'wrong key' },
				},
			});
			const subscription = await subscribe(sb(), { url: trigger.url, secret: SECRET });
			const { orderId } = await payOrder(sb());
			const [call] = await trigger.waitForCalls(1);
			expect([call.status, trigger.executions]).toEqual([503, []]);
			expect(JSON.parse(call.response).message).toMatch(/could not be read .* yet/);
			expect(JSON.stringify(trigger.calls)).not.toContain(wrongKey);

			trigger.configure({ credentials: triggerCredentials(sb()), nodeCredentials: undefined });
			await sb().advanceClock(FIRST_RETRY);
			const [delivery] = await delivered(subscription.id, 1);
			expect(delivery.attempts.map((a: IDataObject) => a.status)).toEqual([503, 200]);
			expect(trigger.executions[0][0].json).toMatchObject({
				type: 'sale',
				orderId: String(orderId),
				order: { id: orderId, status: 'paid' },
				orderUnavailable: null,
			});
			await sb().advanceClock(-FIRST_RETRY);
		},
	);

	it(
		'new events and event updates are emitted without an order, ' + 'even with Fetch Full Order on',
		async () => {
			const { trigger } = await triggers.subscribed({ ...SIGNED, fetchFullOrder: true });
			const before = await mark(sb());
			const created = await sb().admin('POST', '/events', { name: 'Quiet Premiere', places: 5 });
			await trigger.waitForCalls(1);
			expect(trigger.executions[0][0].json).toMatchObject({
				type: 'newEvent',
				eventPointId: String(created.body.id),
			});
			expect(trigger.executions[0][0].json).not.toHaveProperty('order');
			expect((await since(sb(), before)).map((e) => e.route)).not.toContain('/orders/{id}');
		},
	);

	it(
		'the push and poll triggers emit the same header for the same ' +
			'sale and refund, so a workflow can switch',
		async () => {
			const { trigger } = await triggers.subscribed(SIGNED);
			const poller = new PollSession({
				nodeType: new PublicEventsPollTrigger(),
				type: 'CUSTOM.publicEventsPollTrigger',
				parameters: { include: ['widgetSales', 'widgetRefunds'] },
				credentials: triggerCredentials(sb()),
			});
			expect((await poller.poll()).returnedNull).toBe(true); // activation
			const sale = await widgetSale();
			await trigger.waitForCalls(1);
			await sb().advanceClock(1000);
			expect((await sb().admin('POST', `/widget-orders/${sale.id}/refund`)).status).toBe(201);
			await trigger.waitForCalls(2);
			const polled = await poller.poll();
			expect(polled.error).toBeUndefined();

			const header = ({
				type,
				channel,
				orderId,
				eventPointId,
				occurredAt,
				dedupeKey,
			}: IDataObject) => ({ type, channel, orderId, eventPointId, occurredAt, dedupeKey });
			const pushed = trigger.executions.map(([item]) => header(item.json));
			const ids = { orderId: String(sale.id), eventPointId: String(sale.eventPoint) };
			const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
			const [refund] = (await sb().getAll('/widget-orders-refunds')).filter(
				(r) => r.order === sale.id,
			);
			expect(pushed).toEqual([
				{
					type: 'sale',
					channel: 'widget',
					...ids,
					occurredAt: iso,
					dedupeKey: `sale:widget:${sale.id}`,
				},
				{
					type: 'refund',
					channel: 'widget',
					...ids,
					occurredAt: iso,
					dedupeKey: `refund:widget:${String(refund.id)}`,
				},
			]);
			expect(polled.items.map((item) => header(item.json))).toEqual(pushed);
		},
	);
});
