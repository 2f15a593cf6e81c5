import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The error workflow's Held Orders step (examples/shop-release-held-orders.json), run on the failed
 * runs of the shipped checkout (examples/shop-checkout.json) as n8n's API gives them. Invariant: it
 * releases a hold only when the run never went on from it toward payment, or had chosen to release
 * it; a run whose payment step or report started (ran, failed, or was stopped while running) keeps
 * its hold, since the buyer may have been charged. Real n8n runs it in test/e2e/shop.e2e.test.ts.
 */
const read = (file: string) =>
	JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8')) as {
		nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }>;
		connections: Record<string, unknown>;
	};
const checkout = read('shop-checkout.json');
const heldOrdersCode = read('shop-release-held-orders.json').nodes.find(
	(n) => n.name === 'Held Orders',
)!.parameters.jsCode as string;
const heldOrders = new Function('$input', heldOrdersCode) as (
	input: unknown,
) => Array<{ json: { orderId: string } }>;

const ORDER = { id: 700001, status: 'reserved_to_time' };
type Task = { data?: { main: unknown[][] }; error?: { message: string } };
const ran = (...outputs: unknown[][]): Task[] => [
	{ data: { main: outputs.map((items) => items.map((json) => ({ json }))) } },
];
const failed = (message: string): Task[] => [{ error: { message } }];

/** What Held Orders answers for a failed checkout run that ran `runData`, last `last`. */
function released(runData: Record<string, Task[]>, last: string, queued: string[] = []): string[] {
	const run = {
		id: '41',
		workflowId: 'PeExShopCheckout',
		workflowData: checkout,
		data: {
			resultData: { runData, lastNodeExecuted: last },
			executionData: { nodeExecutionStack: queued.map((name) => ({ node: { name } })) },
		},
	};
	return heldOrders({ first: () => ({ json: run }) }).map((item) => item.json.orderId);
}

const upToHold = {
	Webhook: ran([{}]),
	'Check Order': ran([{ eventId: '1001', quantity: 1 }]),
	'Order Valid?': ran([{}], []),
	'Hold Best Available': ran([ORDER], []),
	// Not a repeat of an earlier purchase (its Idempotency-Key): on toward payment.
	'Repeated?': ran([], [ORDER]),
};

describe('the shop error workflow: a hold released only when no payment can have started', () => {
	it('stopped right after its hold, the payment step still queued: released', () => {
		expect(released(upToHold, 'Repeated?', ['Take Payment (replace me)'])).toEqual(['700001']);
	});

	it.each([
		[
			'the payment step failed with no error output wired',
			{ ...upToHold, 'Take Payment (replace me)': failed('Payment provider timed out') },
			'Take Payment (replace me)',
		],
		["stopped while the payment step ran (the workflow's timeout)", upToHold, 'Repeated?'],
		[
			'the payment step went down its error output: Payment Unknown, answered 202',
			{
				...upToHold,
				'Take Payment (replace me)': ran([], [{ error: 'timeout of 1000ms exceeded' }]),
				'Payment Unknown': ran([{ status: 202 }]),
				'Answer Buyer': ran([{ status: 202 }]),
				'Checkout Failed': failed('Order 700001: the payment step gave no clear answer'),
			},
			'Checkout Failed',
		],
		[
			'stopped while Report Payment ran',
			{
				...upToHold,
				'Take Payment (replace me)': ran([{ paid: true }], []),
				'Paid?': ran([{ paid: true }], []),
			},
			'Paid?',
		],
		[
			'Report Payment uncertain: Payment Pending',
			{
				...upToHold,
				'Take Payment (replace me)': ran([{ paid: true }], []),
				'Paid?': ran([{ paid: true }], []),
				'Report Payment': ran([], [{ error: 'Uncertain: …' }]),
				'Payment Refused?': ran([], [{}]),
				'Payment Pending': ran([{ status: 202 }]),
				'Answer Buyer': ran([{ status: 202 }]),
				'Checkout Failed': failed('Order 700001: the payment was taken'),
			},
			'Checkout Failed',
		],
	])('%s: kept, to end at its deadline', (_, runData, last) => {
		expect(released(runData, last)).toEqual([]);
	});

	it(
		'a repeat of a purchase (its Idempotency-Key) that failed answering: the first ' +
			"purchase's order is not this run's to release",
		() => {
			const repeated = { ...ORDER, idempotency: { key: 'k-1', repeated: true } };
			const runData = {
				...upToHold,
				'Hold Best Available': ran([repeated], []),
				'Repeated?': ran([repeated], []),
				'Answer as Before': ran([{ status: 409 }]),
				'Answer Again': failed('The connection to the buyer closed'),
			};
			expect(released(runData, 'Answer Again')).toEqual([]);
			// Stopped before it answered, too.
			expect(released({ ...runData, 'Answer Again': [] }, 'Repeated?')).toEqual([]);
		},
	);

	it('a decline whose Release Hold failed: the run chose to release, so released again', () => {
		const runData = {
			...upToHold,
			'Take Payment (replace me)': ran([{ declined: true }], []),
			'Paid?': ran([], [{ declined: true }]),
			'Declined?': ran([{ declined: true }], []),
			'Release Hold': ran([{ error: 'The service answered 503' }]),
			'Payment Failed': ran([{ status: 402 }]),
			'Answer Buyer': ran([{ status: 402 }]),
			'Checkout Failed': failed('Order 700001 not paid: the payment was declined'),
		};
		expect(released(runData, 'Checkout Failed')).toEqual(['700001']);
	});

	it('a decline released by the run itself, or a sale: nothing left to release', () => {
		const declined = {
			...upToHold,
			'Take Payment (replace me)': ran([{ declined: true }], []),
			'Paid?': ran([], [{ declined: true }]),
			'Declined?': ran([{ declined: true }], []),
			'Release Hold': ran([{ ...ORDER, status: 'expired' }]),
			'Payment Failed': ran([{ status: 402 }]),
			'Answer Buyer': ran([{ status: 402 }]),
			'Checkout Failed': failed('Order 700001 not paid: the payment was declined'),
		};
		expect(released(declined, 'Checkout Failed')).toEqual([]);
		const sold = {
			...upToHold,
			'Take Payment (replace me)': ran([{ paid: true }], []),
			'Paid?': ran([{ paid: true }], []),
			'Report Payment': ran([{ ...ORDER, status: 'paid' }], []),
			'Send Tickets': failed('The connection to the buyer closed'),
		};
		expect(released(sold, 'Send Tickets')).toEqual([]);
	});
});
