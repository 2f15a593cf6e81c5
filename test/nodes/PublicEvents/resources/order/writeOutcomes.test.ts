import { createServer } from 'node:http';
import type { IDataObject } from 'n8n-workflow';
import type { AddressInfo } from 'node:net';

import { byId, EVENT, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { hostileWrites, sent } from '../../../../../harness/nodes/orderWrites';
import { credentialFor, runPublicEvents } from '../../../../../harness/nodes/publicEvents';

/**
 * A write's outcome is one of three and the node says which: applied, refused ("Refused: … was
 * NOT applied"), or uncertain, read back and never sent again. These are the answers a broken or
 * hostile service gives that the fault rules alone cannot: writes applied but answered unreadably
 * (the sandbox's mangle quirk), writes redirected, read-backs redirected or answered with
 * something else, and a service that cannot be reached at all.
 */
const suite = orderNodeSuite();
const { sb, create, getOrder } = suite;
const { runWith, release } = hostileWrites(suite);

const createOn = async (free: { ids: string[]; priceCategory: string }, quirks: IDataObject) =>
	await runWith(
		'create',
		{
			eventId: byId(String(EVENT)),
			places: byId(free.ids.join(',')),
			priceCategory: free.priceCategory,
		},
		{ quirks },
	);

describe('applied, but the answer cannot be read: read back, sent once', () => {
	it.each([
		[
			'a gzip header over plain JSON (201: accepted)',
			'gzip',
			/^the service answered 201, but the answer could not be read$/,
		],
		[
			'a body cut short (201, naming the order)',
			'truncated',
			/^the service answered 201, but the answer could not be read$/,
		],
	])('Create answered with %s: the order it made, applied, once', async (_, mangle, cause) => {
		const free = await sb().freePlaces(EVENT, 2);
		const count = sb().app.store.orders.size;
		const { items, error, log } = await createOn(free, {
			mangleWriteAnswers: mangle,
			mangleWriteAnswersCount: 1,
		});
		expect(error).toBeUndefined();
		expect(sb().app.store.orders.size - count).toBe(1);
		expect(sent(log, 'POST', '/orders')).toBe(1);
		const { writeCheck, ...output } = items[0].json;
		expect(writeCheck).toEqual({ outcome: 'applied', cause: expect.stringMatching(cause) });
		const { tickets, ...stored } = (await getOrder(Number(output.id))).body;
		expect(tickets!.map((t) => String(t.placeId)).sort()).toEqual([...free.ids].sort());
		expect(output).toEqual(stored);
		// The cut body named the order: read directly, no search of the event's orders.
		if (mangle === 'truncated') expect(sent(log, 'GET', '/event-points/{id}/orders')).toBe(0);
		await release(Number(output.id));
	});

	it.each([
		["an HTML page (200, not the API's JSON)", 'html'],
		['bytes that are not HTTP', 'garbage'],
	])(
		'Create answered with %s: nothing ties the order to this request, so it is named, not taken',
		async (_, mangle) => {
			const free = await sb().freePlaces(EVENT, 2);
			const { items, error, log } = await createOn(free, {
				mangleWriteAnswers: mangle,
				mangleWriteAnswersCount: 1,
			});
			expect(items).toEqual([]);
			expect(sent(log, 'POST', '/orders')).toBe(1);
			const made = [...sb().app.store.orders.values()].find(
				(o) =>
					o.status === 'reserved_to_time' &&
					o.tickets.some((t) => free.ids.includes(String(t.placeId))),
			)!;
			expect(error?.message).toMatch(
				new RegExp(
					`^Uncertain: creating an order on event ${EVENT} may or may not have been applied: .*` +
						`live orders of your account hold places ${free.ids.join(', ')}: order ${made.id} ` +
						`\\(places ${free.ids.join(', ')}\\)\\. Nothing the service answered ties it to this ` +
						`request: it may be another buyer's on the same key, so the node did not take it ` +
						`as this one\\. It was not sent again\\. Check the orders of event ${EVENT}`,
				),
			);
			expect((error as { context?: IDataObject }).context?.writeCheck).toMatchObject({
				outcome: 'uncertain',
				candidates: [{ id: String(made.id), status: 'reserved_to_time', places: free.ids }],
			});
			// Nothing to wait for: one search, the order read once.
			expect(sent(log, 'GET', '/event-points/{id}/orders')).toBe(1);
			await release(made.id);
		},
	);

	it(
		'Change Status Paid answered with a gzip header over plain ' +
			'JSON: paid once, the tickets returned',
		async () => {
			const { order: held } = await create(2);
			const { items, error, log } = await runWith(
				'changeStatus',
				{ orderId: String(held.id), toStatus: 'paid' },
				{ quirks: { mangleWriteAnswers: 'gzip', mangleWriteAnswersCount: 1 } },
			);
			expect(error).toBeUndefined();
			expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(1);
			expect(items[0].json).toEqual({
				...(await getOrder(held.id)).body,
				writeCheck: {
					outcome: 'applied',
					cause: 'the service answered 200, but the answer could not be read',
				},
			});
			expect(items[0].json.status).toBe('paid');
		},
	);
});

describe('a redirect on a write: not followed, read back at the Base URL', () => {
	it(
		'307 to another origin: NOT applied, the Base URL named; ' +
			'nothing reached the other origin; sent once',
		async () => {
			const { order: held } = await create(1);
			const { error, log } = await runWith(
				'changeStatus',
				{ orderId: String(held.id), toStatus: 'paid' },
				{ quirks: { redirectWrites: true } },
			);
			expect(error?.message).toMatch(
				new RegExp(
					`^Changing the status of order ${held.id} to paid was NOT applied: the ` +
						`service answered with a redirect \\(307 to ` +
						`http://127\\.0\\.0\\.1:\\d+/api/v2/orders/${held.id}/status\\) instead of ` +
						`the result, so the node read order ${held.id} back: it is unchanged, still ` +
						`held, not paid \\(reserved_to_time\\)\\. It ` +
						`is safe to run it again\\. Check the Base URL in the credential first`,
				),
			);
			expect(log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
				'PUT /orders/{id}/status 307',
				'GET /orders/{id} 200',
			]);
			expect(await sb().otherOriginRequests()).toEqual([]);
			expect((await getOrder(held.id)).body.status).toBe('reserved_to_time');
			await release(held.id);
		},
	);

	it(
		'the read-back is redirected within the service: followed, as ' +
			'any read, and it finds the write applied',
		async () => {
			const { order: held } = await create(1);
			const { items, error, log } = await runWith(
				'changeStatus',
				{ orderId: String(held.id), toStatus: 'paid' },
				{
					quirks: { redirect: 'same-origin' },
					faults: [{ kind: 'drop', phase: 'after', method: 'PUT', path: '/orders/{id}/status' }],
				},
			);
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({
				id: held.id,
				status: 'paid',
				writeCheck: {
					outcome: 'applied',
					cause: 'the connection dropped before the answer arrived',
				},
			});
			// The redirect answered first, then the same service at its other path.
			expect(log.filter((e) => e.method === 'GET').map((e) => e.fault ?? 'answered')).toEqual([
				'redirect-302',
				'answered',
			]);
			expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(1);
		},
	);
});

