import type { IDataObject } from 'n8n-workflow';

import type { Order } from '../helpers/orderFixtures';
import { byId, json, orderNodeSuite } from '../helpers/orderNode';
import { mark, since, type LogEntry } from '../helpers/publicEvents';
import { LATE } from '../../nodes/PublicEvents/resources/order/writeCheck';

/**
 * Uncertain writes: a write whose answer is lost (the sandbox applies it and drops the
 * connection, drops it first, answers 5xx first, or answers after the node's Timeout) is never
 * sent again; the node reads the state back and reports what really happened.
 */
const { sb, order, create, getOrder, setStatus } = orderNodeSuite();
const fault = (rule: IDataObject) => sb().admin('POST', '/faults', rule);
afterEach(() => sb().admin('DELETE', '/faults'));

// One event of its own with room for every case (paid places stay sold).
let eventId: number;
beforeAll(async () => {
	eventId = (await sb().admin('POST', '/events', { name: 'Uncertain writes', places: 400 })).body
		.id;
});

/** Runs the node with the fault in place; returns its outcome and the API requests it made. */
async function runWith(rule: IDataObject | undefined, operation: string, parameters: IDataObject) {
	if (rule) await fault(rule);
	const before = await mark(sb());
	const result = await order(operation, parameters);
	const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
	return { ...result, log };
}

const sent = (log: LogEntry[], method: string, route: string) =>
	log.filter((e) => e.method === method && e.route === route).length;
const readBacks = (log: LogEntry[]) => sent(log, 'GET', '/orders/{id}');

interface WriteCase {
	operation: string;
	route: string;
	/** Makes an order for the case; returns the node's parameters and whether the sandbox shows the change. */
	prepare: () => Promise<{ id: number; parameters: IDataObject; applied: () => Promise<boolean> }>;
}

const held = async (count: number) => (await create(count, {}, eventId)).order;
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
			const free = await sb().freePlaces(eventId, 1);
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

/** Ends a hold the case left, so holds never pile up against the account's limit. */
async function release(id: number) {
	if ((await getOrder(id)).body.status === 'reserved_to_time') await setStatus(id, 'expired');
}

describe.each(writes)('$operation, answer lost', ({ operation, route, prepare }) => {
	it('applied, then the connection dropped: read back, the result says applied; sent once', async () => {
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
	});

	it('dropped before it was applied: not applied when checked, may still be (no answer), the order to check named; sent once', async () => {
		const { id, parameters, applied } = await prepare();
		const stored = (await getOrder(id)).body;
		const { items, error, log } = await runWith(
			{ kind: 'drop', phase: 'before', method: 'PUT', path: route },
			operation,
			parameters,
		);
		expect(items).toEqual([]);
		expect(error?.message).toMatch(
			/^Uncertain: .* was not applied when the node checked: the connection dropped before the answer arrived, /,
		);
		expect(error?.message).toContain(
			`read order ${id} back: it is unchanged. ${LATE} Check order ${id} (Order > Get) before running this again.`,
		);
		expect(error?.message).not.toMatch(/safe to run/);
		await sb().app.idle();
		expect(await applied()).toBe(false);
		expect((await getOrder(id)).body).toEqual(stored);
		expect(sent(log, 'PUT', route)).toBe(1);
		await release(id);
	});

	it('a 5xx before it was applied: NOT applied, with the status named; sent once', async () => {
		const { id, parameters, applied } = await prepare();
		const { error, log } = await runWith(
			{ kind: 'status', status: 503, method: 'PUT', path: route },
			operation,
			parameters,
		);
		expect(error?.message).toMatch(
			/ was NOT applied: the service answered 503 \(a server error\) instead of the result, so the node read order \d+ back: it is unchanged\. It is safe to run it again\.$/,
		);
		expect((error as { httpCode?: string } | undefined)?.httpCode).toBe('503');
		expect(await applied()).toBe(false);
		expect(sent(log, 'PUT', route)).toBe(1);
		await release(id);
	});

	it("no answer within the node's Timeout, applied late: the node said it may still apply, and did not send it again", async () => {
		const { id, parameters, applied } = await prepare();
		const started = Date.now();
		const { error, log } = await runWith(
			{ kind: 'latency', delayMs: 2000, method: 'PUT', path: route },
			operation,
			{ ...parameters, options: { timeout: 1 } },
		);
		expect(Date.now() - started).toBeLessThan(2000);
		expect(error?.message).toMatch(
			/^Uncertain: .* was not applied when the node checked: no answer came within the Timeout \(1 s\), and the node read order \d+ back: it is unchanged/,
		);
		expect(error?.message).toContain(
			`${LATE} Check order ${id} (Order > Get) before running this again.`,
		);
		expect(readBacks(log)).toBeGreaterThanOrEqual(1);
		// The slow request runs to its end after the node gave up: applied once, sent once.
		await sb().app.idle();
		expect(await applied()).toBe(true);
		expect(sent(log, 'PUT', route)).toBe(1);
		await release(id);
	});

	it('the read-back fails too: the outcome is unknown, the order to check is named; sent once', async () => {
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
				options: { maxRetries: 1, maxRetryWait: 5 },
			},
		);
		expect(error?.message).toMatch(
			/^Uncertain: .* may or may not have been applied: the connection dropped before the answer arrived, and reading it back failed too \(The service failed with status 503/,
		);
		expect(error?.message).toContain('It was not sent again.');
		expect(error?.message).toContain(`Check order ${id} (Order > Get) before running this again.`);
		expect(sent(log, 'PUT', route)).toBe(1);
		await sb().admin('DELETE', '/faults');
		expect(await applied()).toBe(true); // it was applied: the node did not claim otherwise
		await release(id);
	});
});

