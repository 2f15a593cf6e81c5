import type { IDataObject } from 'n8n-workflow';

import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import { MAX_KEY_CHARS, SEEN_WINDOW } from '../../../nodes/PublicEventsTrigger/webhook/dedupe';
import {
	deliveriesOf,
	SECRET,
	signAt,
	signedTime,
	until,
	FIRST_RETRY,
} from '../../../harness/sandbox/push';
import {
	post,
	postSigned,
	SIGNED,
	TOKEN,
	TOKEN_HEADER,
	pushSandbox,
	triggerSuite,
} from '../../../harness/nodes/webhookTrigger';
import { MINUTE } from '../../../harness/time';

/**
 * Replays and memory: a signed time outside the Replay Window (the sandbox's own deliveries with
 * its clock moved: the node checks against this machine's clock, as n8n does), a captured
 * delivery replayed after 1,000 newer ones, the bytes the memory keeps for ids of any length, and
 * Header Token deliveries deduped by their body.
 */
const { sb, triggers } = triggerSuite(pushSandbox(4), (sandbox) =>
	sandbox.admin('POST', '/clock', { set: new Date().toISOString() }),
);

const node = (trigger: { staticData: IDataObject }) =>
	(trigger.staticData['node:Node under test'] ?? {}) as {
		seenDeliveries?: string[];
		seenBodies?: string[];
		seenFloor?: number;
	};
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

async function restartedNode() {
	let Restarted: typeof PublicEventsTrigger = PublicEventsTrigger;
	await jest.isolateModulesAsync(async () => {
		({ PublicEventsTrigger: Restarted } = await import(
			'../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node'
		));
	});
	return new Restarted();
}

