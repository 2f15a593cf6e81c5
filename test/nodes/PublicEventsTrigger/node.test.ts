import type { IDataObject } from 'n8n-workflow';

import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import { SEEN_WINDOW } from '../../../nodes/PublicEventsTrigger/webhook/dedupe';
import { normaliseType } from '../../../nodes/PublicEventsTrigger/webhook/normalize';
import { callWebhookMethod } from '../../../harness/engine';
import { mark, since } from '../../../harness/nodes/publicEvents';
import { SECRET, sign } from '../../../harness/sandbox/push';
import {
	post,
	SIGNED,
	TOKEN,
	TOKEN_HEADER,
	TRIGGER_TYPE,
	triggerCredentials,
	triggerSuite,
} from '../../../harness/nodes/webhookTrigger';

/**
 * The trigger's description and lifecycle, and requests other senders would make (sent here
 * directly).
 */
const { sb, triggers } = triggerSuite({ events: 2, placesPerEvent: 2 });

/** The node after a restart of n8n: a fresh copy of its module, its memory empty. */
async function restartedNode() {
	let Restarted: typeof PublicEventsTrigger = PublicEventsTrigger;
	await jest.isolateModulesAsync(async () => {
		({ PublicEventsTrigger: Restarted } = await import(
			'../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node'
		));
	});
	expect(Restarted).not.toBe(PublicEventsTrigger);
	return new Restarted();
}

describe('Public Events Trigger: the node', () => {
	it(
		'is a webhook trigger with one POST webhook and the ' + 'credentials it needs only when needed',
		() => {
			const { description } = new PublicEventsTrigger();
			expect(description).toMatchObject({
				name: 'publicEventsTrigger',
				group: ['trigger'],
				inputs: [],
			});
			expect(description.displayName).toContain('Trigger');
			expect(description.webhooks).toEqual([
				{
					name: 'default',
					httpMethod: 'POST',
					responseMode: 'onReceived',
					responseData: 'noData',
					path: 'webhook',
				},
			]);
			expect(description.credentials).toEqual([
				expect.objectContaining({
					name: 'publicEventsWebhookApi',
					displayOptions: { show: { authentication: ['headerToken', 'signature'] } },
				}),
				expect.objectContaining({
					name: 'publicEventsApi',
					displayOptions: { show: { fetchFullOrder: [true] } },
				}),
			]);
			const events = description.properties.find((p) => p.name === 'events')!;
			expect(events.default).toEqual(['newEvent', 'eventUpdated', 'sale', 'refund']);
			expect(description.properties.find((p) => p.type === 'notice')?.displayName).toMatch(
				/Production URL.*no API to register.*Poll Trigger/,
			);
		},
	);

	it('activation and deactivation register nothing remote: no request to the service', async () => {
		const options = {
			nodeType: new PublicEventsTrigger(),
			type: TRIGGER_TYPE,
			parameters: { fetchFullOrder: true },
			credentials: triggerCredentials(sb()),
		};
		const before = await mark(sb());
		expect(await callWebhookMethod(options, 'checkExists')).toBe(false);
		expect(await callWebhookMethod(options, 'create')).toBe(true);
		expect(await callWebhookMethod(options, 'delete', 'manual')).toBe(true);
		expect(await since(sb(), before)).toEqual([]);
	});

	it('type names of other senders map to the four kinds; unknown ones to other', () => {
		const cases: Record<string, string> = {
			'order.sale': 'sale',
			sale: 'sale',
			order_paid: 'sale',
			OrderPurchased: 'sale',
			'ORDER.REFUND': 'refund',
			'order.refunded': 'refund',
			'event.created': 'newEvent',
			new_event: 'newEvent',
			newEvent: 'newEvent',
			'event.updated': 'eventUpdated',
			EVENT_CHANGED: 'eventUpdated',
			eventUpdated: 'eventUpdated',
			'order.created': 'other',
			'ticket.scanned': 'other',
			'event.deleted': 'other',
		};
		for (const [name, type] of Object.entries(cases))
			expect([name, normaliseType(name)]).toEqual([name, type]);
	});
});