describe('a read-back that proves nothing is not taken as proof', () => {
	it(
		'the read-back answered with something other than the order: ' + 'unknown, never "NOT applied"',
		async () => {
			const { order: held } = await create(1);
			const { error } = await runWith(
				'changeStatus',
				{ orderId: String(held.id), toStatus: 'paid', options: { confirmWaitSeconds: 1 } },
				{
					faults: [
						{ kind: 'drop', phase: 'after', method: 'PUT', path: '/orders/{id}/status' },
						{
							kind: 'status',
							status: 200,
							method: 'GET',
							path: '/orders/{id}',
							body: { id: 1, status: 'reserved_to_time' },
							count: 0,
						},
					],
				},
			);
			expect(error?.message).toMatch(
				new RegExp(
					'^Uncertain: changing the status of order \\d+ to paid may or ' +
						'may not have been applied: .* answered something other than ' +
						'order \\d+\\)',
				),
			);
			await sb().admin('DELETE', '/faults');
			expect((await getOrder(held.id)).body.status).toBe('paid');
		},
	);

	it(
		"a proxy's HTML 500 page is not the service answering: not " +
			'applied when checked, may still apply',
		async () => {
			const { order: held } = await create(1);
			const { error } = await runWith(
				'changeStatus',
				{ orderId: String(held.id), toStatus: 'paid', options: { confirmWaitSeconds: 1 } },
				{ faults: [{ kind: 'html', status: 500, method: 'PUT', path: '/orders/{id}/status' }] },
			);
			expect(error?.message).toMatch(
				new RegExp(
					'^Uncertain: changing the status of order \\d+ to paid was not' +
						' applied when the node checked: the service answered 500 \\(a' +
						' server error\\) instead of the result, ',
				),
			);
			expect(error?.message).not.toMatch(/safe to run/);
			await release(held.id);
		},
	);
});

describe('refused: the service said no, or nothing reached it', () => {
	it(
		'404 for an order the service does not know: "Refused: … was ' +
			'NOT applied", then the service\'s words; no read-back',
		async () => {
			const { error, log } = await runWith('removeTicket', {
				orderId: '799999',
				ticketId: '900001',
			});
			expect(error?.message).toMatch(
				new RegExp(
					'^Refused: removing ticket 900001 from order 799999 was NOT a' +
						'pplied\\. Ticket 900001 of order 799999 was not found',
				),
			);
			expect(log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
				'PUT /orders/{id}/tickets/{ticketId}/remove 404',
			]);
		},
	);

	it(
		'a service that cannot be reached (connection refused): NOT ' +
			'applied, it never reached the service',
		async () => {
			const closed = createServer();
			await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
			const { port } = closed.address() as AddressInfo;
			await new Promise<void>((resolve) => closed.close(() => resolve()));
			const { store } = credentialFor(sb(), {
				baseUrl: `http://127.0.0.1:${port}`,
				token: 'a-token-the-node-holds',
			});
			const { error } = await runPublicEvents(store, {
				resource: 'order',
				operation: 'changeStatus',
				orderId: '700001',
				toStatus: 'paid',
				options: { maxRetries: 0 },
			} as never);
			expect(error?.message).toMatch(
				new RegExp(
					'^Refused: changing the status of order 700001 to paid was NO' +
						'T applied: the request never reached the service\\.',
				),
			);
			expect(error?.message).not.toMatch(/may have been applied/);
		},
	);
});
