import { PollSession } from '../../../harness/engine';
import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { credentialFor, mark, since } from '../../../harness/nodes/publicEvents';
import { apiLedger, ledgerMismatches } from '../../../harness/sandbox/ledger';
import { paidApiOrder } from '../../../harness/sandbox/push';
import { onlyEvents, sandboxSuite } from '../../../harness/sandbox/suite';
import { MINUTE } from '../../../harness/time';
import { WHOLE_READS_PER_FEED } from '../../../nodes/PublicEventsPollTrigger/poll/sales';

/**
 * With Ledger Rows the poll reads each order of an event's list whole: an order refunded in part
 * before the poll first lists it gives the sale row every path writes (what the buyer paid), not
 * the list's total less the refund, which upserted over the push's row would have made the
 * table's net wrong until the reconcile; its refund comes with it. At most WHOLE_READS_PER_FEED
 * such reads of one event a poll: the rest come with the next.
 */
const sb = sandboxSuite(onlyEvents(1, 700, { limits: { reservedPerAccount: 1000 } }));

const session = () =>
	new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: { options: { output: 'rows' } },
		credentials: credentialFor(sb()).store,
	});

describe('Ledger Rows: orders of an event read whole', () => {
	it('first listed after a partial refund: its sale and refund rows, as in the API', async () => {
		const poll = session();
		expect((await poll.poll()).error).toBeUndefined();
		const order = await paidApiOrder(sb(), 2);
		await sb().send('PUT', `/orders/${order.id}/tickets/${order.tickets[0].ticketId}/status`, {
			toStatus: 'refund',
		});
		await sb().advanceClock(MINUTE);
		const rows = (await poll.poll()).items.map((item) => item.json);
		const keys = [`sale:api:${order.id}`, `refund:api:${order.id}:${order.tickets[0].ticketId}`];
		expect(rows.map((row) => row.key)).toEqual(keys);
		expect(ledgerMismatches(rows, apiLedger(sb()), keys)).toEqual([]);
	});

	it(`at most ${WHOLE_READS_PER_FEED} reads of one event a poll; the rest next`, async () => {
		const poll = session();
		expect((await poll.poll()).error).toBeUndefined();
		const made: string[] = [];
		for (let n = 0; n < WHOLE_READS_PER_FEED + 10; n++)
			made.push(`sale:api:${(await paidApiOrder(sb(), 1)).id}`);
		await sb().advanceClock(MINUTE);
		const reads = async () => {
			const before = await mark(sb());
			const keys = (await poll.poll()).items.map((item) => String(item.json.key));
			const whole = (await since(sb(), before)).filter((e) => e.route === '/orders/{id}');
			return { keys, reads: whole.length };
		};
		const first = await reads();
		await sb().advanceClock(MINUTE);
		const second = await reads();
		expect([first.reads, second.reads]).toEqual([WHOLE_READS_PER_FEED, 10]);
		expect([...first.keys, ...second.keys]).toEqual(made);
	});
});