describe(
	'Replay Window: the sandbox signs with its own clock, the ' + "node checks with this machine's",
	() => {
		it(
			'a sale signed 6 minutes ago is refused 401 and starts ' +
				'nothing; the retry, signed on time, starts one run',
			async () => {
				const { trigger, subscription } = await triggers.subscribed(SIGNED);
				await sb().advanceClock(-6 * MINUTE);
				expect((await sb().admin('POST', '/widget-orders', {})).status).toBe(201);
				const [first] = await trigger.waitForCalls(1);
				expect(first.status).toBe(401);
				expect(JSON.parse(first.response).message).toMatch(
					new RegExp(
						"^X-Signature was signed 3[56]\\d s before this server's time;" +
							' the trigger takes 300 s either way \\(Replay Window\\)$',
					),
				);
				expect(trigger.executions).toEqual([]);
				expect(trigger.staticData).toEqual({});

				// Back on time and past the first retry's delay: the sandbox signs the same body anew.
				await sb().advanceClock(6 * MINUTE + FIRST_RETRY);
				const [, second] = await trigger.waitForCalls(2);
				expect([second.status, second.raw, second.headers['x-delivery-id']]).toEqual([
					200,
					first.raw,
					first.headers['x-delivery-id'],
				]);
				expect(
					signedTime(second.headers['x-signature']) - signedTime(first.headers['x-signature']),
				).toBeGreaterThanOrEqual(6 * 60 + FIRST_RETRY / 1000);
				expect(trigger.executions).toHaveLength(1);
				const [delivery] = await until(async () => {
					const list = await deliveriesOf(sb(), subscription.id);
					return list[0]?.state === 'delivered' ? list : undefined;
				}, 'the sale delivered');
				expect(delivery.attempts.map((a: IDataObject) => a.status)).toEqual([401, 200]);
			},
		);

		it(
			'a sandbox clock 6 minutes ahead is refused too; with Replay ' +
				'Window 600 s both skews pass',
			async () => {
				const { trigger } = await triggers.subscribed(SIGNED);
				await sb().advanceClock(6 * MINUTE);
				expect((await sb().admin('POST', '/widget-orders', {})).status).toBe(201);
				const [ahead] = await trigger.waitForCalls(1);
				expect([ahead.status, JSON.parse(ahead.response).message]).toEqual([
					401,
					expect.stringMatching(/signed 3[56]\d s after this server's time/),
				]);

				const wide = await triggers.start({ ...SIGNED, options: { replayWindowS: 600 } });
				for (const skew of [-6 * MINUTE, 6 * MINUTE]) {
					const body = JSON.stringify({
						id: `skew${skew}`,
						type: 'order.sale',
						data: { orderId: 1 },
					});
					expect((await postSigned(wide.url, body, {}, Date.now() + skew)).status).toBe(200);
				}
				expect(wide.executions).toHaveLength(2);
			},
		);

		it(
			'a signature without a time is not held to the window; one ' +
				'with a time cannot be stripped of it',
			async () => {
				const trigger = await triggers.start(SIGNED);
				const body = JSON.stringify({ id: 'plain-1', type: 'order.sale', data: { orderId: 2 } });
				const old = signAt(SECRET, body, Date.now() - 6 * MINUTE);
				const hex = old.split('sha256=')[1];
				// The HMAC of "<t>.<body>" is not the HMAC of the body: dropping or changing t breaks it.
				for (const header of [
					`sha256=${hex}`,
					`t=${Math.floor(Date.now() / 1000)},sha256=${hex}`,
				]) {
					expect((await post(trigger.url, body, { 'x-signature': header })).status).toBe(401);
				}
				expect(trigger.executions).toEqual([]);
			},
		);
	},
);

describe('a captured delivery replayed after 1,000 newer ones', () => {
	it(
		`is refused 401 inside the window (its time is below the floor ` +
			`left by the ${SEEN_WINDOW} remembered since), also after a restart`,
		async () => {
			const workflowId = 'replay-after-1000';
			const { trigger } = await triggers.subscribed(SIGNED, {});
			const made = await sb().admin('POST', '/widget-orders', {});
			expect(made.status).toBe(201);
			const [captured] = await trigger.waitForCalls(1);
			expect(captured.status).toBe(200);
			const replay = () =>
				post(trigger.url, captured.raw, {
					'x-delivery-id': String(captured.headers['x-delivery-id']),
					'x-signature': String(captured.headers['x-signature']),
				});
			expect(JSON.parse((await replay()).text)).toEqual({
				received: true,
				duplicate: captured.headers['x-delivery-id'],
			});

			// 1,000 newer deliveries, signed a second later than the captured one (as a busy sender's
			// would be).
			const later = (signedTime(captured.headers['x-signature']) + 1) * 1000;
			const started = Date.now();
			for (let n = 0; n < SEEN_WINDOW; n += 25) {
				const batch = Array.from({ length: 25 }, (_, i) =>
					JSON.stringify({
						id: `newer-${n + i}`,
						type: 'order.sale',
						data: { orderId: 5000 + n + i },
					}),
				);
				const answers = await Promise.all(
					batch.map((body) => postSigned(trigger.url, body, {}, later)),
				);
				expect(answers.map((a) => a.status)).toEqual(batch.map(() => 200));
			}
			const ms = Date.now() - started;
			expect(trigger.executions).toHaveLength(1 + SEEN_WINDOW);
			const saved = node(trigger);
			expect(saved.seenDeliveries).toHaveLength(SEEN_WINDOW);
			expect(
				saved.seenDeliveries!.some((entry) =>
					entry.endsWith(String(captured.headers['x-delivery-id'])),
				),
			).toBe(false);
			expect(saved.seenFloor).toBe(signedTime(captured.headers['x-signature']));

			const answer = await replay();
			expect([answer.status, JSON.parse(answer.text).message]).toEqual([
				401,
				expect.stringMatching(/no longer remembers, so it may be a replay/),
			]);
			expect(trigger.executions).toHaveLength(1 + SEEN_WINDOW);

			const second = await triggers.start(SIGNED, {
				workflowId,
				staticData: trigger.staticData,
				nodeType: await restartedNode(),
			});
			const again = await post(second.url, captured.raw, {
				'x-signature': String(captured.headers['x-signature']),
			});
			expect(again.status).toBe(401);
			expect(second.executions).toEqual([]);
			console.log(
				`${SEEN_WINDOW} signed deliveries in ${ms} ms (25 at a time); ` +
					`static data after them: ${bytes(trigger.staticData)} bytes`,
			);
		},
	);
});

describe('memory bounded in bytes', () => {
	it(
		'80 deliveries with 900 KB ids keep the static data to a few ' +
			'KB; a replay of each is still known',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const huge = (n: number) => `${n}-${'x'.repeat(900 * 1024)}`;
			const bodies = Array.from({ length: 80 }, (_, n) =>
				JSON.stringify({ id: huge(n), type: 'order.sale', data: { orderId: n } }),
			);
			for (const body of bodies) expect((await postSigned(trigger.url, body)).status).toBe(200);
			expect(trigger.executions).toHaveLength(80);
			const size = bytes(trigger.staticData);
			const ids = bodies.length * 900 * 1024;
			console.log(
				`static data after 80 deliveries with 900 KB ids: ` +
					`${size} bytes (the ids: ${(ids / 1e6).toFixed(1)} MB)`,
			);
			expect(size).toBeLessThan(8 * 1024);
			for (const entry of [...node(trigger).seenDeliveries!, ...node(trigger).seenBodies!])
				expect(entry.length).toBeLessThanOrEqual(MAX_KEY_CHARS + 13);

			// The same id in a new body (a different signature): known by its id, answered with a short
			// echo.
			const repeat = await postSigned(
				trigger.url,
				JSON.stringify({ id: huge(7), type: 'order.sale', data: { orderId: 7, again: true } }),
			);
			expect(repeat.status).toBe(200);
			expect(JSON.parse(repeat.text).duplicate).toHaveLength(101);
			expect(trigger.executions).toHaveLength(80);
		},
	);

	it(
		'static data saved before ids were bounded shrinks at the ' +
			'next save, and its ids are still known',
		async () => {
			const id = `legacy-${'y'.repeat(900 * 1024)}`;
			const staticData = {
				'node:Node under test': { seenDeliveries: [`sale:${id}`, 'sale:short-1'], seenBodies: [] },
			};
			const trigger = await triggers.start(TOKEN, { staticData });
			const answers = [];
			for (const delivery of [id, 'short-1'])
				answers.push(
					await post(
						trigger.url,
						JSON.stringify({ id: delivery, type: 'order.sale', data: { orderId: 3 } }),
						TOKEN_HEADER,
					),
				);
			expect(answers.map((a) => [a.status, JSON.parse(a.text).duplicate?.length])).toEqual([
				[200, 101],
				[200, 7],
			]);
			expect(trigger.executions).toEqual([]);
			expect(bytes(trigger.staticData)).toBeLessThan(512);
			expect(node(trigger).seenDeliveries).toEqual([
				expect.stringMatching(/^#[\w+/]{22}$/),
				'sale:short-1',
			]);
		},
	);
});

describe('Header Token: bodies are deduped too', () => {
	it(
		'the same body under a new delivery id, or with none, starts ' +
			'nothing; also after a restart',
		async () => {
			const workflowId = 'token-bodies';
			const trigger = await triggers.start(TOKEN, { workflowId });
			const body = JSON.stringify({ type: 'order.sale', data: { orderId: 11 } });
			expect(
				(await post(trigger.url, body, { ...TOKEN_HEADER, 'x-delivery-id': 'h-1' })).status,
			).toBe(200);
			const renamed = await post(trigger.url, body, { ...TOKEN_HEADER, 'x-delivery-id': 'h-2' });
			const bare = await post(trigger.url, body, TOKEN_HEADER);
			expect([renamed, bare].map((a) => JSON.parse(a.text))).toEqual([
				{ received: true, duplicate: 'h-2' },
				{ received: true, duplicate: null },
			]);
			expect(trigger.executions).toHaveLength(1);
			expect(node(trigger).seenBodies).toEqual([expect.stringMatching(/^[\w+/]{22}$/)]);

			const second = await triggers.start(TOKEN, {
				workflowId,
				staticData: trigger.staticData,
				nodeType: await restartedNode(),
			});
			expect(
				(await post(second.url, body, { ...TOKEN_HEADER, 'x-delivery-id': 'h-3' })).status,
			).toBe(200);
			expect(second.executions).toEqual([]);
			// A new notification (one byte differs) under a new id starts its run.
			expect(
				(
					await post(second.url, body.replace('11', '12'), {
						...TOKEN_HEADER,
						'x-delivery-id': 'h-4',
					})
				).status,
			).toBe(200);
			expect(second.executions).toHaveLength(1);
		},
	);
});
