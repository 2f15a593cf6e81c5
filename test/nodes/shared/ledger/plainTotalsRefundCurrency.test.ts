import type { IDataObject } from 'n8n-workflow';

import { nodeRows } from '../../../../harness/nodes/publicEvents';
import { partlyRefundedWidgetSale } from '../../../../harness/sandbox/ledger';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { onlyEvents } from '../../../../harness/sandbox/suite';

/**
 * The plain-totals quirk (totals and refund amounts plain numbers, ticket prices objects): a widget
 * refund row takes its currency from its order's tickets, as the sale row does, and Get Sales
 * Summary shows one line for the currency. (Outside review: the refund row's currency was null.)
 */
let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(2, 60));
	await sb.setQuirks('plain-totals');
});
afterAll(() => sb.stop());

const run = async (parameters: IDataObject, inputItems?: IDataObject[]) => {
	const { rows, error } = await nodeRows(sb, parameters, inputItems);
	if (error) throw error;
	return rows;
};

it(
	'plain totals: a widget refund row has its sale`s currency (from the tickets), and the ' +
		'summary one line for it',
	async () => {
		const { event } = await partlyRefundedWidgetSale(sb);
		const rows = await run({ resource: 'ledger', operation: 'reconcile', lookBackDays: 7 }, [{}]);
		const [summary] = await run({
			resource: 'event',
			operation: 'getSalesSummary',
			eventId: { __rl: true, mode: 'id', value: event },
			options: { freePlaces: false },
		});
		expect({
			currencies: rows.map((r) => [r.type, r.currency]).sort(),
			money: (summary.money as IDataObject[]).map((m) => m.currency),
		}).toEqual({
			currencies: [
				['refund', 'EUR'],
				['sale', 'EUR'],
			],
			money: ['EUR'],
		});
	},
);
