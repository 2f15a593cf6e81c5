import type { IDataObject } from 'n8n-workflow';

import { nodeRows } from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { apiLedger, ledgerMismatches } from '../../../../harness/sandbox/ledger';
import { onlyEvents } from '../../../../harness/sandbox/suite';
import { answersWithout } from '../../../../harness/sandbox/serviceShapes';

/**
 * A service whose widget refund records carry no event: a refund is of its order's event, for Get
 * Sales Summary and Get Rows / Reconcile Table with Events: One Event too. (Outside review: every
 * read scoped to events left such refunds out, the summary's net was the gross.)
 */
let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(2, 60));
	answersWithout(sb, 'widgetRefund', ['eventPoint']);
});
afterAll(() => sb.stop());

const run = async (parameters: IDataObject, inputItems?: IDataObject[]) => {
	const { rows, error } = await nodeRows(sb, parameters, inputItems);
	if (error) throw error;
	return rows;
};

it('Get Sales Summary counts a widget refund naming no event (its order`s)', async () => {
	const event = String((await sb.getAll('/event-points'))[0].id);
	const sold = (
		await sb.admin('POST', '/widget-orders', { company: 'partner', eventPoint: event, tickets: 2 })
	).body;
	expect((await sb.admin('POST', `/widget-orders/${sold.id}/refund`, { tickets: 1 })).status).toBe(
		201,
	);
	const table = await run({ resource: 'ledger', operation: 'reconcile', lookBackDays: 7 }, [{}]);
	expect(ledgerMismatches(table, apiLedger(sb))).toEqual([]);
	const tableNet = table
		.filter((r) => r.eventPointId === event)
		.reduce((n, r) => n + Math.round(Number(r.amount) * 100), 0);
	const [summary] = await run({
		resource: 'event',
		operation: 'getSalesSummary',
		eventId: { __rl: true, mode: 'id', value: event },
		options: { freePlaces: false },
	});
	const net = (summary.money as IDataObject[]).reduce(
		(n, m) => n + Math.round(Number(m.net) * 100),
		0,
	);
	expect(net).toBe(tableNet);
});

it('Get Rows with Events: One Event gives the same widget refund', async () => {
	const event = String((await sb.getAll('/event-points'))[0].id);
	const all = await run({ resource: 'ledger', operation: 'getRows', period: 'today' });
	const one = await run({
		resource: 'ledger',
		operation: 'getRows',
		period: 'today',
		eventScope: 'one',
		eventId: { __rl: true, mode: 'id', value: event },
	});
	expect(one.map((r) => r.key)).toEqual(
		all.filter((r) => r.eventPointId === event).map((r) => r.key),
	);
});
