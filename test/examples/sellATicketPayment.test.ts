/**
 * Sell a ticket's Report Payment error output releases the hold only when the service refused the
 * report (Payment Refused?, the shop's test); an unclear answer keeps the hold, so a payment
 * report that lands late finds its order held and the sale is kept (outside review: the error
 * output went straight to Release Hold, and the late report found the order expired).
 * Run with the two Public Events nodes as shipped; the IF's test is the shipped expression's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { orderNodeSuite } from '../../harness/nodes/orderNode';
import { credentialFor } from '../../harness/nodes/publicEvents';
import { runWorkflow } from '../../harness/engine/workflow';
import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';

const { sb, hold, getOrder } = orderNodeSuite();

const example = JSON.parse(
	readFileSync(join(__dirname, '..', '..', 'examples', 'sell-a-ticket.json'), 'utf8'),
) as {
	nodes: Array<{ name: string; parameters: IDataObject; onError?: string }>;
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
};
const shipped = (name: string) => example.nodes.find((n) => n.name === name)!;

afterEach(() => sb().admin('DELETE', '/faults'));

/** The shipped Payment Refused? condition, on an error item's text. */
function refused(error: string): boolean {
	const test = (shipped('Payment Refused?').parameters as any).conditions.conditions[0]
		.leftValue as string;
	return new RegExp(/\/(.*)\/\.test/.exec(test)![1]).test(error);
}

describe('Sell a ticket: a payment report without a clear answer keeps the hold', () => {
	it('the late payment report finds its order held: the order ends paid', async () => {
		expect(example.connections['Report Payment'].main[1].map((c) => c.node)).toEqual([
			'Payment Refused?',
		]);
		expect(example.connections['Payment Refused?'].main[0].map((c) => c.node)).toEqual([
			'Release Hold',
		]);
		expect(shipped('Report Payment').onError).toBe('continueErrorOutput');

		const { order: held } = await hold(1);
		const report = shipped('Report Payment').parameters;
		// The payment report is slow: it lands 3 s after it was sent.
		await sb().admin('POST', '/faults', {
			kind: 'latency',
			delayMs: 3000,
			method: 'PUT',
			path: '/orders/{id}/status',
			count: 1,
		});
		const { store } = credentialFor(sb());
		const result = await runWorkflow({
			credentials: store,
			inputItems: [{ id: held.id }],
			nodes: [
				{
					name: 'Report Payment',
					nodeType: new PublicEvents(),
					type: 'CUSTOM.publicEvents',
					onError: 'continueErrorOutput',
					parameters: {
						...report,
						orderId: '={{ $json.id }}',
						options: { ...(report.options as IDataObject), timeout: 1, confirmWaitSeconds: 1 },
					},
				},
			],
			links: [{ from: 'Start', to: 'Report Payment' }],
		});
		const reportError = String(result.runs('Report Payment')[0]?.outputs[1]?.[0]?.json.error);
		expect(reportError).toMatch(/^Uncertain: changing the status of order \d+ to paid/);
		// Not the refusal Payment Refused? sends to Release Hold; a refusal is.
		expect(refused(reportError)).toBe(false);
		expect(refused('Refused: changing the status of order 1 to paid was NOT applied. 409')).toBe(
			true,
		);
		// The late report lands: the hold was kept, so it is recorded.
		await sb().app.idle();
		expect((await getOrder(held.id)).body.status).toBe('paid');
	});
});
