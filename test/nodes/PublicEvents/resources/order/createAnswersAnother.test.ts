/**
 * Invariant: no buyer ever gets (or pays for) another buyer's order: an order is this request's
 * only when the answer names it and it holds these places.
 *
 * Found by an outside review: a careless service (an idempotency cache, a gateway replaying a
 * stored answer, "already reserved by order X" answered 200 with order X) answered POST /orders
 * with another live order of the same key, and Create and Hold Best Available handed it on as this
 * buyer's (the shop would then report payment on it). Create answers without tickets, so the order
 * named is now read once: it must hold the places asked, else the outcome is uncertain.
 */
import type { ServerResponse } from 'node:http';

import { answer, answerText, StubApi } from '../../../../../harness/net/stubApi';
import { byId, runPublicEvents } from '../../../../../harness/nodes/publicEvents';

const EVENT = '1001';
const MINE = ['5001', '5002'];
const RIVAL_ID = '700001';
const RIVAL_PLACES = ['5009'];

let api: StubApi;
beforeAll(async () => {
	api = await StubApi.start();
});
afterAll(async () => await api.stop());
beforeEach(() => api.reset());

function serve(status: number) {
	const rivalText = (withTickets: boolean) =>
		`{"id":${RIVAL_ID},"status":"reserved_to_time","reservedToDate":"2026-12-01T10:15:00+00:00",` +
		`"totalPrice":{"amount":45,"currency":"EUR"}${
			withTickets ? `,"tickets":[${RIVAL_PLACES.map((p) => `{"placeId":${p}}`).join(',')}]` : ''
		}}`;
	api.on(`GET /orders/{id}`, (res: ServerResponse, { path }) => {
		if (path === `/orders/${RIVAL_ID}`) return answerText(res, 200, rivalText(true));
		answer(res, 404, { message: 'Not found' });
	});
	api.on(`GET /event-points/${EVENT}/orders`, (res) =>
		answerText(res, 200, `[{"id":${RIVAL_ID},"status":"reserved_to_time"}]`),
	);
	api.on(`GET /event-points/${EVENT}/places`, (res) =>
		answer(
			res,
			200,
			[...MINE, ...RIVAL_PLACES].map((id) => ({
				id: Number(id),
				sectorName: 'Parterre',
				rowName: '1',
				placeName: id.slice(-1),
				availableCount: RIVAL_PLACES.includes(id) ? 0 : 1,
				priceCategories: [{ id: 3001, price: { amount: 45, currency: 'EUR' } }],
			})),
		),
	);
	// The service answers with the other buyer's live order (and holds nothing for this request).
	api.on('POST /orders', (res) => answerText(res, status, rivalText(false)));
}

describe('Create / Hold Best Available: a 2xx naming another live order', () => {
	test.each([200, 201])(
		"Create answered %i with another buyer's order is not handed on as this one",
		async (status) => {
			serve(status);
			const result = await runPublicEvents(api.store(), {
				resource: 'order',
				operation: 'create',
				eventId: byId(EVENT),
				places: byId(MINE.join(',')),
				priceCategory: '3001',
				options: { confirmWaitSeconds: 1 },
			});
			const out = result.items[0]?.json;
			// What should happen: the order named holds 5009, not 5001/5002: never "applied" as this.
			expect({ error: result.error?.message, id: out && String(out.id) }).not.toMatchObject({
				error: undefined,
				id: RIVAL_ID,
			});
		},
	);

	test('Hold Best Available answered 200 with another order does not take it', async () => {
		serve(200);
		const result = await runPublicEvents(api.store(), {
			resource: 'order',
			operation: 'holdBestAvailable',
			eventId: byId(EVENT),
			quantity: 2,
			options: { confirmWaitSeconds: 1, conflictRetries: 0 },
		});
		const out = result.items[0]?.json;
		expect({
			error: result.error?.message,
			id: out && String(out.id),
			places: out?.places,
		}).not.toMatchObject({
			error: undefined,
			id: RIVAL_ID,
		});
	});

	test.each([
		[201, 'handed on as made'],
		[200, 'not handed on'],
	])('Create answered %i with a new order whose read fails: %s', async (status) => {
		api.on('GET /orders/{id}', (res: ServerResponse) => answer(res, 503, { message: 'busy' }));
		api.on(`GET /event-points/${EVENT}/orders`, (res) => answer(res, 503, { message: 'busy' }));
		api.on('POST /orders', (res) =>
			answerText(res, status, '{"id":700009,"status":"reserved_to_time"}'),
		);
		const result = await runPublicEvents(api.store(), {
			resource: 'order',
			operation: 'create',
			eventId: byId(EVENT),
			places: byId(MINE.join(',')),
			priceCategory: '3001',
			options: { confirmWaitSeconds: 1, maxRetries: 0 },
		});
		// Created (201) stands on its own when the service cannot show the order; a 200 may be
		// an answer about another request, so it is not taken unseen.
		if (status === 201) expect(String(result.items[0]?.json.id)).toBe('700009');
		else expect(result.error?.message).toMatch(/^Uncertain: /);
		expect(api.requests.filter((r) => r.path === '/orders')).toHaveLength(1);
	});
});
