/**
 * Invariant: buyers of one shop on one API key check out at once (Hold Best Available, then Paid
 * or Release Hold, the shop's way) while the service's answers to writes are lost at random after
 * it acted (a 201, a 409, a 200 alike):
 * 1. no order is handed to two buyers: an order is a buyer's only when this request made it;
 * 2. no hold is left unnamed: every order the rush created is a buyer's, or named in a buyer's
 *    error; every hold still live is one of those whose fate is not known, so the partner can
 *    release them; none a buyer was told is released;
 * 3. no payment for a lost hold: every paid order is a paying buyer's, told "paid" or "unknown",
 *    never "released"; a buyer told "paid" has a paid order; the sandbox counts no payment
 *    reported for a hold that had ended.
 * Cases run through n8n-core against the sandbox over real HTTP (harness/props/rush.cases.ts).
 */
import { checkProperty } from '../../harness/props/property';
import { rushArb, rushSuite, type RushCase } from '../../harness/props/rush.cases';

const { sb, rush } = rushSuite();

let named = 0;
let lost = 0;

async function run(c: RushCase): Promise<void> {
	const { eventId, checkouts } = await rush(c);
	const orders = [...sb().app.store.orders.values()].filter((o) => o.eventPointId === eventId);
	const context = { case: c, checkouts, orders: orders.map((o) => `${o.id} ${o.status}`) };
	const holder = new Map<number, number>();
	checkouts.forEach((checkout, buyer) => {
		if (checkout.held === undefined) return;
		// 1. One buyer per order.
		expect({ ...context, shared: holder.get(checkout.held) }).toEqual({
			...context,
			shared: undefined,
		});
		holder.set(checkout.held, buyer);
	});
	const namedIds = new Set(checkouts.flatMap((checkout) => checkout.named));
	named += namedIds.size;
	const openFate = new Set(
		checkouts.filter((x) => x.fate === 'unknown').map((x) => x.held as number),
	);
	for (const order of orders) {
		const buyer = holder.get(order.id);
		// 2. Every order made is a buyer's or named.
		expect({ ...context, unnamed: buyer === undefined && !namedIds.has(order.id) }).toEqual({
			...context,
			unnamed: false,
		});
		if (order.status === 'reserved_to_time')
			expect({
				...context,
				live: order.id,
				known: namedIds.has(order.id) || openFate.has(order.id),
			}).toEqual({ ...context, live: order.id, known: true });
		// 3. A paid order: a paying buyer's, never said to be released.
		if (order.status === 'paid') {
			expect(buyer).toBeDefined();
			expect(c.buyers[buyer!].pays).toBe(true);
			expect(['paid', 'unknown']).toContain(checkouts[buyer!].fate);
		}
	}
	for (const checkout of checkouts)
		if (checkout.fate === 'paid')
			expect(orders.find((o) => o.id === checkout.held)?.status).toBe('paid');
	const report = await sb().scenarioReport();
	expect(report.paymentsForLostHolds).toBe(0);
	lost += checkouts.filter((x) => x.errors.length > 0).length;
	// The partner's clean-up: what is still held, named as above, is released.
	for (const order of orders)
		if (order.status === 'reserved_to_time')
			await sb().send('PUT', `/orders/${order.id}/status`, { toStatus: 'expired' });
}

/**
 * Counterexamples fast-check found, kept as cases of their own.
 * - seed 1793452799: against the read-back that took any live order on the places as this
 *   request's (before this suite), two buyers of one place each, half the answers lost: the
 *   second buyer's 409 was lost and it was handed the first buyer's order.
 */
const KEPT: RushCase[] = [
	{
		places: 4,
		buyers: [
			{ quantity: 1, pays: false },
			{ quantity: 1, pays: false },
		],
		loseRate: 0.5,
		seed: 230374928,
	},
];

describe('a rush on one key with answers lost at random', () => {
	it.each(KEPT.map((c) => [JSON.stringify(c), c] as const))('kept: %s', async (_, c) => {
		await run(c);
	});

	it('property: no order shared, no hold unnamed, no payment for a lost hold', async () => {
		await checkProperty('rush with lost answers', rushArb, run, 15);
		// The cases did lose answers that mattered: some buyers were told of an uncertain outcome.
		expect(lost).toBeGreaterThan(0);
		process.stdout.write(`rush: ${lost} checkouts met a lost answer, ${named} orders named\n`);
	}, 600_000);
});
