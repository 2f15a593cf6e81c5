import type { IDataObject } from 'n8n-workflow';

import { expectOutputSchema } from '../../../../../harness/engine/outputSchema';
import { byId, publicEventsSuite } from '../../../../../harness/nodes/publicEvents';
import { apiLedger } from '../../../../../harness/sandbox/ledger';
import { paidApiOrder } from '../../../../../harness/sandbox/push';
import { onlyEvents } from '../../../../../harness/sandbox/suite';

/**
 * Event > Get Sales Summary: its totals are the sums of the ledger's rows for the same records
 * (asserted against Sales Ledger > Get Rows and against the API's own ledger), its places per
 * price category add up to the channels', holds and free places are the event's.
 */
const suite = publicEventsSuite(onlyEvents(2, 60));
const run = async (operation: string, parameters: IDataObject) => {
	const { items, error } = await suite.run(
		operation === 'getRows' ? 'ledger' : 'event',
		operation,
		parameters,
	);
	if (error) throw error;
	return items.map((item) => item.json);
};
const cents = (n: unknown) => Math.round(Number(n) * 100);

describe('Event > Get Sales Summary', () => {
	let event: string;

	beforeAll(async () => {
		const sb = suite.sb();
		const api = await paidApiOrder(sb, 3);
		event = String(api.eventPoint);
		await sb.send('PUT', `/orders/${api.id}/tickets/${api.tickets[0].ticketId}/status`, {
			toStatus: 'refund',
		});
		const sold = (
			await sb.admin('POST', '/widget-orders', {
				company: 'partner',
				eventPoint: event,
				tickets: 2,
			})
		).body;
		await sb.admin('POST', `/widget-orders/${sold.id}/refund`, { tickets: 1 });
		const place = await sb.freePlace(Number(event));
		const held = await sb.send('POST', '/orders', {
			eventPoint: event,
			places: [place.id],
			priceCategory: place.priceCategory,
		});
		expect(held.status).toBe(201);
	});

	it('equals the sums of the ledger rows; categories add up; holds and free places', async () => {
		const [summary] = await run('getSalesSummary', { eventId: byId(event) });
		expectOutputSchema('event', 'getSalesSummary', [summary]);
		const rows = await run('getRows', {
			period: 'last7Days',
			eventScope: 'one',
			eventId: byId(event),
		});
		const truth = [...apiLedger(suite.sb()).values()].filter((r) => r.eventPointId === event);
		const net = rows.reduce((n, r) => n + cents(r.amount), 0);
		expect(net).toBe(truth.reduce((n, r) => n + r.cents, 0));
		const money = summary.money as IDataObject[];
		expect(money).toHaveLength(1);
		expect(cents(money[0].net)).toBe(net);
		expect(cents(money[0].gross)).toBe(
			rows.filter((r) => r.type === 'sale').reduce((n, r) => n + cents(r.amount), 0),
		);
		expect(summary).toMatchObject({ eventPointId: event, sold: 3, refunded: 2, held: 1 });
		const categories = summary.byPriceCategory as IDataObject[];
		const total = (field: string) => categories.reduce((n, c) => n + Number(c[field]), 0);
		expect([total('sold'), total('refunded'), total('held')]).toEqual([3, 2, 1]);
		const places = await suite.sb().getAll(`/event-points/${event}/places`);
		expect(summary.free).toBe(
			places.filter((p: IDataObject) => Number(p.availableCount) > 0).length,
		);
		const channels = summary.byChannel as IDataObject[];
		expect(channels.map((c) => [c.channel, c.sold, c.refunded]).sort()).toEqual([
			['api', 2, 1],
			['widget', 1, 1],
		]);
	});
});
