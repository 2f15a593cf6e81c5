import type { IDataObject } from 'n8n-workflow';

import { FIRST_RETRY, paidApiOrder, until } from '../../../harness/sandbox/push';
import { NONE, post, triggerSuite } from '../../../harness/nodes/webhookTrigger';

/**
 * Invariant (docs/security.md, "What None still allows"): under Security None a forger can start
 * runs only of real changes, and "a destination keyed by dedupeKey holds each change once all the
 * same". Each partial refund of an API order has its own key `refund:api:<order>:<its tickets>`.
 *
 * Found by an outside review: an API order of 3 tickets; ticket A is refunded (its delivery runs,
 * key refund:O:A); ticket B is refunded and the sender's first attempt fails (n8n could not create
 * the run: 500, retried a minute later). Meanwhile a forger posts a refund claim naming no ticket.
 * The API shows A and B refunded; the claim was confirmed as one refund of A and B (a run keyed
 * refund:O:A,B, then B's retry a duplicate): A's refund twice at the destination. The claim now
 * stands only for the tickets no run of this process stood for: B. (Another process, which saw
 * neither, still confirms it as A and B: docs/security.md.)
 */
const { sb, triggers } = triggerSuite(
	{ events: 4, placesPerEvent: 40, push: { retryBaseMs: FIRST_RETRY, maxAttempts: 5 } },
	async (sandbox) => await sandbox.setQuirks({}),
);

/** An order made through the API with `tickets` places, paid. */
const apiSale = async (tickets: number): Promise<IDataObject> => await paidApiOrder(sb(), tickets);

it('Security None: a forged refund claim merges no partial refund into one that ran', async () => {
	const { trigger } = await triggers.subscribed({ ...NONE, events: ['refund'] });
	const order = await apiSale(3);
	const [a, b] = (order.tickets as IDataObject[]).map((t) => String(t.ticketId));
	const refundTicket = async (ticket: string) =>
		expect(
			(
				await sb().send('PUT', `/orders/${String(order.id)}/tickets/${ticket}/status`, {
					toStatus: 'refund',
				})
			).status,
		).toBe(200);

	await refundTicket(a);
	await until(async () => trigger.executions.length >= 1, 'refund A run');

	// Ticket B's refund: n8n cannot create the run on the first attempt (500, sender retries).
	let failing = 1;
	trigger.createRun = async () => {
		if (failing-- > 0) throw new Error('database busy');
	};
	const calls = trigger.calls.length;
	await refundTicket(b);
	await trigger.waitForCalls(calls + 1);
	expect(trigger.executions).toHaveLength(1);

	// The forger, who knows the order id (no secret under None).
	const forged = await post(
		trigger.url,
		JSON.stringify({ id: 'forged-1', type: 'order.refund', data: { orderId: order.id } }),
	);
	// A real change the claim stands for (B's refund): it starts B's run.
	expect(forged.status).toBe(200);

	// The sender's retry of B, a minute later.
	await sb().advanceClock(FIRST_RETRY);
	await trigger.waitForCalls(calls + 2);

	const keys = trigger.executions.map(([item]) => String(item.json.dedupeKey));
	// Each genuine refund once, under its own key; nothing else.
	expect(keys.sort()).toEqual(
		[`refund:api:${String(order.id)}:${a}`, `refund:api:${String(order.id)}:${b}`].sort(),
	);
	await sb().advanceClock(-FIRST_RETRY);
}, 30_000);
