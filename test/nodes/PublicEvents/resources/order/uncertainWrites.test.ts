import type { IDataObject } from 'n8n-workflow';

import { byId, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { faultedWrites, readBacks, sent } from '../../../../../harness/nodes/orderWrites';
import { LATE } from '../../../../../nodes/PublicEvents/resources/order/writeCheck';

/**
 * Uncertain writes: a write whose answer is lost (the sandbox applies it and drops the
 * connection, drops it first, answers 5xx first, or answers after the node's Timeout) is never
 * sent again; the node reads the state back and reports what really happened.
 */
const suite = orderNodeSuite();
const { sb, getOrder, setStatus } = suite;
const { eventId, fault, runWith, held, release } = faultedWrites(suite);

interface WriteCase {
	operation: string;
	route: string;
	/**
	 * Makes an order for the case; returns the node's parameters and whether the sandbox shows the
	 * change.
	 */
	prepare: () => Promise<{ id: number; parameters: IDataObject; applied: () => Promise<boolean> }>;
}

const ticketsOf = async (id: number) => (await getOrder(id)).body.tickets!;

const writes: WriteCase[] = [
	{
		operation: 'changeStatus',
		route: '/orders/{id}/status',
		prepare: async () => {
			const { id } = await held(2);
			return {
				id,
				parameters: { orderId: String(id), toStatus: 'paid' },
				applied: async () => (await getOrder(id)).body.status === 'paid',
			};
		},
	},
	{
		operation: 'changeTicketStatus',
		route: '/orders/{id}/tickets/{ticketId}/status',
		prepare: async () => {
			const { id } = await held(2);
			const [ticket] = (await setStatus(id, 'paid')).body.tickets!;
			return {
				id,
				parameters: { orderId: String(id), ticketId: String(ticket.ticketId), toStatus: 'refund' },
				applied: async () =>
					(await ticketsOf(id)).find((t) => t.ticketId === ticket.ticketId)!.status === 'refund',
			};
		},
	},
	{
		operation: 'extendHold',
		route: '/orders/{id}/reserve',
		prepare: async () => {
			const { id, reservedToDate } = await held(1);
			return {
				id,
				parameters: { orderId: String(id), reservedMinutes: 45 },
				applied: async () => (await getOrder(id)).body.reservedToDate !== reservedToDate,
			};
		},
	},
	{
		operation: 'addPlace',
		route: '/orders/{id}/add-place',
		prepare: async () => {
			const { id } = await held(1);
			const [ticket] = await ticketsOf(id);
			const free = await sb().freePlaces(eventId(), 1);
			return {
				id,
				parameters: {
					orderId: String(id),
					places: byId(free.ids[0]),
					priceCategory: free.priceCategory,
				},
				applied: async () =>
					(await ticketsOf(id)).some(
						(t) => String(t.placeId) === free.ids[0] && t.ticketId !== ticket.ticketId,
					),
			};
		},
	},
	{
		operation: 'removeTicket',
		route: '/orders/{id}/tickets/{ticketId}/remove',
		prepare: async () => {
			const { id } = await held(2);
			const [gone] = await ticketsOf(id);
			return {
				id,
				parameters: { orderId: String(id), ticketId: String(gone.ticketId) },
				applied: async () => !(await ticketsOf(id)).some((t) => t.ticketId === gone.ticketId),
			};
		},
	},
];

describe.each(writes)('$operation, answer lost', ({ operation, route, prepare }) => {
	it(
		'applied, then the connection dropped: read back, the result ' + 'says applied; sent once',
		async () => {
			const { id, parameters, applied } = await prepare();
			const { items, error, log } = await runWith(
				{ kind: 'drop', phase: 'after', method: 'PUT', path: route },
				operation,
				parameters,
			);
			expect(error).toBeUndefined();
			expect(await applied()).toBe(true);
			expect(sent(log, 'PUT', route)).toBe(1);
			expect(readBacks(log)).toBeGreaterThanOrEqual(1);
			const { writeCheck, ...output } = items[0].json;
			expect(writeCheck).toEqual({
				outcome: 'applied',
				cause: 'the connection dropped before the answer arrived',
			});
			// The output is the order as the sandbox now holds it.
			expect(output).toEqual((await getOrder(id)).body);
			await release(id);
		},
	);

	it(
		'dropped before it was applied: not applied when checked, may ' +
			'still be (no answer), the order to check named; sent once',
		async () => {
			const { id, parameters, applied } = await prepare();
			const stored = (await getOrder(id)).body;
			const { items, error, log } = await runWith(
				{ kind: 'drop', phase: 'before', method: 'PUT', path: route },
				operation,
				{ ...parameters, options: { confirmWaitSeconds: 1 } },
			);
			expect(items).toEqual([]);
			expect(error?.message).toMatch(
				new RegExp(
					'^Uncertain: .* was not applied when the node checked: the co' +
						'nnection dropped before the answer arrived, ',
				),
			);
			expect(error?.message).toMatch(
				new RegExp(
					`read order ${id} back: it is unchanged, still ${statusPattern(stored.status)} ` +
						'\\(read back ' +
						`\\d+ times over 1 s\\)\\. ${LATE} Check order ${id} \\(Order > Get\\) before ` +
						`running this again\\.$`,
				),
			);
			// Read back until the wait was spent: the outcome stays open, named with the order's state.
			expect(readBacks(log)).toBeGreaterThanOrEqual(3);
			expect((error as { context?: IDataObject }).context?.writeCheck).toEqual({
				outcome: 'uncertain',
				cause: 'the connection dropped before the answer arrived',
				order: expect.objectContaining({ id: String(id), status: stored.status }),
			});
			expect(error?.message).not.toMatch(/safe to run/);
			await sb().app.idle();
			expect(await applied()).toBe(false);
			expect((await getOrder(id)).body).toEqual(stored);
			expect(sent(log, 'PUT', route)).toBe(1);
			await release(id);
		},
	);

	it('a 5xx before it was applied: NOT applied, with the status named; sent once', async () => {
		const { id, parameters, applied } = await prepare();
		const { error, log } = await runWith(
			{ kind: 'status', status: 503, method: 'PUT', path: route },
			operation,
			parameters,
		);
		expect(error?.message).toMatch(
			new RegExp(
				' was NOT applied: the service answered 503 \\(a server error\\)' +
					' instead of the result, so the node read order \\d+ back: it ' +
					'is unchanged, still [a-z, ]+(?: \\(\\w+\\))?\\. It is safe to run it again\\.$',
			),
		);
		expect((error as { httpCode?: string } | undefined)?.httpCode).toBe('503');
		expect(await applied()).toBe(false);
		expect(sent(log, 'PUT', route)).toBe(1);
		await release(id);
	});

	it(
		"no answer within the node's Timeout, applied late: read back until it shows, so " +
			'applied; with no wait to confirm, said to be open; sent once each',
		async () => {
			const slow = { kind: 'latency', delayMs: 2000, method: 'PUT', path: route };
			const late = await prepare();
			const open = await runWith(slow, operation, {
				...late.parameters,
				options: { timeout: 1, confirmWaitSeconds: 0 },
			});
			expect(open.error?.message).toMatch(
				new RegExp(
					'^Uncertain: .* was not applied when the node checked: no ans' +
						'wer came within the Timeout \\(1 s\\), and the node read order' +
						' \\d+ back: it is unchanged',
				),
			);
			expect(open.error?.message).toContain(
				`${LATE} Check order ${late.id} (Order > Get) before running this again.`,
			);
			// One read back (Extend Hold reads the order once before writing, too).
			expect(readBacks(open.log)).toBe(operation === 'extendHold' ? 2 : 1);
			// The slow request runs to its end after the node gave up: applied once, sent once.
			await sb().app.idle();
			expect(await late.applied()).toBe(true);
			expect(sent(open.log, 'PUT', route)).toBe(1);
			await release(late.id);

			const { id, parameters, applied } = await prepare();
			const { items, error, log } = await runWith(slow, operation, {
				...parameters,
				options: { timeout: 1 },
			});
			expect(error).toBeUndefined();
			expect(items[0].json.writeCheck).toEqual({
				outcome: 'applied',
				cause: 'no answer came within the Timeout (1 s)',
			});
			expect(await applied()).toBe(true);
			expect(readBacks(log)).toBeGreaterThanOrEqual(2);
			expect(sent(log, 'PUT', route)).toBe(1);
			await release(id);
		},
	);

	it(
		'the read-back fails too: the outcome is unknown, the order ' + 'to check is named; sent once',
		async () => {
			const { id, parameters, applied } = await prepare();
			// Extend Hold reads the order once before writing: let that read through.
			await fault({
				kind: 'status',
				status: 503,
				method: 'GET',
				path: '/orders/{id}',
				count: 0,
				skip: operation === 'extendHold' ? 1 : 0,
			});
			const { error, log } = await runWith(
				{ kind: 'drop', phase: 'after', method: 'PUT', path: route },
				operation,
				{
					...parameters,
					options: { maxRetries: 1, maxRetryWait: 5, confirmWaitSeconds: 1 },
				},
			);
			expect(error?.message).toMatch(
				new RegExp(
					'^Uncertain: .* may or may not have been applied: the connect' +
						'ion dropped before the answer arrived, and reading it back f' +
						'ailed too \\(The service failed with status 503',
				),
			);
			expect(error?.message).toContain('It was not sent again.');
			expect(error?.message).toContain(
				`Check order ${id} (Order > Get) before running this again.`,
			);
			expect(sent(log, 'PUT', route)).toBe(1);
			await sb().admin('DELETE', '/faults');
			expect(await applied()).toBe(true); // it was applied: the node did not claim otherwise
			await release(id);
		},
	);
});

/** An order's status as the node words it ("held, not paid (reserved_to_time)", "paid"). */
const statusPattern = (status: string) => `[a-z, ()]*${status}\\)?`;

describe('a 2xx unreadable or without the order: the service took it, never "NOT applied"', () => {
	it.each([
		[
			'malformed JSON',
			{ kind: 'malformed' },
			'the service answered 200, but the answer could not be read',
		],
		['an empty body', { kind: 'empty' }, 'the service answered 200 without a body'],
	])(
		'%s, the order unchanged (the sandbox answered in place of the API): read back through Max ' +
			'Wait to Confirm, then uncertain; sent once',
		async (_, rule, cause) => {
			const { id } = await held(1);
			const { error, log } = await runWith(
				{ ...rule, method: 'PUT', path: '/orders/{id}/status' },
				'changeStatus',
				{ orderId: String(id), toStatus: 'paid', options: { confirmWaitSeconds: 1 } },
			);
			expect(error?.message).toMatch(
				new RegExp(
					`^Uncertain: changing the status of order ${id} to paid was not applied when the ` +
						`node checked: ${cause}, and the node read order ${id} back: it is unchanged, ` +
						'still held, not paid \\(reserved_to_time\\) ' +
						`\\(read back \\d+ times over \\d+ s\\)\\. ${LATE} ` +
						`Check order ${id} \\(Order > Get\\) before running this again\\.$`,
				),
			);
			expect(error?.message).not.toMatch(/NOT applied|safe to run/);
			expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(1);
			expect(readBacks(log)).toBeGreaterThan(1);
			expect((await getOrder(id)).body.status).toBe('reserved_to_time');
			await release(id);
		},
	);
});

describe("refused: an answered refusal says so, with the service's words", () => {
	it(
		'409 "cannot go from paid to paid" on an order already paid: read once, applied (a ' +
			'repeat of a payment that landed is no refusal), the paid order given',
		async () => {
			const { id } = await held(1);
			await setStatus(id, 'paid');
			const { items, error, log } = await runWith(undefined, 'changeStatus', {
				orderId: String(id),
				toStatus: 'paid',
			});
			expect(error).toBeUndefined();
			const { writeCheck, ...order } = items[0].json;
			expect(writeCheck).toEqual({
				outcome: 'applied',
				cause:
					'the service answered 409, yet the order read back is as asked (the request may ' +
					'have reached it twice)',
			});
			expect(order).toEqual((await getOrder(id)).body);
			expect(log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
				'PUT /orders/{id}/status 409',
				'GET /orders/{id} 200',
			]);
		},
	);

	it('409 on an order the change does not fit: "Refused … NOT applied", state read', async () => {
		const { id } = await held(1);
		await setStatus(id, 'expired');
		const { error, log } = await runWith(undefined, 'changeStatus', {
			orderId: String(id),
			toStatus: 'paid',
		});
		expect(error?.message).toBe(
			`Refused: changing the status of order ${id} to paid was NOT ` +
				`applied. Conflict: Order ${id} cannot go from expired to paid. Read ` +
				`order ${id} (Order > Get) to see its status before trying again.`,
		);
		expect((error as { context?: IDataObject }).context?.writeCheck).toEqual({
			outcome: 'refused',
			order: {
				id: String(id),
				status: 'expired',
				reservedToDate: expect.any(String),
				places: expect.any(Array),
			},
		});
		expect(log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
			'PUT /orders/{id}/status 409',
			'GET /orders/{id} 200',
		]);
	});

	it('409 and the order cannot be read: uncertain, never "NOT applied"', async () => {
		const { id } = await held(1);
		await setStatus(id, 'paid');
		await sb().admin('POST', '/faults', {
			kind: 'status',
			status: 503,
			method: 'GET',
			path: '/orders/{id}',
			count: 0,
		});
		const { error } = await runWith(undefined, 'changeStatus', {
			orderId: String(id),
			toStatus: 'paid',
			options: { maxRetries: 0 },
		});
		await sb().admin('DELETE', '/faults');
		expect(error?.message).toMatch(
			new RegExp(
				`^Uncertain: changing the status of order ${id} to paid may or may not have been ` +
					'applied: the service answered 409, which a request the service already applied ' +
					'also gets when it reaches it twice, and reading the order back failed',
			),
		);
		expect((error as { context?: IDataObject }).context?.writeCheck).toMatchObject({
			outcome: 'uncertain',
		});
	});

	it('422 on Create (limit): "Refused … NOT applied", the service\'s words, no read', async () => {
		const free = await sb().freePlaces(eventId(), 1);
		const limit = await runWith(
			{
				kind: 'status',
				status: 422,
				method: 'POST',
				path: '/orders',
				body: { message: 'limit', limit: 1 },
			},
			'create',
			{
				eventId: byId(String(eventId())),
				places: byId(free.ids[0]),
				priceCategory: free.priceCategory,
			},
		);
		expect(limit.error?.message).toMatch(
			new RegExp(
				`^Refused: creating an order on event ${eventId()} was NOT ` +
					`applied\\. A limit of the service was exceeded \\(limit 1\\)`,
			),
		);
		expect(limit.log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
			'POST /orders 422',
		]);
	});
});
