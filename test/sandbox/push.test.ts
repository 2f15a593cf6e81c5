import {
	SECRET,
	signAt,
	signedTime,
	quiet,
	subscribe,
	deliveriesOf,
	payOrder,
} from '../../harness/sandbox/push';
import { Receiver } from '../../harness/net/receiver';
import { SandboxClient } from '../../harness/sandbox/client';

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

	it(
		'a paid order pushes order.sale, signed with the shared ' +
			'secret and the time (HMAC-SHA256 of "<t>.<raw body>")',
		async () => {
			const rx = await receiver();
			const sub = await subscribe(sb, { url: rx.url, secret: SECRET });
			expect(sub).toMatchObject({ companyId: 2, signed: true });

			const { orderId, eventId } = await payOrder(sb);
			const [req] = await rx.waitFor(1);
			expect(req.method).toBe('POST');
			expect(req.headers['content-type']).toMatch(/^application\/json/);
			const body = JSON.parse(req.raw);
			expect(Object.keys(body).sort()).toEqual(['data', 'id', 'occurredAt', 'type']);
			expect(body).toMatchObject({
				id: expect.stringMatching(/\S/),
				type: 'order.sale',
				data: { orderId, eventPointId: eventId, status: 'paid', source: 'api' },
			});
			expect(Number.isNaN(Date.parse(body.occurredAt))).toBe(false);
			expect(req.headers['x-delivery-id']).toBe(body.id);
			expect(req.headers['x-delivery-attempt']).toBe('1');

			// t: unix seconds on the sandbox clock (here the real one), the sandbox's own time of the
			// attempt.
			expect(req.headers['x-signature']).toMatch(/^t=\d{10},sha256=[0-9a-f]{64}$/);
			const t = signedTime(req.headers['x-signature']);
			expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);
			expect(req.headers['x-signature']).toBe(signAt(SECRET, req.raw, t * 1000));
			expect(req.headers['x-signature']).not.toBe(signAt(`${SECRET}x`, req.raw, t * 1000));
			expect(req.headers['x-signature']).not.toBe(signAt(SECRET, req.raw, (t + 1) * 1000));
		},
	);

	it(
		"the signed time is the sandbox clock's: " + 'moved 6 minutes back, the signature says so',
		async () => {
			const rx = await receiver();
			await subscribe(sb, { url: rx.url, secret: SECRET });
			await sb.advanceClock(-6 * 60_000);
			try {
				expect((await sb.admin('POST', '/widget-orders', {})).status).toBe(201);
				const [req] = await rx.waitFor(1);
				const t = signedTime(req.headers['x-signature']);
				expect(Math.round(Date.now() / 1000 - t)).toBeGreaterThanOrEqual(359);
				expect(req.headers['x-signature']).toBe(signAt(SECRET, req.raw, t * 1000));
			} finally {
				await sb.advanceClock(6 * 60_000);
			}
		},
	);

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
			expect(rx.bodies()[0]).toMatchObject({
				type: 'event.created',
				data: { eventPointId: shared.body.id },
			});
		}

		// Linked to the organiser alone: the partner's subscription gets no delivery.
		const privateEvent = await sb.admin('POST', '/events', {
			name: 'Closed Rehearsal',
			places: 10,
			companies: [],
		});
		expect(privateEvent.status).toBe(201);
		await organiserRx.waitFor(2);
		expect(organiserRx.bodies()[1]).toMatchObject({
			type: 'event.created',
			data: { eventPointId: privateEvent.body.id },
		});
		const partnerDeliveries = await deliveriesOf(sb, partnerSub.id);
		expect(partnerDeliveries.map((d) => d.payload.data.eventPointId)).toEqual([shared.body.id]);
		await quiet(sb);
		expect(partnerRx.requests).toHaveLength(1);
		expect(await deliveriesOf(sb, organiserSub.id)).toHaveLength(2);
	});

	it(
		'renaming an event (admin PATCH) pushes ' + 'event.updated listing eventName in data.changed',
		async () => {
			const rx = await receiver();
			await subscribe(sb, { url: rx.url });
			const events = await sb.get('/event-points', { query: { itemsPerPage: 1 } });
			const id = events.body[0].id;

			const patched = await sb.admin('PATCH', `/events/${id}`, { name: 'Renamed Night' });
			expect(patched.status).toBe(200);
			await rx.waitFor(1);
			expect(rx.bodies()[0]).toMatchObject({
				type: 'event.updated',
				data: { eventPointId: id, changed: ['eventName'] },
			});
			expect((await sb.get(`/event-points/${id}`)).body.eventName).toBe('Renamed Night');
		},
	);

	it(
		'widget sales and refunds (admin) push ' + 'order.sale / order.refund with source widget',
		async () => {
			const rx = await receiver();
			await subscribe(sb, { url: rx.url, secret: SECRET });

			const sale = await sb.admin('POST', '/widget-orders', { tickets: 2 });
			expect(sale.status).toBe(201);
			await rx.waitFor(1);
			const refund = await sb.admin('POST', `/widget-orders/${sale.body.id}/refund`);
			expect(refund.status).toBe(201);
			await rx.waitFor(2);

			const [saleBody, refundBody] = rx.bodies();
			expect(saleBody).toMatchObject({
				type: 'order.sale',
				data: { orderId: sale.body.id, eventPointId: sale.body.eventPoint, source: 'widget' },
			});
			expect(refundBody).toMatchObject({
				type: 'order.refund',
				data: { orderId: sale.body.id, refundId: refund.body.id, source: 'widget' },
			});
			for (const req of rx.requests)
				expect(req.headers['x-signature']).toBe(
					signAt(SECRET, req.raw, signedTime(req.headers['x-signature']) * 1000),
				);
		},
	);

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
		await quiet(sb);

		expect(all.bodies().map((b) => b.type)).toEqual([
			'order.sale',
			'order.refund',
			'event.created',
		]);
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
		await quiet(sb);
		expect(organiserRx.requests).toHaveLength(0);
		expect(await deliveriesOf(sb, organiserSub.id)).toEqual([]);
	});

	it('rejects a subscription with a bad URL or an unknown type', async () => {
		expect((await sb.admin('POST', '/webhooks', { url: 'not a url' })).status).toBe(400);
		expect(
			(
				await sb.admin('POST', '/webhooks', {
					url: 'http://127.0.0.1:9/x',
					types: ['order.created'],
				})
			).status,
		).toBe(400);
		expect((await sb.admin('GET', '/webhooks')).body).toEqual([]);
	});

	it('the control surface never reveals the API key, the token or the webhook secret', async () => {
		const rx = await receiver();
		await subscribe(sb, { url: rx.url, secret: SECRET });
		await payOrder(sb);
		await rx.waitFor(1);
		const token = await sb.token();
		const organiserToken = await sb.token('organiser');
		expect(
			(await sb.get('/event-points', { as: 'organiser', query: { itemsPerPage: 1 } })).status,
		).toBe(200);

		const secrets = [sb.keys.partner, sb.keys.organiser, token, organiserToken, SECRET];
		for (const path of ['/requests', '/counters', '/webhooks', '/deliveries']) {
			const res = await sb.admin('GET', path);
			expect(res.status).toBe(200);
			expect(res.text.length).toBeGreaterThan(2);
			for (const secret of secrets) expect(res.text).not.toContain(secret);
		}
		// The listing still says the subscription is signed.
		expect((await sb.admin('GET', '/webhooks')).body).toEqual([
			expect.objectContaining({ url: rx.url, signed: true }),
		]);
	});
});
