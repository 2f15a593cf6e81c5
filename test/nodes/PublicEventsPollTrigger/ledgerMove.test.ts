import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PollSession } from '../../../harness/engine';
import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { credentialFor, runPublicEvents } from '../../../harness/nodes/publicEvents';
import { apiLedger, ledgerMismatches } from '../../../harness/sandbox/ledger';
import { paidApiOrder } from '../../../harness/sandbox/push';
import { sandboxSuite, onlyEvents } from '../../../harness/sandbox/suite';
import { MINUTE } from '../../../harness/time';

/**
 * The move to the ledger (docs/ledger.md, "Moving from the one-row-per-order table"): a poll
 * trigger that ran with the one-row-per-order output (widget sales and refunds, as the old
 * examples) keeps its saved place when its node asks for ledger rows of every channel: it replays
 * nothing and loses no widget sale; the old table's rows (keyed by orderId) are no input the
 * reconcile compares or changes; the reconcile over a new table with a long look-back brings the
 * whole ledger, API sales from before the upgrade too.
 */
const sb = sandboxSuite(onlyEvents(2, 60));

describe('moving a poll trigger and its table to the ledger', () => {
	it('the saved place kept: none replayed, none lost; the reconcile brings the rest', async () => {
		const store = credentialFor(sb()).store;
		const old = new PollSession({
			nodeType: new PublicEventsPollTrigger(),
			type: 'CUSTOM.publicEventsPollTrigger',
			parameters: { include: ['widgetSales', 'widgetRefunds'], options: { output: 'rows' } },
			credentials: store,
		});
		expect((await old.poll()).error).toBeUndefined();
		const sell = async () =>
			(await sb().admin('POST', '/widget-orders', { company: 'partner', tickets: 2 })).body;
		const before = await sell();
		await sb().advanceClock(MINUTE);
		const firstPolled = (await old.poll()).items.map((item) => item.json);
		expect(firstPolled.map((row) => row.key)).toEqual([`sale:widget:${before.id}`]);

		// Between the last poll of the old output and the first of the new: both channels sell.
		await sb().advanceClock(MINUTE);
		const during = await sell();
		await sb().admin('POST', `/widget-orders/${before.id}/refund`, { tickets: 1 });
		const api = await paidApiOrder(sb(), 2);

		// The same trigger, its saved state, now every channel as ledger rows (the node's default).
		const upgraded = new PollSession({
			nodeType: new PublicEventsPollTrigger(),
			type: 'CUSTOM.publicEventsPollTrigger',
			parameters: { options: { output: 'rows' } },
			credentials: store,
		});
		upgraded.staticData = old.staticData;
		upgraded.saved = old.saved;
		await sb().advanceClock(MINUTE);
		const { items, error } = await upgraded.poll();
		expect(error).toBeUndefined();
		const keys = items.map((item) => String(item.json.key));
		// Nothing replayed (the first sale came before), the sale and refund since then, once each.
		expect(keys.filter((key) => key === `sale:widget:${before.id}`)).toEqual([]);
		expect(keys.filter((key) => key === `sale:widget:${during.id}`)).toHaveLength(1);
		expect(keys.filter((key) => key.startsWith('refund:widget:'))).toHaveLength(1);
		// The API channel's feed is new: it starts where it is first read.
		expect(keys.filter((key) => key === `sale:api:${api.id}`)).toEqual([]);

		// The old table (one row per order, by orderId) and the new one the reconcile fills.
		const oldTable: IDataObject[] = [
			{ id: 1, orderId: String(before.id), type: 'refund', status: 'refund', amount: 140 },
		];
		const { items: written, error: failed } = await runPublicEvents(
			store,
			{ resource: 'ledger', operation: 'reconcile', lookBackDays: 365 } as INodeParameters,
			{ inputItems: oldTable },
		);
		expect(failed).toBeUndefined();
		const rows = written.map((item) => item.json);
		expect(ledgerMismatches(rows, apiLedger(sb()))).toEqual([]);
		expect(rows.some((row) => row.id === 1)).toBe(false);
	});
});
