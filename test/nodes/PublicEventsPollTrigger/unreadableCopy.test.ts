import type { IDataObject } from 'n8n-workflow';

import { ledgerPoll } from '../../../harness/nodes/pollTrigger';
import { partlyRefundedWidgetSale } from '../../../harness/sandbox/ledger';
import { SandboxClient } from '../../../harness/sandbox/client';
import { onlyEvents } from '../../../harness/sandbox/suite';
import { MINUTE } from '../../../harness/time';
import { eventListTotalsLeft } from '../../../harness/sandbox/serviceShapes';

/**
 * The poll trigger (Output: Ledger Rows) reads every order of an event's list whole. A widget order
 * listed there too that the poll does not know for the widget sale's copy answers 404: it gives no
 * API row and the poll goes on. (Outside review: the 404 failed every poll from then on, every
 * later sale and refund of every feed waiting behind it.)
 */
let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(2, 60));
	await eventListTotalsLeft(sb);
});
afterAll(() => sb.stop());

it(
	'a widget order refunded in part before the first poll that sees it, listed in its event too: ' +
		'the poll goes on (its copy answers 404: no API row of its own)',
	async () => {
		const poll = ledgerPoll(sb, { maxRetries: 0 });
		expect((await poll.poll()).error).toBeUndefined();
		await sb.advanceClock(MINUTE);
		await partlyRefundedWidgetSale(sb);
		const outcomes: Array<string | IDataObject[]> = [];
		for (let i = 0; i < 3; i++) {
			await sb.advanceClock(MINUTE);
			const { items, error } = await poll.poll();
			outcomes.push(
				error ? `error: ${error.message.slice(0, 80)}` : items.map((x) => ({ key: x.json.key })),
			);
		}
		expect(outcomes.filter((o) => typeof o === 'string')).toEqual([]);
	},
);
