import type { IDataObject } from 'n8n-workflow';

import { expectOutputSchema } from '../../../../../harness/engine/outputSchema';
import { mark, publicEventsSuite, since } from '../../../../../harness/nodes/publicEvents';
import { apiLedger, ledgerMismatches } from '../../../../../harness/sandbox/ledger';
import { paidApiOrder } from '../../../../../harness/sandbox/push';
import { onlyEvents } from '../../../../../harness/sandbox/suite';

/**
 * Sales Ledger > Reconcile Table: the table's rows in, the rows to write out. Over an empty table
 * it gives the whole ledger; run again over the table it made, nothing; it rewrites what differs
 * and keeps what the API does not state; it deletes nothing and empties nothing; extra copies come
 * out on their own output.
 */
const suite = publicEventsSuite(onlyEvents(2, 60));
const reconcile = async (table: IDataObject[], parameters: IDataObject = {}) => {
	const { items, error } = await suite.run(
		'ledger',
		'reconcile',
		{ lookBackDays: 7, ...parameters },
		{ inputItems: table.length > 0 ? table : [{}] },
	);
	if (error) throw error;
	return items.map((item) => item.json);
};

describe('Sales Ledger > Reconcile Table', () => {
	let table: IDataObject[];

	beforeAll(async () => {
		const sb = suite.sb();
		const sold = (await sb.admin('POST', '/widget-orders', { company: 'partner', tickets: 3 }))
			.body;
		await sb.admin('POST', `/widget-orders/${sold.id}/refund`, { tickets: 1 });
		const api = await paidApiOrder(sb, 2);
		await sb.send('PUT', `/orders/${api.id}/tickets/${api.tickets[1].ticketId}/status`, {
			toStatus: 'refund',
		});
	});

	it('an empty table gets the whole ledger; the table it makes gets nothing', async () => {
		table = await reconcile([]);
		expectOutputSchema('ledger', 'reconcile', table);
		expect(ledgerMismatches(table, apiLedger(suite.sb()))).toEqual([]);
		expect(await reconcile(table)).toEqual([]);
	});

	it('rewrites what differs, adds what is missing, keeps what the API leaves unsaid', async () => {
		const [first, second, ...rest] = table;
		const changed = { ...first, amount: 1, id: 7 };
		const unnamed = { ...second, eventName: 'Renamed by hand' };
		const written = await reconcile([changed, unnamed, ...rest.slice(1)]);
		expect(written.map((r) => r.key).sort()).toEqual([first.key, second.key, rest[0].key].sort());
		expect(written.find((r) => r.key === first.key)).toMatchObject({ amount: first.amount });
	});

	it('a row the read does not bring back stays; a failing read writes nothing', async () => {
		const foreign = { ...table[0], key: 'refund:widget:999999', amount: -5 };
		expect(await reconcile([...table, foreign])).toEqual([]);
		const sb = suite.sb();
		// The refund list answered empty for a moment: no row changes.
		await sb.admin('POST', '/faults', {
			kind: 'status',
			status: 200,
			body: [],
			path: '/widget-orders-refunds',
		});
		expect(await reconcile(table)).toEqual([]);
		// A read that fails: the node fails, nothing to write.
		await sb.admin('POST', '/faults', {
			kind: 'status',
			status: 503,
			path: '/widget-orders-refunds',
			count: 0,
		});
		const before = await mark(sb);
		const failed = await reconcile(table, { options: { maxRetries: 0 } }).catch((e) => e);
		await sb.admin('DELETE', '/faults');
		expect(String(failed.message)).toMatch(/503/);
		expect((await since(sb, before)).some((e) => e.route === '/widget-orders-refunds')).toBe(true);
	});

	it('a refund written while it runs (the table read before, the API after) stays', async () => {
		const sb = suite.sb();
		const snapshot = [...table];
		const order = sb.app.store.widgetOrders.find((o) => o.status === 'paid')!;
		await sb.admin('POST', `/widget-orders/${order.id}/refund`, { tickets: 1 });
		// The push writes the refund's row meanwhile.
		const current = new Map(table.map((row) => [String(row.key), row]));
		const { items } = await suite.run('ledger', 'getRows', { period: 'today' });
		const refundRow = items.map((i) => i.json).find((r) => !current.has(String(r.key)))!;
		current.set(String(refundRow.key), refundRow);
		for (const row of await reconcile(snapshot)) current.set(String(row.key), row);
		expect(ledgerMismatches([...current.values()], apiLedger(sb))).toEqual([]);
		expect(current.get(`sale:widget:${order.id}`)).toEqual(
			table.find((row) => row.key === `sale:widget:${order.id}`),
		);
		table = [...current.values()];
	});

	it('extra copies of a key come out on Extra Copies, with their own row id', async () => {
		const copy = { ...table[0], id: 42 };
		const extra = await reconcile([{ ...table[0], id: 41 }, ...table.slice(1), copy], {
			reconcileOutput: 'extraCopies',
		});
		expect(extra).toEqual([copy]);
	});
});
