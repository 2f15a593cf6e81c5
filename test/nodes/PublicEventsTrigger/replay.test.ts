import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import { SEEN_WINDOW } from '../../../nodes/PublicEventsTrigger/webhook/dedupe';
import {
	deliveriesOf,
	SECRET,
	sign,
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
 * delivery replayed after SEEN_WINDOW newer ones, ids of any length, static data of earlier
 * versions, and Header Token deliveries deduped by their body. The memory is the process's: after
 * a restart a copy starts a second run, named by the same dedupeKey.
 */
const { sb, triggers } = triggerSuite(pushSandbox(4), (sandbox) =>
	sandbox.admin('POST', '/clock', { set: new Date().toISOString() }),
);

const keysOf = (trigger: { executions: Array<Array<{ json: IDataObject }>> }) =>
	trigger.executions.map(([item]) => item.json.dedupeKey);

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

describe(`a captured delivery replayed after ${SEEN_WINDOW} newer ones`, () => {
	it(
		'is refused 401 inside the window (its time is below the floor left by the keys ' +
			'remembered since); after a restart it starts a run named as the first',
		async () => {
			const { trigger } = await triggers.subscribed(SIGNED, {});
			const made = await sb().admin('POST', '/widget-orders', {});
			expect(made.status).toBe(201);
			const [captured] = await trigger.waitForCalls(1);
			expect(captured.status).toBe(200);
			const replay = (url = trigger.url) =>
				post(url, captured.raw, {
					'x-delivery-id': String(captured.headers['x-delivery-id']),
					'x-signature': String(captured.headers['x-signature']),
				});
			expect(JSON.parse((await replay()).text)).toEqual({
				received: true,
				duplicate: captured.headers['x-delivery-id'],
			});

			// Newer deliveries, signed a second later than the captured one (as a busy sender's would
			// be): each delivery is one key (its body; these declare no delivery id).
			const later = (signedTime(captured.headers['x-signature']) + 1) * 1000;
			const started = Date.now();
			for (let n = 0; n < SEEN_WINDOW; n += 50) {
				const batch = Array.from({ length: 50 }, (_, i) =>
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

			const answer = await replay();
			expect([answer.status, JSON.parse(answer.text).message]).toEqual([
				401,
				expect.stringMatching(/no longer remembers, so it may be a replay/),
			]);
			expect(trigger.executions).toHaveLength(1 + SEEN_WINDOW);
			expect(trigger.staticData).toEqual({});

			const restarted = await triggers.start(SIGNED, { nodeType: await restartedNode() });
			expect((await replay(restarted.url)).status).toBe(200);
			expect(keysOf(restarted)).toEqual([keysOf(trigger)[0]]);
			console.log(
				`${SEEN_WINDOW} signed deliveries in ${ms} ms (50 at a time): ` +
					`${((ms / SEEN_WINDOW) * 1000).toFixed(0)} µs each`,
			);
		},
	);
});

describe('a captured delivery replayed after a restart (memory is per process)', () => {
	const body = JSON.stringify({
		id: 'ntf_captured',
		type: 'order.sale',
		occurredAt: new Date().toISOString(),
		data: { orderId: 700123, eventPointId: 1001, status: 'paid', source: 'api' },
	});
	const replayAfterRestart = async (parameters: INodeParameters, signature: string) => {
		const trigger = await triggers.start(parameters);
		const first = await post(trigger.url, body, { 'x-signature': signature });
		const again = await post(trigger.url, body, { 'x-signature': signature });
		const restarted = await triggers.start(parameters, {
			nodeType: await restartedNode(),
			workflowId: trigger.workflowId,
			staticData: trigger.staticData,
		});
		const replay = await post(restarted.url, body, { 'x-signature': signature });
		return { trigger, restarted, statuses: [first, again, replay].map((a) => a.status) };
	};

	it(
		'signed with a time inside the Replay Window: before the restart a duplicate, after it a ' +
			'run of the same change (one dedupeKey: a destination keyed by it holds one)',
		async () => {
			const { trigger, restarted, statuses } = await replayAfterRestart(
				SIGNED,
				signAt(SECRET, body),
			);
			expect(statuses).toEqual([200, 200, 200]);
			expect([...keysOf(trigger), ...keysOf(restarted)]).toEqual([
				'sale:api:700123',
				'sale:api:700123',
			]);
		},
	);

	it(
		'signed without a time: taken at any age, after a restart too; Require Signed Time ' +
			'refuses it (401) and still takes signatures with a time',
		async () => {
			const untimed = sign(SECRET, body);
			const loose = await replayAfterRestart(SIGNED, untimed);
			expect(loose.statuses).toEqual([200, 200, 200]);
			expect(keysOf(loose.restarted)).toEqual(['sale:api:700123']);

			const strict = { ...SIGNED, options: { requireSignedTime: true } };
			const trigger = await triggers.start(strict);
			const refused = await post(trigger.url, body, { 'x-signature': untimed });
			expect([refused.status, JSON.parse(refused.text).message]).toEqual([
				401,
				expect.stringMatching(/signs no time .*Require Signed Time/),
			]);
			expect((await postSigned(trigger.url, body)).status).toBe(200);
			expect(keysOf(trigger)).toEqual(['sale:api:700123']);
		},
	);
});

describe('ids of any length', () => {
	it(
		'20 deliveries declaring 900 KB delivery ids: each kept as a short digest, a repeat of ' +
			'each known, the note cut to 100 characters',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const huge = (n: number) => `${n}-${'x'.repeat(900 * 1024)}`;
			const bodies = Array.from({ length: 20 }, (_, n) =>
				JSON.stringify({ deliveryId: huge(n), type: 'order.sale', data: { orderId: n } }),
			);
			for (const body of bodies) expect((await postSigned(trigger.url, body)).status).toBe(200);
			expect(trigger.executions).toHaveLength(20);

			// The same declared id in a new body (a different signature): known by its id.
			const repeat = await postSigned(
				trigger.url,
				JSON.stringify({ deliveryId: huge(7), type: 'order.sale', data: { orderId: 7, again: 1 } }),
			);
			expect(repeat.status).toBe(200);
			expect(JSON.parse(repeat.text).duplicate).toHaveLength(101);
			expect(trigger.executions).toHaveLength(20);
			expect(trigger.staticData).toEqual({});
		},
	);

	it(
		'static data saved by earlier versions (delivery windows, floor) is ignored and left ' +
			'as it was',
		async () => {
			const staticData = {
				'node:Node under test': {
					seenDeliveries: ['sale:short-1', `#${'a'.repeat(22)}`],
					seenBodies: ['b'.repeat(22)],
					seenFloor: Math.floor(Date.now() / 1000) + 3600,
				},
			};
			const trigger = await triggers.start(TOKEN, { staticData });
			const answer = await post(
				trigger.url,
				JSON.stringify({ id: 'short-1', type: 'order.sale', data: { orderId: 3 } }),
				{ ...TOKEN_HEADER, 'x-delivery-id': 'short-1' },
			);
			expect([answer.status, answer.text]).toEqual([200, '']);
			expect(keysOf(trigger)).toEqual(['sale:api:3']);
			expect(trigger.staticData).toEqual(staticData);
		},
	);
});

describe('Header Token: bodies are deduped too', () => {
	it(
		'the same body under a new delivery id, or with none, starts nothing; after a restart ' +
			'it starts a run named as the first',
		async () => {
			const trigger = await triggers.start(TOKEN);
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
			// The same id on another body: the header names the delivery under Header Token.
			const reused = await post(trigger.url, body.replace('11', '12'), {
				...TOKEN_HEADER,
				'x-delivery-id': 'h-1',
			});
			expect(JSON.parse(reused.text)).toEqual({ received: true, duplicate: 'h-1' });
			expect(keysOf(trigger)).toEqual(['sale:api:11']);

			const restarted = await triggers.start(TOKEN, { nodeType: await restartedNode() });
			expect((await post(restarted.url, body, TOKEN_HEADER)).status).toBe(200);
			expect(keysOf(restarted)).toEqual(['sale:api:11']);
		},
	);
});
