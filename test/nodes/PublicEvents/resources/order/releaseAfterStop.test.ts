/**
 * Invariant: no hold the run made is left live without being in the output or named in the error
 * with how to release it; a change reported applied was applied.
 *
 * Found by an outside review: when a later item stops a multi-item run, the holds earlier items
 * made are released, and any 2xx was reported "was released" (a 200 showing the order still held,
 * a 202 whose change never lands), with no "Release holds you no longer need" step. A hold is now
 * said released only when the answer or a read of the order shows it expired.
 */
import type { ServerResponse } from 'node:http';

import { answer, answerEmpty, answerText, StubApi } from '../../../../../harness/net/stubApi';
import { byId, runPublicEvents } from '../../../../../harness/nodes/publicEvents';

const EVENT = '1001';

let api: StubApi;
beforeAll(async () => {
	api = await StubApi.start();
});
afterAll(async () => await api.stop());
beforeEach(() => api.reset());

function serve(releaseAnswer: 'stillHeld' | 'accepted') {
	const orders = new Map<string, { status: string; places: string[] }>();
	const text = (id: string) => {
		const o = orders.get(id)!;
		return (
			`{"id":${id},"status":"${o.status}","reservedToDate":"2026-12-01T10:15:00+00:00",` +
			`"totalPrice":{"amount":45,"currency":"EUR"}}`
		);
	};
	api.on('POST /orders', (res: ServerResponse, { body }) => {
		const places = (JSON.parse(body) as { places: string[] }).places.map(String);
		// Item 2's place was taken by someone else.
		if (places.includes('5002')) return answer(res, 409, { message: 'Place 5002 is held or sold' });
		orders.set('700001', { status: 'reserved_to_time', places });
		answerText(res, 201, text('700001'));
	});
	api.on('PUT /orders/{id}/status', (res, { path }) => {
		const id = path.split('/')[2];
		// The service does not release it (a careless service, a gateway's 202).
		if (releaseAnswer === 'stillHeld') return answerText(res, 200, text(id));
		answerEmpty(res, 202);
	});
	api.on('GET /orders/{id}', (res, { path }) => {
		const id = path.split('/')[2];
		if (!orders.has(id)) return answer(res, 404, { message: 'Not found' });
		answerText(res, 200, text(id));
	});
	return orders;
}

describe('a stopped multi-item run: the release of earlier holds', () => {
	test.each(['stillHeld', 'accepted'] as const)(
		'release answered %s: the still-live hold is not reported released',
		async (how) => {
			const orders = serve(how);
			const result = await runPublicEvents(
				api.store(),
				{
					resource: 'order',
					operation: 'create',
					eventId: byId(EVENT),
					places: byId('={{ $json.place }}'),
					priceCategory: '3001',
					options: { confirmWaitSeconds: 1 },
				},
				{ inputItems: [{ place: '5001' }, { place: '5002' }] },
			);
			expect(orders.get('700001')?.status).toBe('reserved_to_time');
			// What should happen: a hold still live is not said to be released.
			expect(result.error?.message).not.toMatch(
				/order 700001 \(item 1, places 5001\) was released/,
			);
		},
	);
});
