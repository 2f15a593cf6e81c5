import type { IDataObject } from 'n8n-workflow';

import { expectOutputSchema } from '../../../../../harness/engine/outputSchema';
import { publicEventsSuite } from '../../../../../harness/nodes/publicEvents';
import { apiLedger, ledgerMismatches } from '../../../../../harness/sandbox/ledger';
import { paidApiOrder } from '../../../../../harness/sandbox/push';
import { onlyEvents } from '../../../../../harness/sandbox/suite';

/**
 * Sales Ledger > Get Rows: every channel's sales and refunds of a period, one row each, equal to
 * the API's ledger row by row and in total: widget sales refunded in parts and whole, API orders
 * refunded by the ticket and whole, widget and API orders of one number, totals as plain numbers.
 */
const suite = publicEventsSuite(onlyEvents(3, 80));
const rows = async (parameters: IDataObject = {}) => {
	const { items, error } = await suite.run('ledger', 'getRows', {
		period: 'last7Days',
		...parameters,
	});
	if (error) throw error;
	return items.map((item) => item.json);
};

describe('Sales Ledger > Get Rows', () => {
	beforeAll(async () => {
		const sb = suite.sb();
		await sb.setQuirks('shared-order-numbers');
		const sell = async (tickets: number) =>
			(await sb.admin('POST', '/widget-orders', { company: 'partner', tickets })).body;
		const partial = await sell(3);
		await sb.admin('POST', `/widget-orders/${partial.id}/refund`, { tickets: 1 });
		await sb.admin('POST', `/widget-orders/${partial.id}/refund`, { tickets: 1 });
		const whole = await sell(2);
		await sb.admin('POST', `/widget-orders/${whole.id}/refund`, {});
		await sell(1);
		const api = await paidApiOrder(sb, 3);
		await sb.send('PUT', `/orders/${api.id}/tickets/${api.tickets[0].ticketId}/status`, {
			toStatus: 'refund',
		});
		const refunded = await paidApiOrder(sb, 2);
		await sb.send('PUT', `/orders/${refunded.id}/status`, { toStatus: 'refund' });
		// Widget and API orders of one number (the quirk numbers both from 700001).
		expect(String(api.id)).toBe(String(partial.id));
	});
	afterAll(() => suite.sb().setQuirks(''));

	it('equals the API ledger, every channel, partial and whole refunds', async () => {
		const got = await rows();
		expect(ledgerMismatches(got, apiLedger(suite.sb()))).toEqual([]);
		expect(got.filter((r) => r.type === 'refund')).toHaveLength(6);
		expectOutputSchema('ledger', 'getRows', got);
	});

	it('the same with plain-number totals and widget orders in each event`s list', async () => {
		await suite.sb().setQuirks('plain-totals,widget-in-event-lists,shared-order-numbers');
		const got = await rows();
		expect(ledgerMismatches(got, apiLedger(suite.sb()))).toEqual([]);
		await suite.sb().setQuirks('shared-order-numbers');
	});

	it('one channel, one event', async () => {
		const truth = apiLedger(suite.sb());
		const widget = await rows({ channels: ['widget'] });
		const keys = [...truth.values()].filter((r) => r.channel === 'widget').map((r) => r.key);
		expect(ledgerMismatches(widget, truth, keys)).toEqual([]);
		const event = [...truth.values()][0].eventPointId;
		const one = await rows({
			eventScope: 'one',
			eventId: { __rl: true, mode: 'id', value: event },
		});
		const ofEvent = [...truth.values()].filter((r) => r.eventPointId === event).map((r) => r.key);
		expect(ledgerMismatches(one, truth, ofEvent)).toEqual([]);
	});

	it('yesterday is before today: nothing sold yesterday', async () => {
		expect(await rows({ period: 'yesterday' })).toEqual([]);
	});
});
