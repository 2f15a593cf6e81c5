import {
	SECRET,
	signAt,
	signedTime,
	quiet,
	until,
	subscribe,
	deliveriesOf,
	FIRST_RETRY,
} from '../../harness/sandbox/push';
import { Receiver } from '../../harness/net/receiver';
import { SandboxClient } from '../../harness/sandbox/client';

describe('sandbox push notifications: retries on the sandbox clock', () => {
	const BASE = FIRST_RETRY;
	let sb: SandboxClient;
	const receivers: Receiver[] = [];

	beforeAll(
		async () =>
			(sb = await SandboxClient.start({
				events: 4,
				placesPerEvent: 40,
				push: { retryBaseMs: BASE, maxAttempts: 8 },
			})),
	);
	afterEach(async () => {
		await sb.admin('DELETE', '/webhooks');
		await Promise.all(receivers.splice(0).map((r) => r.close()));
	});
	afterAll(() => sb.stop());

	const attemptsOf = async (subscriptionId: number, count: number) =>
		until(async () => {
			const [delivery] = await deliveriesOf(sb, subscriptionId);
			return delivery && delivery.attempts.length >= count ? delivery : undefined;
		}, `${count} attempt(s) of subscription ${subscriptionId}`);

	it(
		'500, 500, 200: retried with the same id and body, each ' +
			'attempt signed anew at its time; attempts 1,2,3; delay doubles',
		async () => {
			const rx = await Receiver.start({ statuses: [500, 500, 200] });
			receivers.push(rx);
			const sub = await subscribe(sb, { url: rx.url, secret: SECRET });

			const sale = await sb.admin('POST', '/widget-orders', {});
			expect(sale.status).toBe(201);
			await rx.waitFor(1);
			let delivery = await attemptsOf(sub.id, 1);
			expect(delivery).toMatchObject({
				state: 'pending',
				attempts: [expect.objectContaining({ status: 500 })],
			});

			// The first retry waits retryBaseMs on the sandbox clock: not sent until the clock moves.
			await quiet(sb);
			expect(rx.requests).toHaveLength(1);
			await sb.advanceClock(BASE - 5_000);
			await quiet(sb);
			expect(rx.requests).toHaveLength(1);
			await sb.advanceClock(5_000);
			await rx.waitFor(2);

			// The second retry waits twice as long.
			await attemptsOf(sub.id, 2);
			await sb.advanceClock(BASE);
			await quiet(sb);
			expect(rx.requests).toHaveLength(2);
			await sb.advanceClock(BASE);
			await rx.waitFor(3);

			delivery = await until(async () => {
				const [d] = await deliveriesOf(sb, sub.id);
				return d?.state === 'delivered' ? d : undefined;
			}, 'state delivered');
			expect(delivery.attempts.map((a: any) => a.status)).toEqual([500, 500, 200]);
			expect(delivery.attempts[1].at - delivery.attempts[0].at).toBeGreaterThanOrEqual(BASE);
			expect(delivery.attempts[2].at - delivery.attempts[1].at).toBeGreaterThanOrEqual(2 * BASE);
			expect(delivery.payload).toMatchObject({
				type: 'order.sale',
				data: { orderId: sale.body.id, source: 'widget' },
			});

			const [first, second, third] = rx.requests;
			expect([first, second, third].map((r) => r.headers['x-delivery-attempt'])).toEqual([
				'1',
				'2',
				'3',
			]);
			const id = JSON.parse(first.raw).id;
			expect(delivery.notificationId).toBe(id);
			for (const r of [second, third]) {
				expect(r.raw).toBe(first.raw);
				expect(r.headers['x-delivery-id']).toBe(id);
			}
			// Each attempt's time is the sandbox clock's at that attempt: the retries' are a minute and
			// two later.
			const times = [first, second, third].map((r) => signedTime(r.headers['x-signature']));
			expect(
				times.map((t, n) => t * 1000 - Math.floor(delivery.attempts[n].at / 1000) * 1000),
			).toEqual([0, 0, 0]);
			expect(times[1] - times[0]).toBeGreaterThanOrEqual(BASE / 1000);
			expect(times[2] - times[1]).toBeGreaterThanOrEqual((2 * BASE) / 1000);
			for (const [n, r] of [first, second, third].entries())
				expect(r.headers['x-signature']).toBe(signAt(SECRET, first.raw, times[n] * 1000));

			// Delivered: moving the clock further sends nothing more.
			await sb.advanceClock(10 * BASE);
			await quiet(sb);
			expect(rx.requests).toHaveLength(3);
		},
	);

	it('after maxAttempts failures the delivery is failed and no more attempts come', async () => {
		const config = await sb.admin('PUT', '/config', { push: { maxAttempts: 3 } });
		expect(config.status).toBe(200);
		expect(config.body.push).toMatchObject({ maxAttempts: 3, retryBaseMs: BASE });
		const rx = await Receiver.start({ fallback: 500 });
		receivers.push(rx);
		const sub = await subscribe(sb, { url: rx.url });

		expect((await sb.admin('POST', '/widget-orders', {})).status).toBe(201);
		await rx.waitFor(1);
		await attemptsOf(sub.id, 1);
		await sb.advanceClock(BASE);
		await rx.waitFor(2);
		await attemptsOf(sub.id, 2);
		await sb.advanceClock(2 * BASE);
		await rx.waitFor(3);

		const delivery = await until(async () => {
			const [d] = await deliveriesOf(sb, sub.id);
			return d?.state === 'failed' ? d : undefined;
		}, 'state failed');
		expect(delivery.attempts.map((a: any) => a.status)).toEqual([500, 500, 500]);

		await sb.advanceClock(60 * BASE);
		await quiet(sb);
		expect(rx.requests).toHaveLength(3);
		expect((await deliveriesOf(sb, sub.id))[0].attempts).toHaveLength(3);
	});

	it('a pending retry keeps its signature after the subscriptions are removed', async () => {
		const rx = await Receiver.start({ statuses: [500, 200] });
		receivers.push(rx);
		const sub = await subscribe(sb, { url: rx.url, secret: SECRET });
		expect((await sb.admin('POST', '/widget-orders', {})).status).toBe(201);
		await rx.waitFor(1);
		await attemptsOf(sub.id, 1);

		expect((await sb.admin('DELETE', '/webhooks')).status).toBe(200);
		await subscribe(sb, { url: rx.url, secret: 'another-secret' });
		await sb.advanceClock(BASE);
		await rx.waitFor(2);
		const [first, retry] = rx.requests;
		expect(retry.raw).toBe(first.raw);
		expect(retry.headers['x-signature']).toBe(
			signAt(SECRET, first.raw, signedTime(retry.headers['x-signature']) * 1000),
		);
		expect(retry.headers['x-signature']).not.toContain(
			signAt('another-secret', first.raw, signedTime(retry.headers['x-signature']) * 1000).slice(
				-64,
			),
		);
	});

	it('a receiver that is down counts as a failed attempt', async () => {
		expect((await sb.admin('PUT', '/config', { push: { maxAttempts: 3 } })).status).toBe(200);
		const url = await Receiver.deadUrl();
		const sub = await subscribe(sb, { url });

		expect((await sb.admin('POST', '/widget-orders', {})).status).toBe(201);
		let delivery = await attemptsOf(sub.id, 1);
		expect(delivery.state).toBe('pending');
		expect(delivery.attempts[0].status).toBeUndefined();
		expect(delivery.attempts[0].error).toEqual(expect.any(String));

		await sb.advanceClock(BASE);
		await attemptsOf(sub.id, 2);
		await sb.advanceClock(2 * BASE);
		delivery = await until(async () => {
			const [d] = await deliveriesOf(sb, sub.id);
			return d?.state === 'failed' ? d : undefined;
		}, 'state failed');
		expect(delivery.attempts).toHaveLength(3);
		expect(
			delivery.attempts.every((a: any) => a.status === undefined && typeof a.error === 'string'),
		).toBe(true);
	});
});
