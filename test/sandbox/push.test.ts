import { createHmac } from 'node:crypto';

import { Receiver } from '../helpers/receiver';
import { SandboxClient } from '../helpers/sandboxClient';

const SECRET = 'whsec_push_test_3f9a1c';

const sign = (secret: string, raw: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/** Polls `probe` (a few ms apart, at most `timeoutMs`) until it returns something truthy. */
async function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 5000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

/** Gives an in-flight delivery (if one were wrongly started) a moment to reach the receiver. */
const grace = () => new Promise((resolve) => setTimeout(resolve, 60));

async function subscribe(sb: SandboxClient, body: Record<string, unknown>) {
	const res = await sb.admin('POST', '/webhooks', body);
	expect(res.status).toBe(201);
	return res.body as { id: number; companyId: number; signed: boolean; types?: string[] };
}

async function deliveriesOf(sb: SandboxClient, subscriptionId: number): Promise<any[]> {
	const res = await sb.admin('GET', '/deliveries');
	expect(res.status).toBe(200);
	return (res.body as any[]).filter((d) => d.subscriptionId === subscriptionId);
}

/** A reserved order of the partner on an event with a free place. */
async function reserveOrder(sb: SandboxClient): Promise<{ orderId: number; eventId: number }> {
	const events = await sb.get('/event-points', { query: { itemsPerPage: 20 } });
	const event = events.body.find((e: any) => e.countAvailableTickets > 0);
	const place = await sb.freePlace(event.id);
	const order = await sb.send('POST', '/orders', { eventPoint: String(event.id), places: [place.id], priceCategory: place.priceCategory });
	expect(order.status).toBe(201);
	return { orderId: Number(order.body.id), eventId: event.id };
}

async function payOrder(sb: SandboxClient): Promise<{ orderId: number; eventId: number }> {
	const order = await reserveOrder(sb);
	const paid = await sb.send('PUT', `/orders/${order.orderId}/status`, { toStatus: 'paid' });
	expect(paid.status).toBe(200);
	return order;
}

describe('sandbox push notifications: what is sent', () => {
	let sb: SandboxClient;
	const receivers: Receiver[] = [];
	const receiver = async (statuses?: number[]) => {
		const r = await Receiver.start({ statuses });
		receivers.push(r);
		return r;
	};

	beforeAll(async () => (sb = await SandboxClient.start({ events: 6, placesPerEvent: 40 })));
	afterEach(async () => {
		await sb.admin('DELETE', '/webhooks');
		await Promise.all(receivers.splice(0).map((r) => r.close()));
	});
	afterAll(() => sb.stop());

	it('a paid order pushes order.sale, signed with the shared secret (HMAC-SHA256 of the raw body)', async () => {
		const rx = await receiver();
		const sub = await subscribe(sb, { url: rx.url, secret: SECRET });
		expect(sub).toMatchObject({ companyId: 2, signed: true });

		const { orderId, eventId } = await payOrder(sb);
		const [req] = await rx.waitFor(1);
		expect(req.method).toBe('POST');
		expect(req.headers['content-type']).toMatch(/^application\/json/);
		const body = JSON.parse(req.raw);
		expect(Object.keys(body).sort()).toEqual(['data', 'id', 'occurredAt', 'type']);
		expect(body).toMatchObject({ id: expect.stringMatching(/\S/), type: 'order.sale', data: { orderId, eventPointId: eventId, status: 'paid', source: 'api' } });
		expect(Number.isNaN(Date.parse(body.occurredAt))).toBe(false);
		expect(req.headers['x-delivery-id']).toBe(body.id);
		expect(req.headers['x-delivery-attempt']).toBe('1');

		expect(req.headers['x-signature']).toBe(sign(SECRET, req.raw));
		expect(req.headers['x-signature']).not.toBe(sign(`${SECRET}x`, req.raw));
		// Lower-case hex of a 32-byte digest.
		expect(req.headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
	});

	it('without a secret there is no X-Signature; a refund pushes order.refund', async () => {
		const rx = await receiver();
		const sub = await subscribe(sb, { url: rx.url });
		expect(sub.signed).toBe(false);

		const { orderId } = await payOrder(sb);
		await rx.waitFor(1);
		const refund = await sb.send('PUT', `/orders/${orderId}/status`, { toStatus: 'refund' });
		expect(refund.status).toBe(200);
		await rx.waitFor(2);

		expect(rx.requests.map((r) => r.headers['x-signature'])).toEqual([undefined, undefined]);
		const [sale, refunded] = rx.bodies();
		expect(sale).toMatchObject({ type: 'order.sale', data: { orderId } });
		expect(refunded).toMatchObject({ type: 'order.refund', data: { orderId, status: 'refund' } });
		expect(refunded.id).not.toBe(sale.id);
	});

	it('a new event (admin) pushes event.created to the linked companies only', async () => {
		const partnerRx = await receiver();
		const organiserRx = await receiver();
		const partnerSub = await subscribe(sb, { url: partnerRx.url, company: 'partner' });
		const organiserSub = await subscribe(sb, { url: organiserRx.url, company: 'organiser' });
		expect(organiserSub.companyId).toBe(1);

		const shared = await sb.admin('POST', '/events', { name: 'Push Gala', places: 10 });
		expect(shared.status).toBe(201);
		await partnerRx.waitFor(1);
		await organiserRx.waitFor(1);
		for (const rx of [partnerRx, organiserRx]) {
			expect(rx.bodies()[0]).toMatchObject({ type: 'event.created', data: { eventPointId: shared.body.id } });
		}

		// Linked to the organiser alone: the partner's subscription gets no delivery.
		const privateEvent = await sb.admin('POST', '/events', { name: 'Closed Rehearsal', places: 10, companies: [] });
		expect(privateEvent.status).toBe(201);
		await organiserRx.waitFor(2);
		expect(organiserRx.bodies()[1]).toMatchObject({ type: 'event.created', data: { eventPointId: privateEvent.body.id } });
		const partnerDeliveries = await deliveriesOf(sb, partnerSub.id);
		expect(partnerDeliveries.map((d) => d.payload.data.eventPointId)).toEqual([shared.body.id]);
		await grace();
		expect(partnerRx.requests).toHaveLength(1);
		expect(await deliveriesOf(sb, organiserSub.id)).toHaveLength(2);
	});

	it('renaming an event (admin PATCH) pushes event.updated listing eventName in data.changed', async () => {
		const rx = await receiver();
		await subscribe(sb, { url: rx.url });
		const events = await sb.get('/event-points', { query: { itemsPerPage: 1 } });
		const id = events.body[0].id;

		const patched = await sb.admin('PATCH', `/events/${id}`, { name: 'Renamed Night' });
		expect(patched.status).toBe(200);
		await rx.waitFor(1);
		expect(rx.bodies()[0]).toMatchObject({ type: 'event.updated', data: { eventPointId: id, changed: ['eventName'] } });
		expect((await sb.get(`/event-points/${id}`)).body.eventName).toBe('Renamed Night');
	});

	it('widget sales and refunds (admin) push order.sale / order.refund with source widget', async () => {
		const rx = await receiver();
		await subscribe(sb, { url: rx.url, secret: SECRET });

		const sale = await sb.admin('POST', '/widget-orders', { tickets: 2 });
		expect(sale.status).toBe(201);
		await rx.waitFor(1);
		const refund = await sb.admin('POST', `/widget-orders/${sale.body.id}/refund`);
		expect(refund.status).toBe(201);
		await rx.waitFor(2);

		const [saleBody, refundBody] = rx.bodies();
		expect(saleBody).toMatchObject({ type: 'order.sale', data: { orderId: sale.body.id, eventPointId: sale.body.eventPoint, source: 'widget' } });
		expect(refundBody).toMatchObject({ type: 'order.refund', data: { orderId: sale.body.id, refundId: refund.body.id, source: 'widget' } });
		for (const req of rx.requests) expect(req.headers['x-signature']).toBe(sign(SECRET, req.raw));
	});

	it('a types filter limits what a subscription receives', async () => {
		const all = await receiver();
		const refundsOnly = await receiver();
		await subscribe(sb, { url: all.url });
		const filtered = await subscribe(sb, { url: refundsOnly.url, types: ['order.refund'] });
		expect(filtered.types).toEqual(['order.refund']);

		const { orderId } = await payOrder(sb);
		await sb.send('PUT', `/orders/${orderId}/status`, { toStatus: 'refund' });
		await sb.admin('POST', '/events', { name: 'Filtered Out', places: 5 });
		await all.waitFor(3);
		await refundsOnly.waitFor(1);
		await grace();

		expect(all.bodies().map((b) => b.type)).toEqual(['order.sale', 'order.refund', 'event.created']);
		expect(refundsOnly.bodies().map((b) => b.type)).toEqual(['order.refund']);
		expect((await deliveriesOf(sb, filtered.id)).map((d) => d.type)).toEqual(['order.refund']);
	});

	it('an organiser subscription does not receive the partner’s sales', async () => {
		const partnerRx = await receiver();
		const organiserRx = await receiver();
		await subscribe(sb, { url: partnerRx.url });
		const organiserSub = await subscribe(sb, { url: organiserRx.url, company: 'organiser' });

		const { orderId } = await payOrder(sb);
		await partnerRx.waitFor(1);
		expect(partnerRx.bodies()[0]).toMatchObject({ type: 'order.sale', data: { orderId } });
		await grace();
		expect(organiserRx.requests).toHaveLength(0);
		expect(await deliveriesOf(sb, organiserSub.id)).toEqual([]);
	});

	it('rejects a subscription with a bad URL or an unknown type', async () => {
		expect((await sb.admin('POST', '/webhooks', { url: 'not a url' })).status).toBe(400);
		expect((await sb.admin('POST', '/webhooks', { url: 'http://127.0.0.1:9/x', types: ['order.created'] })).status).toBe(400);
		expect((await sb.admin('GET', '/webhooks')).body).toEqual([]);
	});

	it('the control surface never reveals the API key, the token or the webhook secret', async () => {
		const rx = await receiver();
		await subscribe(sb, { url: rx.url, secret: SECRET });
		await payOrder(sb);
		await rx.waitFor(1);
		const token = await sb.token();
		const organiserToken = await sb.token('organiser');
		expect((await sb.get('/event-points', { as: 'organiser', query: { itemsPerPage: 1 } })).status).toBe(200);

		const secrets = [sb.keys.partner, sb.keys.organiser, token, organiserToken, SECRET];
		for (const path of ['/requests', '/counters', '/webhooks', '/deliveries']) {
			const res = await sb.admin('GET', path);
			expect(res.status).toBe(200);
			expect(res.text.length).toBeGreaterThan(2);
			for (const secret of secrets) expect(res.text).not.toContain(secret);
		}
		// The listing still says the subscription is signed.
		expect((await sb.admin('GET', '/webhooks')).body).toEqual([expect.objectContaining({ url: rx.url, signed: true })]);
	});
});

describe('sandbox push notifications: retries on the sandbox clock', () => {
	const BASE = 60_000;
	let sb: SandboxClient;
	const receivers: Receiver[] = [];

	beforeAll(async () => (sb = await SandboxClient.start({ events: 4, placesPerEvent: 40, push: { retryBaseMs: BASE, maxAttempts: 8 } })));
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

	it('500, 500, 200: retried with the same id, body and signature; attempts 1,2,3; delay doubles', async () => {
		const rx = await Receiver.start({ statuses: [500, 500, 200] });
		receivers.push(rx);
		const sub = await subscribe(sb, { url: rx.url, secret: SECRET });

		const sale = await sb.admin('POST', '/widget-orders', {});
		expect(sale.status).toBe(201);
		await rx.waitFor(1);
		let delivery = await attemptsOf(sub.id, 1);
		expect(delivery).toMatchObject({ state: 'pending', attempts: [expect.objectContaining({ status: 500 })] });

		// The first retry waits retryBaseMs on the sandbox clock: not sent until the clock moves.
		await grace();
		expect(rx.requests).toHaveLength(1);
		await sb.advanceClock(BASE - 5_000);
		await grace();
		expect(rx.requests).toHaveLength(1);
		await sb.advanceClock(5_000);
		await rx.waitFor(2);

		// The second retry waits twice as long.
		await attemptsOf(sub.id, 2);
		await sb.advanceClock(BASE);
		await grace();
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
		expect(delivery.payload).toMatchObject({ type: 'order.sale', data: { orderId: sale.body.id, source: 'widget' } });

		const [first, second, third] = rx.requests;
		expect([first, second, third].map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2', '3']);
		const id = JSON.parse(first.raw).id;
		expect(delivery.notificationId).toBe(id);
		for (const r of [second, third]) {
			expect(r.raw).toBe(first.raw);
			expect(r.headers['x-delivery-id']).toBe(id);
			expect(r.headers['x-signature']).toBe(first.headers['x-signature']);
		}
		expect(first.headers['x-signature']).toBe(sign(SECRET, first.raw));

		// Delivered: moving the clock further sends nothing more.
		await sb.advanceClock(10 * BASE);
		await grace();
		expect(rx.requests).toHaveLength(3);
	});

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
		await grace();
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
		expect(retry.headers['x-signature']).toBe(sign(SECRET, first.raw));
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
		expect(delivery.attempts.every((a: any) => a.status === undefined && typeof a.error === 'string')).toBe(true);
	});
});