describe('Public Events Trigger: requests sent directly', () => {
	it(
		'malformed JSON: n8n refuses application/json with 422 before ' +
			'the node runs; other types reach the node, which answers 400',
		async () => {
			const trigger = await triggers.start(TOKEN);
			const broken = '{"type": "order.sale", "id": ';
			const refused = await post(trigger.url, broken, TOKEN_HEADER);
			expect(refused.status).toBe(422);
			expect(JSON.parse(refused.text)).toMatchObject({ message: 'Failed to parse request body' });
			expect(
				await post(trigger.url, broken, { ...TOKEN_HEADER, 'content-type': 'text/plain' }),
			).toEqual({ status: 400, text: JSON.stringify({ message: 'The body is not valid JSON' }) });
			// At 1.1 n8n leaves a body of this type unread: the node reads it.
			expect(
				(
					await post(trigger.url, broken, {
						...TOKEN_HEADER,
						'content-type': 'application/octet-stream',
					})
				).status,
			).toBe(400);
			expect(await post(trigger.url, '[{"type":"sale"}]', TOKEN_HEADER)).toEqual({
				status: 400,
				text: JSON.stringify({ message: 'The body is not a JSON object' }),
			});
			expect((await post(trigger.url, '', TOKEN_HEADER)).status).toBe(400);
			expect(trigger.calls.map((c) => c.status)).toEqual([422, 400, 400, 400, 400]);
			expect(trigger.executions).toEqual([]);
		},
	);

	it(
		'a body n8n leaves unread (1.1, a type it does not parse) is ' +
			'read by the node, checked and started',
		async () => {
			for (const typeVersion of [1, 1.1]) {
				const trigger = await triggers.start(SIGNED, { typeVersion });
				const body = JSON.stringify({
					id: `d-octet-${typeVersion}`,
					type: 'order.sale',
					data: { orderId: 4 },
				});
				expect(
					(
						await post(trigger.url, body, {
							'content-type': 'application/octet-stream',
							'x-signature': sign(SECRET, body),
						})
					).status,
				).toBe(200);
				expect(trigger.executions.map(([item]) => item.json.deliveryId)).toEqual([
					`d-octet-${typeVersion}`,
				]);
			}
		},
	);

	it(
		'with a signature, the check comes first: a malformed body is ' + '401 unsigned, 400 signed',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const broken = '{"type": "order.sale"';
			const asText = { 'content-type': 'text/plain' };
			expect((await post(trigger.url, broken, asText)).status).toBe(401);
			expect(
				(await post(trigger.url, broken, { ...asText, 'x-signature': sign(SECRET, broken) }))
					.status,
			).toBe(400);
			expect(trigger.executions).toEqual([]);
		},
	);

	it(
		'Header Token: the configured header must carry the secret ' +
			'(any case of the name); otherwise 401',
		async () => {
			const token = 'tok_7d1c2a9e';
			const trigger = await triggers.start(
				{ authentication: 'headerToken', headerName: 'X-Webhook-Token' },
				{ secret: token },
			);
			const body = JSON.stringify({ id: 'd-token', type: 'order.sale', data: { orderId: 5 } });
			const missing = await post(trigger.url, body);
			const wrong = await post(trigger.url, body, { 'X-Webhook-Token': `${token}x` });
			const other = await post(trigger.url, body, { authorization: token });
			expect([missing, wrong, other].map((r) => r.status)).toEqual([401, 401, 401]);
			expect(JSON.parse(missing.text)).toEqual({ message: 'Missing X-Webhook-Token header' });
			expect(trigger.executions).toEqual([]);
			expect((await post(trigger.url, body, { 'x-webhook-token': token })).status).toBe(200);
			expect(trigger.executions.map(([item]) => item.json)).toEqual([
				expect.objectContaining({ type: 'sale', orderId: '5', deliveryId: 'd-token' }),
			]);
			for (const call of trigger.calls) expect(call.response).not.toContain(token);
		},
	);

	it(
		'payloads of other shapes are normalised; an unknown type ' + 'fires only with Other selected',
		async () => {
			const trigger = await triggers.start({
				...TOKEN,
				events: ['newEvent', 'eventUpdated', 'sale', 'refund', 'other'],
			});
			const send = (payload: IDataObject, headers?: Record<string, string>) =>
				post(trigger.url, JSON.stringify(payload), { ...TOKEN_HEADER, ...headers });
			await send({
				event: 'ORDER.REFUND',
				deliveryId: 'r-1',
				order: { id: '/api/v2/orders/123' },
				occurred_at: '2026-03-01T10:00:00Z',
			});
			await send(
				{
					eventType: 'order_paid',
					data: { order_id: 5, event_point_id: '/api/v2/event-points/9' },
				},
				{ 'x-delivery-id': 'h-1' },
			);
			await send({ kind: 'new_event', eventPoint: { id: 77 } });
			await send({ type: 'EventUpdated', id: 'u-1', eventPointId: '78', timestamp: 1767225600 });
			await send({ type: 'ticket.scanned', id: 's-1' });
			expect(trigger.calls.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
			const items = trigger.executions.map(([item]) => item.json);
			const withoutPayload = (item: IDataObject) =>
				Object.fromEntries(Object.entries(item).filter(([key]) => key !== 'payload'));
			expect(items.map(withoutPayload)).toEqual([
				{
					type: 'refund',
					sourceType: 'ORDER.REFUND',
					deliveryId: 'r-1',
					orderId: '123',
					eventPointId: null,
					occurredAt: '2026-03-01T10:00:00.000Z',
					// no source: an API order; no refund id, no ticket ids: the order's whole refund
					channel: 'api',
					dedupeKey: 'refund:api:123:all',
				},
				{
					type: 'sale',
					sourceType: 'order_paid',
					deliveryId: 'h-1',
					orderId: '5',
					eventPointId: '9',
					occurredAt: null,
					channel: 'api',
					dedupeKey: 'sale:api:5',
				},
				{
					type: 'newEvent',
					sourceType: 'new_event',
					deliveryId: null,
					orderId: null,
					eventPointId: '77',
					occurredAt: null,
					dedupeKey: 'newEvent:77',
				},
				{
					type: 'eventUpdated',
					sourceType: 'EventUpdated',
					deliveryId: 'u-1',
					orderId: null,
					eventPointId: '78',
					occurredAt: '2026-01-01T00:00:00.000Z', // epoch seconds
					// the update's fingerprint: of the notification, as the event is not read
					dedupeKey: expect.stringMatching(/^eventUpdated:78:[\w-]{16}$/),
				},
				{
					type: 'other',
					sourceType: 'ticket.scanned',
					deliveryId: 's-1',
					orderId: null,
					eventPointId: null,
					occurredAt: null,
					dedupeKey: expect.stringMatching(/^other:#[\w-]{22}$/),
				},
			]);
			expect(items.every((item) => typeof item.payload === 'object')).toBe(true);
			expect(items[1].payload).toEqual({
				eventType: 'order_paid',
				data: { order_id: 5, event_point_id: '/api/v2/event-points/9' },
			});

			const defaults = await triggers.start(TOKEN);
			const ignored = await post(
				defaults.url,
				JSON.stringify({ type: 'ticket.scanned', id: 's-2' }),
				TOKEN_HEADER,
			);
			expect([ignored.status, JSON.parse(ignored.text).ignored]).toEqual([
				200,
				'"ticket.scanned" (other) is not among the trigger\'s Events',
			]);
			expect(
				(await post(defaults.url, JSON.stringify({ note: 'no type at all' }), TOKEN_HEADER)).status,
			).toBe(200);
			expect(defaults.executions).toEqual([]);
		},
	);

	it('Type Field reads the type where a sender keeps it', async () => {
		const trigger = await triggers.start({ ...TOKEN, options: { typeField: 'meta.name' } });
		await post(
			trigger.url,
			JSON.stringify({ type: 'envelope', meta: { name: 'sale' }, data: { orderId: 8 } }),
			TOKEN_HEADER,
		);
		expect(trigger.executions.map(([item]) => item.json)).toEqual([
			expect.objectContaining({ type: 'sale', sourceType: 'sale', orderId: '8' }),
		]);
	});

	it(
		`the window is this process's: the newest ${SEEN_WINDOW} keys (a delivery declaring an ` +
			'id has two); after a restart a copy starts a run named as the first',
		async () => {
			const first = await triggers.start(TOKEN);
			const delivery = (n: number) =>
				JSON.stringify({ deliveryId: `d-${n}`, type: 'order.sale', data: { orderId: n } });
			for (let n = 0; n <= SEEN_WINDOW; n += 50) {
				const batch = Array.from({ length: 50 }, (_, i) => n + i).filter((i) => i <= SEEN_WINDOW);
				const answers = await Promise.all(
					batch.map((i) => post(first.url, delivery(i), TOKEN_HEADER)),
				);
				expect(answers.map((a) => a.status)).toEqual(batch.map(() => 200));
			}
			expect(first.executions).toHaveLength(SEEN_WINDOW + 1);
			// Two keys a delivery (its body, its declared id): the window holds the newest half.
			for (const n of [SEEN_WINDOW, SEEN_WINDOW / 2 + 1])
				expect(JSON.parse((await post(first.url, delivery(n), TOKEN_HEADER)).text)).toEqual({
					received: true,
					duplicate: `d-${n}`,
				});
			expect(first.executions).toHaveLength(SEEN_WINDOW + 1);
			// d-0 left the window (and signs no time): a delivery that old starts a run again.
			await post(first.url, delivery(0), TOKEN_HEADER);
			expect(first.executions).toHaveLength(SEEN_WINDOW + 2);
			expect(first.staticData).toEqual({});

			// With the window full, each new delivery drops the oldest keys: one at a time, timed.
			const timed = first.calls.length;
			for (let n = 0; n < 500; n++)
				expect((await post(first.url, delivery(SEEN_WINDOW + 1 + n), TOKEN_HEADER)).status).toBe(
					200,
				);
			const durations = first.calls
				.slice(timed)
				.map((c) => c.durationMs)
				.sort((a, b) => a - b);
			console.log(
				`webhook() and the run's creation, one delivery at a time with the window full: ` +
					`median ${durations[durations.length >> 1].toFixed(2)} ms, p99 ` +
					`${durations[Math.floor(durations.length * 0.99)].toFixed(2)} ms over ` +
					`${durations.length} deliveries`,
			);

			const second = await triggers.start(TOKEN, { nodeType: await restartedNode() });
			expect((await post(second.url, delivery(SEEN_WINDOW), TOKEN_HEADER)).status).toBe(200);
			expect(second.executions.map(([item]) => item.json.dedupeKey)).toEqual([
				`sale:api:${SEEN_WINDOW}`,
			]);
		},
	);

	it(
		'a signed delivery replayed under a new delivery id is a duplicate; after a restart it ' +
			'starts a run named as the first',
		async () => {
			const body = JSON.stringify({ id: 'ntf_1', type: 'order.sale', data: { orderId: 1 } });
			const headers = { 'x-signature': sign(SECRET, body), 'x-delivery-id': 'ntf_1' };
			const first = await triggers.start(SIGNED);
			expect((await post(first.url, body, headers)).status).toBe(200);
			const replay = await post(first.url, body, { ...headers, 'x-delivery-id': 'ntf_999' });
			expect([replay.status, JSON.parse(replay.text).duplicate]).toEqual([200, 'ntf_1']);
			expect(first.executions).toHaveLength(1);

			const second = await triggers.start(SIGNED, { nodeType: await restartedNode() });
			expect(
				(await post(second.url, body, { ...headers, 'x-delivery-id': 'ntf_999' })).status,
			).toBe(200);
			expect(
				[...first.executions, ...second.executions].map(([item]) => item.json.dedupeKey),
			).toEqual(['sale:api:1', 'sale:api:1']);
		},
	);

	it('ten different deliveries at once: ten executions; the ten again at once: none', async () => {
		const trigger = await triggers.start(TOKEN);
		const bodies = Array.from({ length: 10 }, (_, n) =>
			JSON.stringify({ id: `b-${n}`, type: 'order.sale', data: { orderId: 100 + n } }),
		);
		for (let round = 0; round < 2; round++) {
			const answers = await Promise.all(
				bodies.map((body) => post(trigger.url, body, TOKEN_HEADER)),
			);
			expect(answers.map((a) => a.status)).toEqual(new Array(10).fill(200));
		}
		expect(trigger.executions.map(([item]) => item.json.dedupeKey).sort()).toEqual(
			bodies.map((_, n) => `sale:api:${100 + n}`).sort(),
		);
	});
});
