import { SandboxClient } from '../helpers/sandboxClient';

describe('sandbox: the integration order of spec section 1', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start()));
	afterAll(() => sb.stop());

	it('token, events, places, order, paid: the paid order carries tickets with barcodes', async () => {
		const token = await sb.api('POST', '/token', { body: { apiKey: sb.keys.partner } });
		expect(token.status).toBe(200);
		expect(token.body.token.split('.')).toHaveLength(3);

		const events = await sb.get('/event-points', { query: { itemsPerPage: 5 } });
		expect(events.status).toBe(200);
		const event = events.body.find((e: any) => e.countAvailableTickets > 0);

		const place = await sb.freePlace(event.id);
		const order = await sb.send('POST', '/orders', { eventPoint: String(event.id), places: [place.id], priceCategory: place.priceCategory });
		expect(order.status).toBe(201);
		expect(order.body.status).toBe('reserved_to_time');

		const paid = await sb.send('PUT', `/orders/${order.body.id}/status`, { toStatus: 'paid' });
		expect(paid.status).toBe(200);
		expect(paid.body.status).toBe('paid');
		expect(paid.body.tickets).toHaveLength(1);
		expect(paid.body.tickets[0]).toMatchObject({ placeId: Number(place.id), barcode: expect.stringMatching(/^\d{13}$/) });
	});
});
