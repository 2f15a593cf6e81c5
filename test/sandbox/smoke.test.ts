import { SandboxClient } from '../../harness/sandbox/client';

describe('sandbox: the integration order, step by step', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start()));
	afterAll(() => sb.stop());

	it(
		'token, events, places, order, paid: the ' + 'paid order carries tickets with barcodes',
		async () => {
			const token = await sb.api('POST', '/token', { body: { apiKey: sb.keys.partner } });
			expect(token.status).toBe(200);
			expect(token.body.token.split('.')).toHaveLength(3);

			const events = await sb.get('/event-points', { query: { itemsPerPage: 5 } });
			expect(events.status).toBe(200);
			const event = events.body.find((e: any) => e.countAvailableTickets > 0);

			const place = await sb.freePlace(event.id);
			const order = await sb.send('POST', '/orders', {
				eventPoint: String(event.id),
				places: [place.id],
				priceCategory: place.priceCategory,
			});
			expect(order.status).toBe(201);
			expect(order.body.status).toBe('reserved_to_time');

			const paid = await sb.send('PUT', `/orders/${order.body.id}/status`, { toStatus: 'paid' });
			expect(paid.status).toBe(200);
			expect(paid.body.status).toBe('paid');
			expect(paid.body.tickets).toHaveLength(1);
			expect(paid.body.tickets[0]).toMatchObject({
				placeId: Number(place.id),
				barcode: expect.stringMatching(/^\d{13}$/),
			});
		},
	);
});

describe('sandbox: seeded data is deterministic', () => {
	const NOW = Date.parse('2027-03-01T09:00:00Z');

	async function snapshot(seed: number) {
		const sb = await SandboxClient.start({ seed, now: NOW });
		try {
			const events = await sb.getAll('/event-points');
			const places = await sb.getAll(`/event-points/${events[0].id}/places`);
			return { keys: sb.keys, events, places };
		} finally {
			await sb.stop();
		}
	}

	it(
		'one seed and start time give the same keys, ' + 'catalog and hall plans; another seed differs',
		async () => {
			const [a, b, c] = [await snapshot(7), await snapshot(7), await snapshot(8)];
			expect(b).toEqual(a);
			expect(a.events[0].dateStarted).toBe('2027-03-08T18:00:00+00:00');
			expect(c.keys.partner).not.toBe(a.keys.partner);
			expect(c.events.map((e: any) => e.eventName)).not.toEqual(
				a.events.map((e: any) => e.eventName),
			);
		},
	);
});