describe('Create, answer lost: one order at most, found by the places it holds', () => {
	const orderCount = () => sb().app.store.orders.size;
	const liveOrders = async () =>
		(
			await sb().getAll<Order>(`/event-points/${eventId}/orders`, {
				query: { status: 'reserved_to_time' },
			})
		).map((o) => o.id);

	async function createWith(rule: IDataObject, options: IDataObject = {}) {
		// Another live order of the account on the event: the search must not take it for the new one.
		const other = await held(1);
		const free = await sb().freePlaces(eventId, 2);
		const count = orderCount();
		const result = await runWith(rule, 'create', {
			eventId: byId(String(eventId)),
			places: byId(free.ids.join(',')),
			priceCategory: free.priceCategory,
			options,
		});
		return { ...result, other, free, created: orderCount() - count };
	}

	it('created, then the connection dropped: exactly one order, returned as Create returns it', async () => {
		const { items, error, log, other, free, created } = await createWith(
			{ kind: 'drop', phase: 'after', method: 'POST', path: '/orders' },
			{ splitTickets: true },
		);
		expect(error).toBeUndefined();
		expect(created).toBe(1);
		expect(sent(log, 'POST', '/orders')).toBe(1);
		expect(items).toHaveLength(1);
		const { writeCheck, ...output } = items[0].json;
		expect(writeCheck).toEqual({
			outcome: 'applied',
			cause: 'the connection dropped before the answer arrived',
		});
		const id = Number(output.id);
		expect(id).not.toBe(other.id);
		const { tickets, ...stored } = (await getOrder(id)).body;
		expect(tickets!.map((t) => String(t.placeId)).sort()).toEqual([...free.ids].sort());
		expect(output).toEqual(stored);
		expect(await liveOrders()).toEqual(expect.arrayContaining([id, other.id]));
		await release(id);
		await release(other.id);
	});

	const searched = () =>
		`the node searched the live orders of event ${eventId}: none holds these places`;

	it('a 5xx from the API before it was applied: no order, a clear error saying running again is safe; sent once', async () => {
		const { items, error, log, other, created } = await createWith({
			kind: 'status',
			status: 503,
			method: 'POST',
			path: '/orders',
		});
		expect(items).toEqual([]);
		expect(created).toBe(0);
		expect(sent(log, 'POST', '/orders')).toBe(1);
		expect(error?.message).toBe(
			`Creating an order on event ${eventId} was NOT applied: the service answered 503 (a server error) instead of the result, so ${searched()}. It is safe to run it again.`,
		);
		// The other live order was looked at and left alone.
		expect(readBacks(log)).toBeGreaterThanOrEqual(1);
		expect((await getOrder(other.id)).body.status).toBe('reserved_to_time');
		await release(other.id);
	});

	it.each([
		[
			'dropped before it was applied',
			{ kind: 'drop', phase: 'before' },
			'the connection dropped before the answer arrived',
			{},
			0,
		],
		[
			"a gateway's 502",
			{ kind: 'status', status: 502 },
			'the service answered 502 (a server error) instead of the result',
			{},
			0,
		],
		[
			'no answer within the Timeout, created late',
			{ kind: 'latency', delayMs: 2000 },
			'no answer came within the Timeout (1 s)',
			{ timeout: 1 },
			1,
		],
	])(
		'%s: no order when checked, the orders to check named; sent once, one order at most',
		async (_, rule, cause, options, late) => {
			const { items, error, log, other, created, free } = await createWith(
				{ ...rule, method: 'POST', path: '/orders' },
				options,
			);
			expect(items).toEqual([]);
			expect(created).toBe(0);
			expect(error?.message).toBe(
				`Uncertain: creating an order on event ${eventId} was not applied when the node checked: ${cause}, and ${searched()}. ${LATE} Check the orders of event ${eventId} (Order > Get Many for Event, status Held) before running this again: a hold left behind counts against your reserved-tickets limit until it ends.`,
			);
			await sb().app.idle();
			expect(sent(log, 'POST', '/orders')).toBe(1);
			const held = (await liveOrders()).filter((id) => id !== other.id);
			expect(held).toHaveLength(late);
			// Created late: its places are held, so running Create again is refused, not sold twice.
			if (late)
				expect(
					(
						await sb().send('POST', '/orders', {
							eventPoint: String(eventId),
							places: free.ids,
							priceCategory: free.priceCategory,
						})
					).status,
				).toBe(409);
			for (const id of [...held, other.id]) await release(id);
		},
	);

	it("the search fails too: outcome unknown, the event's orders named to check; one order, not two", async () => {
		await fault({
			kind: 'status',
			status: 503,
			method: 'GET',
			path: '/event-points/{id}/orders',
			count: 0,
		});
		const { error, log, created } = await createWith(
			{ kind: 'drop', phase: 'after', method: 'POST', path: '/orders' },
			{ maxRetries: 0 },
		);
		expect(created).toBe(1);
		expect(sent(log, 'POST', '/orders')).toBe(1);
		expect(error?.message).toMatch(
			/^Uncertain: creating an order on event \d+ may or may not have been applied: the connection dropped before the answer arrived, and reading it back failed too/,
		);
		expect(error?.message).toContain(
			`Check the orders of event ${eventId} (Order > Get Many for Event, status Held) before running this again`,
		);
		await sb().admin('DELETE', '/faults');
		for (const id of await liveOrders()) await release(id);
	});
});

