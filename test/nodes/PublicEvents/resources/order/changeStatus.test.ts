import type { IDataObject } from 'n8n-workflow';

import { orderNodeSuite, json } from '../../../../../harness/nodes/orderNode';
import { arrived, faultedWrites, sent } from '../../../../../harness/nodes/orderWrites';
import { ResendingProxy } from '../../../../../harness/net/resendingProxy';
import {
	credentialFor,
	mark,
	runPublicEvents,
	since,
} from '../../../../../harness/nodes/publicEvents';

const suite = orderNodeSuite();
const { sb, order, create, getOrder, setStatus, place } = suite;
const { runWith, held, fault } = faultedWrites(suite);

describe('Order: statuses', () => {
	it(
		'Change Status Paid answers the tickets with barcodes; split, ' + 'one item per ticket',
		async () => {
			const { order: created } = await create(2);
			const { items, error } = await order('changeStatus', {
				orderId: String(created.id),
				toStatus: 'paid',
				options: { splitTickets: true },
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(2);
			for (const item of items) {
				expect(item.json).toEqual(
					expect.objectContaining({
						orderId: created.id,
						orderStatus: 'paid',
						barcode: expect.stringMatching(/^\d{13}$/),
					}),
				);
			}
			expect((await getOrder(created.id)).body.status).toBe('paid');
		},
	);

	it('Change Status Refund refunds a paid order and frees its places', async () => {
		const { order: created, free } = await create(1);
		await setStatus(created.id, 'paid');
		const { items, error } = await order('changeStatus', {
			orderId: String(created.id),
			toStatus: 'refund',
		});
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('refund');
		expect((await place(free.ids[0])).availableCount).toBe(1);
	});

	it(
		'Change Status Release Hold ends the hold at once and frees ' + "the account's reserved count",
		async () => {
			const held = () => sb().app.store.heldTickets(2);
			const start = held();
			const { order: created, free } = await create(2);
			expect(held()).toBe(start + 2);
			const { items, error } = await order('changeStatus', {
				orderId: String(created.id),
				toStatus: 'expired',
			});
			expect(error).toBeUndefined();
			expect(items[0].json.status).toBe('expired');
			expect(held()).toBe(start);
			for (const id of free.ids) expect((await place(id)).availableCount).toBe(1);
		},
	);

	it(
		'Change Status takes any value by expression, and the ' +
			"service's refusal comes back as its message",
		async () => {
			const { order: created } = await create(1);
			const { error } = await order('changeStatus', {
				orderId: String(created.id),
				toStatus: '={{ "cancelled" }}',
			});
			expect(error?.message).toMatch(/toStatus: must be one of/);
			await setStatus(created.id, 'expired');
		},
	);
});

describe(
	'Change Status Paid, answer lost after paying: one payment, ' + 'Split Tickets still works',
	() => {
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
	},
);

/**
 * Paid with its answer lost, as a shop meets it: read back until the outcome is known (bounded), so
 * the caller is told applied (tickets), NOT applied (with the order's state: a hold that ended can
 * no longer be paid) or still open (with the order's state). A shop must never release a hold
 * whose late "paid" landed.
 */
describe('Change Status Paid, answer lost: read back until known', () => {
	const pay = (id: number, options: Record<string, unknown> = {}) =>
		order('changeStatus', { orderId: String(id), toStatus: 'paid', options });

	it('paid late, after the Timeout: found paid, the tickets returned; sent once', async () => {
		const { id } = await held(2);
		const { items, error, log } = await runWith(
			{ kind: 'latency', delayMs: 1500, method: 'PUT', path: '/orders/{id}/status' },
			'changeStatus',
			{ orderId: String(id), toStatus: 'paid', options: { timeout: 1 } },
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			id,
			status: 'paid',
			writeCheck: { outcome: 'applied', cause: 'no answer came within the Timeout (1 s)' },
		});
		expect((items[0].json.tickets as unknown[]).length).toBe(2);
		expect(sent(log, 'PUT', '/orders/{id}/status')).toBe(1);
	});

	it(
		'the hold ended while the answer was lost: NOT applied, the order expired and said so, ' +
			'since paid cannot land on it any more',
		async () => {
			const { id } = await held(1);
			await fault({ kind: 'latency', delayMs: 1500, method: 'PUT', path: '/orders/{id}/status' });
			const before = await mark(sb());
			const running = pay(id, { timeout: 1 });
			await arrived(sb(), before, 'PUT', '/orders/{id}/status');
			// The buyer's hold is released meanwhile (another step, a person, or its time ran out).
			expect((await setStatus(id, 'expired')).status).toBe(200);
			const { error } = await running;
			await sb().app.idle();
			expect(error?.message).toMatch(
				new RegExp(
					`^Changing the status of order ${id} to paid was NOT applied: no answer came ` +
						`within the Timeout \\(1 s\\), so the node read order ${id} back: it is unchanged, ` +
						`still released \\(its hold ended\\) \\(expired\\), and the change can no longer ` +
						'apply to it',
				),
			);
			expect((error as { context?: IDataObject }).context?.writeCheck).toMatchObject({
				outcome: 'notApplied',
				order: { id: String(id), status: 'expired' },
			});
			expect((await getOrder(id)).body.status).toBe('expired');
		},
	);

	it(
		'nothing arrives within Max Wait to Confirm: still open, named with the order as read; ' +
			'the late paid then lands and a release is refused',
		async () => {
			const { id } = await held(1);
			const { error } = await runWith(
				{ kind: 'latency', delayMs: 2500, method: 'PUT', path: '/orders/{id}/status' },
				'changeStatus',
				{ orderId: String(id), toStatus: 'paid', options: { timeout: 1, confirmWaitSeconds: 1 } },
			);
			expect(error?.message).toMatch(
				/^Uncertain: changing the status of order \d+ to paid was not/,
			);
			expect((error as { context?: IDataObject }).context?.writeCheck).toMatchObject({
				outcome: 'uncertain',
				order: { id: String(id), status: 'reserved_to_time' },
			});
			await sb().app.idle();
			// The late paid landed: releasing it is refused, so a shop learns the sale stands.
			const release = await order('changeStatus', { orderId: String(id), toStatus: 'expired' });
			expect(release.error?.message).toMatch(/^Refused: .*cannot go from paid to expired/);
			expect((await getOrder(id)).body.status).toBe('paid');
		},
	);
});

/**
 * Invariant: "Refused: … was NOT applied" only when the change did not apply. A proxy in front of
 * the service (nginx with two upstreams and its defaults) passes an idempotent PUT on to the next
 * upstream when the first is slow to answer: the service applies the payment, then answers the
 * repeat 409 "cannot go from paid to paid". Read against the order, that refusal is the payment
 * applied: the shop must not release and refund a sale that stands.
 */
describe('Change Status Paid reaching the service twice through a resending proxy', () => {
	let proxy: ResendingProxy;
	beforeAll(async () => {
		proxy = await ResendingProxy.start(sb().sandbox.baseUrl, { timeoutMs: 300 });
	});
	afterAll(async () => await proxy.stop());

	it('the 409 to the repeat is checked against the order: applied, its tickets given', async () => {
		const { id } = await held(2);
		const before = await mark(sb());
		const { store } = credentialFor(sb(), { baseUrl: proxy.url });
		const { items, error } = await runPublicEvents(store, {
			resource: 'order',
			operation: 'changeStatus',
			orderId: String(id),
			toStatus: 'paid',
		});
		expect(error).toBeUndefined();
		// The node sent one PUT; the proxy two, the second refused.
		const puts = (await since(sb(), before)).filter((e) => e.method === 'PUT');
		expect(puts.map((e) => e.status)).toEqual([200, 409]);
		const paid = (await getOrder(id)).body;
		expect(paid.status).toBe('paid');
		const { writeCheck, ...output } = items[0].json;
		expect(output).toEqual(paid);
		expect(writeCheck).toEqual({
			outcome: 'applied',
			cause:
				'the service answered 409, yet the order read back is as asked (the request may have ' +
				'reached it twice)',
		});
	});
});
