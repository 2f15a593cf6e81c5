import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession, type PollResult } from '../../../harness/engine';
import { credentialFor, pollItemId } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { MAX_REMEMBERED, rememberFor } from '../../../nodes/PublicEventsPollTrigger/poll/copies';

/** Seeded PRNG (mulberry32): a failure replays with the same SEED. */
function prng(seed: number) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const SEED = Number(process.env.POLL_SEED ?? 20260501);
const POLLS = 50;
const SALES = 1000;
const REFUNDS = 100;
const API_ORDERS = 10;

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 10, placesPerEvent: 300, widgetOrders: 4, seed: 7 });
	await sb.token();
});
afterAll(() => sb.stop());

describe(`Poll Trigger: every sale and refund exactly once (seed ${SEED})`, () => {
	it(
		`${SALES} widget sales, ${REFUNDS} refunds and ${API_ORDERS} ` +
			`API orders across ${POLLS} polls, with a restart between polls`,
		async () => {
			const random = prng(SEED);
			const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
			const node = new PollSession({
				nodeType: new PublicEventsPollTrigger(),
				type: 'CUSTOM.publicEventsPollTrigger',
				parameters: {},
				credentials: credentialFor(sb).store,
			});

			// key -> its record time, for the report on failure
			const expected = new Map<string, string>();
			const sales: IDataObject[] = [];
			const refundable: number[] = [];
			const emitted: string[] = [];
			const polls: PollResult[] = [];
			const keyOf = (json: IDataObject) =>
				`${String(json.type)}:${String(json.source)}:${pollItemId(json)}`;
			// n8n restarts before every poll: each starts from what n8n saved to its database, nothing
			// else.
			const pollAfterRestart = () => {
				node.restart();
				return node.poll();
			};
			const record = (result: PollResult) => {
				expect(result.error).toBeUndefined();
				polls.push(result);
				emitted.push(...result.items.map((item) => keyOf(item.json)));
			};
			const sell = async () => {
				const sale = (await sb.admin('POST', '/widget-orders', { tickets: int(1, 2) })).body;
				expect(sale.id).toBeDefined();
				sales.push(sale);
				refundable.push(sale.id);
				expected.set(`sale:widgetSales:${sale.id}`, sale.payAt);
			};
			/**
			 * A batch of sales at one moment of the sandbox clock (they share a timestamp unless a second
			 * ticks over).
			 */
			const sellBatch = (count: number) => Promise.all(Array.from({ length: count }, sell));
			const refundOne = async () => {
				const [id] = refundable.splice(int(0, refundable.length - 1), 1);
				const refund = (await sb.admin('POST', `/widget-orders/${id}/refund`)).body;
				expected.set(`refund:widgetRefunds:${refund.id}`, refund.refundedAt);
			};
			/** An order made and paid through the API, on the event with the most free places. */
			const payApiOrder = async () => {
				const [event] = (await sb.getAll('/event-points')).sort(
					(a, b) => b.countAvailableTickets - a.countAvailableTickets,
				);
				const place = await sb.freePlace(event.id);
				const hold = (
					await sb.send('POST', '/orders', {
						eventPoint: String(event.id),
						places: [place.id],
						priceCategory: place.priceCategory,
					})
				).body;
				const paid = (await sb.send('PUT', `/orders/${hold.id}/status`, { toStatus: 'paid' })).body;
				expect(paid.status).toBe('paid');
				expected.set(`sale:eventOrders:${paid.id}`, paid.payAt);
			};

			record(await node.poll()); // activation: starts from now
			expect(polls[0].returnedNull).toBe(true);

			let salesLeft = SALES;
			let refundsLeft = REFUNDS;
			let ordersLeft = API_ORDERS;
			for (let round = 1; round <= POLLS; round++) {
				// Sales this round: the rest is spread so that exactly SALES are made across the rounds.
				let quota =
					round === POLLS
						? salesLeft
						: Math.min(salesLeft, int(5, Math.ceil((2 * salesLeft) / (POLLS - round + 1)) - 5));
				salesLeft -= quota;
				while (quota > 0) {
					// Random moments: most steps move the clock by seconds to minutes, some not at all.
					if (random() < 0.6) await sb.advanceClock(int(1, 120) * 1000);
					const batch = Math.min(quota, int(1, 6));
					await sellBatch(batch);
					quota -= batch;
				}
				const refunds = round === POLLS ? refundsLeft : Math.min(refundsLeft, int(0, 4));
				for (let i = 0; i < refunds; i++) {
					if (random() < 0.5) await sb.advanceClock(int(1, 30) * 1000);
					await refundOne();
				}
				refundsLeft -= refunds;
				if (ordersLeft > 0 && (round % 5 === 0 || round === POLLS)) {
					await payApiOrder();
					ordersLeft--;
				}
				if (round % 4 === 0) {
					// Sales racing the poll: made while it reads the feeds.
					const [result] = await Promise.all([pollAfterRestart(), sellBatch(3)]);
					record(result);
				} else {
					record(await pollAfterRestart());
				}
				// Sales in the same second as the newest one the poll just emitted (no clock move).
				if (round % 3 === 0 && round < POLLS) await sellBatch(2);
			}
			record(await pollAfterRestart()); // the racing and same-second sales of the last rounds

			// Exactly once: no key twice, none missing, nothing extra.
			const counts = new Map<string, number>();
			for (const key of emitted) counts.set(key, (counts.get(key) ?? 0) + 1);
			const duplicates = [...counts].filter(([, n]) => n > 1);
			const missing = [...expected.keys()]
				.filter((key) => !counts.has(key))
				.map((key) => `${key} @ ${expected.get(key)}`);
			const extra = [...counts.keys()].filter((key) => !expected.has(key));
			expect({ duplicates, missing, extra }).toEqual({ duplicates: [], missing: [], extra: [] });
			const widgetSales = [...expected.keys()].filter((key) =>
				key.startsWith('sale:widgetSales'),
			).length;
			expect(widgetSales).toBe(SALES + 3 * Math.floor(POLLS / 4) + 2 * Math.floor((POLLS - 1) / 3));
			expect([...expected.keys()].filter((key) => key.startsWith('refund:')).length).toBe(REFUNDS);
			expect([...expected.keys()].filter((key) => key.startsWith('sale:eventOrders')).length).toBe(
				API_ORDERS,
			);
			expect(emitted).toHaveLength(expected.size);

			// The scenario held: many sales share a timestamp, and some share it across a poll boundary.
			const perSecond = new Map<string, number>();
			for (const sale of sales)
				perSecond.set(String(sale.payAt), (perSecond.get(String(sale.payAt)) ?? 0) + 1);
			expect([...perSecond.values()].filter((n) => n > 1).length).toBeGreaterThan(100);
			const timesOf = (result: PollResult) =>
				result.items.map((item) => String(item.json.occurredAt));
			let straddling = 0;
			for (let i = 1; i < polls.length; i++) {
				const before = timesOf(polls[i - 1]);
				if (before.length && timesOf(polls[i]).includes(before[before.length - 1])) straddling++;
			}
			expect(straddling).toBeGreaterThan(0);

			// The state stays small: ids within the overlap window only, not the history...
			const state = node.nodeData()!.publicEventsPoll as {
				feeds: Record<string, { seen: object }>;
				widgetSales?: Record<string, number>;
			};
			const seen = Object.values(state.feeds).reduce(
				(n, feed) => n + Object.keys(feed.seen).length,
				0,
			);
			expect(seen).toBeLessThan(200);
			// ...but for the widget sales the poll remembers, with both feeds included, to tell their
			// copies in an event's order list (poll/copies.ts): one 11-character digest each of those
			// emitted in the last hour (rememberFor, at the default lag and overlap), at most
			// MAX_REMEMBERED: bounded, and small beside the state.
			const remembered = Object.entries(state.widgetSales ?? {});
			const emittedSales = emitted.filter((key) => key.startsWith('sale:widgetSales:'));
			const hour = Date.now() - rememberFor(15 * 60_000, 5 * 60_000);
			expect(remembered.length).toBeLessThanOrEqual(Math.min(MAX_REMEMBERED, emittedSales.length));
			expect(
				remembered.every(
					([print, at]) => /^[\w-]{11}$/.test(print) && Number(at) * 1000 >= hour - 3_600_000,
				),
			).toBe(true);
			const rest = JSON.stringify(JSON.parse(node.staticData!), (key, value: unknown) =>
				key === 'widgetSales' ? undefined : value,
			);
			expect(rest.length).toBeLessThan(20_000);
			expect(JSON.stringify(state.widgetSales ?? {}).length).toBeLessThan(
				30 * Math.max(1, remembered.length),
			);
			console.log(
				`static data after ${emitted.length} items: ${node.staticData!.length} characters, ` +
					`${rest.length} without the ${remembered.length} widget sales remembered`,
			);
		},
	);
});