describe('an answer the node cannot read is an unknown outcome too', () => {
	it.each([
		[
			'malformed JSON',
			{ kind: 'malformed' },
			'the service answered 200, but the answer could not be read',
		],
		['an empty body', { kind: 'empty' }, 'the service answered without the order'],
	])(
		'%s: read back, NOT applied (the sandbox answered in place of the API); sent once',
		async (_, rule, cause) => {
			const { id } = await held(1);
			const { error, log } = await runWith(
				{ ...rule, method: 'PUT', path: '/orders/{id}/status' },
				'changeStatus',
				{ orderId: String(id), toStatus: 'paid' },
			);
			expect(error?.message).toMatch(
				new RegExp(
					`^Changing the status of order ${id} to paid was NOT applied: ${cause}, so the node read order ${id} back: it is unchanged\\. It is safe to run it again\\.$`,
				),
			);
			expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(1);
			expect(readBacks(log)).toBe(1);
			expect((await getOrder(id)).body.status).toBe('reserved_to_time');
			await release(id);
		},
	);
});

describe('Change Status Paid, answer lost after paying: one payment, Split Tickets still works', () => {
	it('one item per ticket, each with its barcode and the write check', async () => {
		const { id } = await held(2);
		const { items, error, log } = await runWith(
			{ kind: 'drop', phase: 'after', method: 'PUT', path: '/orders/{id}/status' },
			'changeStatus',
			{
				orderId: String(id),
				toStatus: 'paid',
				options: { splitTickets: true },
			},
		);
		expect(error).toBeUndefined();
		expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(1);
		const stored = (await getOrder(id)).body;
		expect(json({ items })).toEqual(
			stored.tickets!.map((ticket) =>
				expect.objectContaining({
					orderId: id,
					orderStatus: 'paid',
					barcode: ticket.barcode,
					writeCheck: expect.objectContaining({ outcome: 'applied' }),
				}),
			),
		);
	});
});

describe("refused: an answered refusal says so, with the service's words, without a read-back", () => {
	it('409 (already paid) and 422 (limit): "Refused: … was NOT applied", then the service\'s words; nothing is read back', async () => {
		const { id } = await held(1);
		await setStatus(id, 'paid');
		const conflict = await runWith(undefined, 'changeStatus', {
			orderId: String(id),
			toStatus: 'paid',
		});
		expect(conflict.error?.message).toBe(
			`Refused: changing the status of order ${id} to paid was NOT applied. Conflict: Order ${id} cannot go from paid to paid. Read order ${id} (Order > Get) to see its status before trying again.`,
		);
		expect(conflict.log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
			'PUT /orders/{id}/status 409',
		]);

		const free = await sb().freePlaces(eventId, 1);
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
				eventId: byId(String(eventId)),
				places: byId(free.ids[0]),
				priceCategory: free.priceCategory,
			},
		);
		expect(limit.error?.message).toMatch(
			new RegExp(
				`^Refused: creating an order on event ${eventId} was NOT applied\\. A limit of the service was exceeded \\(limit 1\\)`,
			),
		);
		expect(limit.log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
			'POST /orders 422',
		]);
	});
});
