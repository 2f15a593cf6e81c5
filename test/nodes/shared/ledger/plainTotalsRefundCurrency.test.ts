import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { credentialFor, runPublicEvents } from '../../../../harness/nodes/publicEvents';
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
	const { items, error } = await runPublicEvents(
		credentialFor(sb).store,
		parameters as INodeParameters,
		inputItems ? { inputItems } : {},
	);
	if (error) throw error;
	return items.map((i) => i.json);
};

it(
	'plain totals: a widget refund row has its sale`s currency (from the tickets), and the ' +
		'summary one line for it',
	async () => {
		const event = String((await sb.getAll('/event-points'))[0].id);
		const sold = (
			await sb.admin('POST', '/widget-orders', {
				company: 'partner',
				eventPoint: event,
				tickets: 2,
			})
		).body;
		await sb.admin('POST', `/widget-orders/${sold.id}/refund`, { tickets: 1 });
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
