import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession, type PollResult } from '../../../harness/engine';
import { credentialFor, mark, pollItemId, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { MINUTE } from '../../../harness/time';

let sb: SandboxClient;

// Time passing for everyone in this process (the node and the sandbox read Date.now()), moved
// between polls: the event list the trigger caches for 15 minutes ages without waiting.
const realNow = Date.now.bind(Date);
let shift = 0;
const letTimePass = (ms: number) => (shift += ms);

beforeAll(async () => {
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
	sb = await SandboxClient.start({ events: 5, placesPerEvent: 40, widgetOrders: 3 });
	await sb.token();
});
afterAll(async () => {
	await sb.stop();
	jest.restoreAllMocks();
});
afterEach(() => sb.admin('DELETE', '/faults'));

function trigger(parameters: IDataObject = {}) {
	return new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters,
		credentials: credentialFor(sb).store,
	});
}

const keys = (result: PollResult) => {
	expect(result.error).toBeUndefined();
	return result.items.map(
		(item) => `${String(item.json.type)}:${String(item.json.source)}:${pollItemId(item.json)}`,
	);
};

async function payApiOrder(eventId: number) {
	const place = await sb.freePlace(eventId);
	const hold = (
		await sb.send('POST', '/orders', {
			eventPoint: String(eventId),
			places: [place.id],
			priceCategory: place.priceCategory,
		})
	).body;
	return (await sb.send('PUT', `/orders/${hold.id}/status`, { toStatus: 'paid' })).body;
}

const ordersOnly = { include: ['eventOrders'] };
const described = (result: PollResult) =>
	(result.error as { description?: string } | undefined)?.description;
const orderRequests = async (seq: number) =>
	(await since(sb, seq)).filter((e) => e.route === '/event-points/{id}/orders').map((e) => e.path);

describe('Poll Trigger: Event Orders of All Visible Events', () => {
	it(
		'an event that appears later is found at the next list ' +
			'reading, with its sales since the watch began',
		async () => {
			const node = trigger(ordersOnly);
			await node.poll();
			const created = (await sb.admin('POST', '/events', { name: 'Late addition', places: 10 }))
				.body;
			const early = await payApiOrder(created.id);

			let seq = await mark(sb);
			// the cached list does not know the event yet
			expect((await node.poll()).returnedNull).toBe(true);
			expect((await since(sb, seq)).filter((e) => e.route === '/event-points')).toHaveLength(0);

			letTimePass(16 * MINUTE);
			const late = await payApiOrder(created.id);
			seq = await mark(sb);
			expect(keys(await node.poll())).toEqual([
				`sale:eventOrders:${early.id}`,
				`sale:eventOrders:${late.id}`,
			]);
			expect((await since(sb, seq)).filter((e) => e.route === '/event-points')).toHaveLength(1);
			expect((await node.poll()).returnedNull).toBe(true);
		},
	);

	it(
		'an event that leaves the list is read until records listed late have had the Settlement ' +
			'Lag and the overlap, then rests; back on sale it resumes without repeats',
		async () => {
			const node = trigger(ordersOnly);
			await node.poll();
			const [event] = await sb.getAll('/event-points');
			const beforeEnd = await payApiOrder(event.id);
			const clock = Date.parse((await sb.admin('GET', '/state')).body.now);
			await sb.admin('PATCH', `/events/${event.id}`, {
				dateEndOfSale: new Date(clock - MINUTE).toISOString(),
			});
			const reads = async (poll: () => Promise<PollResult>) => {
				const seq = await mark(sb);
				const result = await poll();
				return {
					keys: keys(result),
					read: (await orderRequests(seq)).includes(`/event-points/${event.id}/orders`),
				};
			};

			letTimePass(16 * MINUTE);
			expect(await reads(() => node.poll())).toEqual({
				keys: [`sale:eventOrders:${beforeEnd.id}`],
				read: true,
			});
			// Still read while a sale paid as it left may be listed late: 15 + 5 minutes by default.
			letTimePass(19 * MINUTE);
			expect(await reads(() => node.poll())).toEqual({ keys: [], read: true });
			letTimePass(2 * MINUTE);
			expect(await reads(() => node.poll())).toEqual({ keys: [], read: true });
			expect(await reads(() => node.poll())).toEqual({ keys: [], read: false });

			await sb.admin('PATCH', `/events/${event.id}`, {
				dateEndOfSale: new Date(clock + 5 * 24 * 60 * MINUTE).toISOString(),
			});
			const afterReturn = await payApiOrder(event.id);
			letTimePass(16 * MINUTE);
			expect(keys(await node.poll())).toEqual([`sale:eventOrders:${afterReturn.id}`]);
		},
	);

	it(
		'invariant: a sale paid a minute before the end of sale and listed 8 minutes late (within ' +
			'the Settlement Lag) is emitted once, though the event left the list before it was listed',
		async () => {
			const node = trigger(ordersOnly);
			await node.poll(); // the event list read now
			letTimePass(10 * MINUTE);
			const [event] = await sb.getAll('/event-points');
			await sb.setQuirks({ lateVisibleMs: 8 * MINUTE });
			try {
				const sale = await payApiOrder(event.id);
				const clock = Date.parse((await sb.admin('GET', '/state')).body.now);
				await sb.admin('PATCH', `/events/${event.id}`, {
					dateEndOfSale: new Date(clock + MINUTE).toISOString(),
				});
				// Polls every minute; the list, 15 minutes old 5 minutes on, no longer holds the event
				// then, 3 minutes before the sale is listed.
				const emitted: string[] = [];
				let lastRead = 0;
				for (let minute = 1; minute <= 40; minute++) {
					letTimePass(MINUTE);
					const seq = await mark(sb);
					emitted.push(...keys(await node.poll()));
					if ((await orderRequests(seq)).includes(`/event-points/${event.id}/orders`))
						lastRead = minute;
				}
				expect(emitted).toEqual([`sale:eventOrders:${sale.id}`]);
				// Read from the end of sale until 20 minutes (Settlement Lag and overlap) after the
				// listing showed it gone (minute 5), then resting.
				expect(lastRead).toBe(25);
			} finally {
				await sb.setQuirks({});
			}
		},
	);

	it(
		'an event unlinked from the company (404) stops being read ' + 'without failing the poll',
		async () => {
			const node = trigger(ordersOnly);
			await node.poll();
			const events = await sb.getAll('/event-points');
			const gone = events[events.length - 1];
			await sb.admin('PATCH', `/events/${gone.id}`, { companies: ['organiser'] });

			let seq = await mark(sb);
			const result = await node.poll();
			expect(result.error).toBeUndefined();
			expect(await orderRequests(seq)).toContain(`/event-points/${gone.id}/orders`);
			seq = await mark(sb);
			await node.poll();
			expect(await orderRequests(seq)).not.toContain(`/event-points/${gone.id}/orders`);
			expect(await orderRequests(seq)).toHaveLength(events.length - 1);

			// Those polls returned null, so n8n saved none of it: after a restart the event is tried once
			// more.
			node.restart();
			seq = await mark(sb);
			const again = await node.poll();
			expect([again.error, again.returnedNull]).toEqual([undefined, true]);
			expect(await orderRequests(seq)).toContain(`/event-points/${gone.id}/orders`);
			seq = await mark(sb);
			await node.poll();
			expect(await orderRequests(seq)).not.toContain(`/event-points/${gone.id}/orders`);
		},
	);
});

describe('Poll Trigger: robustness', () => {
	it(
		'a service that ignores the time filter and the sort: only ' + 'new records, each once',
		async () => {
			const node = trigger({ include: ['widgetSales'] });
			await node.poll();
			await sb.advanceClock(MINUTE);
			const fresh = [];
			for (let i = 0; i < 3; i++) fresh.push((await sb.admin('POST', '/widget-orders', {})).body);
			// The whole list, newest first, whatever the query asked for.
			const everything = (await sb.getAll('/widget-orders')).reverse();
			expect(everything.length).toBeGreaterThan(fresh.length);
			await sb.admin('POST', '/faults', {
				kind: 'status',
				status: 200,
				method: 'GET',
				path: '/widget-orders',
				count: 2,
				body: everything,
			});

			expect(keys(await node.poll()).sort()).toEqual(
				fresh.map((o) => `sale:widgetSales:${o.id}`).sort(),
			);
			expect((await node.poll()).returnedNull).toBe(true); // the same whole list again: nothing new
		},
	);

	it(
		'a feed that cannot be read does not hold up the others: ' +
			'their items come, its records wait and come once it can be ' +
			'read',
		async () => {
			const node = trigger({
				include: ['widgetSales', 'widgetRefunds'],
				options: { maxRetries: 0 },
			});
			await node.poll();
			const [paid] = (await sb.getAll('/widget-orders')).filter((o) => o.status === 'paid');
			const sale = (await sb.admin('POST', '/widget-orders', {})).body;
			const refund = (await sb.admin('POST', `/widget-orders/${paid.id}/refund`)).body;
			await sb.admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				method: 'GET',
				path: '/widget-orders-refunds',
				count: 1,
			});

			const partial = await node.poll();
			expect(keys(partial)).toEqual([`sale:widgetSales:${sale.id}`]);
			const state = node.nodeData()!.publicEventsPoll as {
				feeds: Record<string, { failures?: number }>;
			};
			expect(state.feeds.widgetRefunds.failures).toBe(1);

			expect(keys(await node.poll())).toEqual([`refund:widgetRefunds:${refund.id}`]);
			expect(
				(node.nodeData()!.publicEventsPoll as typeof state).feeds.widgetRefunds.failures,
			).toBeUndefined();
		},
	);

	it(
		'a state whose window went to 2099 (a future-dated record ' +
			'moved the cursor, before the fix) is brought back: later ' +
			'sales come',
		async () => {
			const node = trigger({ include: ['widgetSales'] });
			await node.poll();
			const data = JSON.parse(node.staticData!);
			const nodeKey = Object.keys(data).find((key) => data[key]?.publicEventsPoll)!;
			const future = Date.parse('2099-01-01T00:00:00Z');
			data[nodeKey].publicEventsPoll.feeds.widgetSales = {
				cursor: future,
				from: future - 5 * MINUTE,
				seen: { 999999: future },
			};
			node.staticData = JSON.stringify(data);

			// Read again from the service's time less the overlap window (5 minutes): what is older stays
			// history.
			await sb.advanceClock(10 * MINUTE);
			const sale = (await sb.admin('POST', '/widget-orders', {})).body;
			expect(keys(await node.poll())).toEqual([`sale:widgetSales:${sale.id}`]);
			const feed = (
				node.nodeData()!.publicEventsPoll as {
					feeds: { widgetSales: { cursor: number; from: number } };
				}
			).feeds.widgetSales;
			expect(feed.cursor).toBeLessThan(future);
			expect(feed.from).toBeLessThanOrEqual(Date.parse(sale.payAt));
		},
	);

	it(
		'a failing feed is reported, naming it, on a poll with ' +
			'nothing else to emit, and every third failure in a row',
		async () => {
			const node = trigger({
				include: ['widgetSales', 'widgetRefunds'],
				options: { maxRetries: 0 },
			});
			await node.poll();
			const saved = node.staticData;
			await sb.admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				method: 'GET',
				path: '/widget-orders-refunds',
				count: 0,
			});

			// Nothing else to emit: the poll fails as any failed poll does, its error naming the feed,
			// and nothing moves.
			const quiet = await node.poll();
			expect(quiet.error).toMatchObject({
				name: 'NodeApiError',
				httpCode: '503',
				message: expect.stringMatching(/^Widget Refunds could not be read: .*503/),
			});
			expect([quiet.changed, node.staticData]).toEqual([false, saved]);

			// Sales go out while the refunds fail; the third failure in a row fails the poll all the
			// same.
			const sales: string[] = [];
			const results: PollResult[] = [];
			for (let poll = 0; poll < 4; poll++) {
				sales.push(`sale:widgetSales:${(await sb.admin('POST', '/widget-orders', {})).body.id}`);
				results.push(await node.poll());
			}
			expect(
				results.map((result) => result.error?.message.replace(/:.*/s, '') ?? keys(result).join()),
			).toEqual([
				sales[0],
				sales[1],
				'Widget Refunds could not be read in 3 polls in a row',
				[sales[2], sales[3]].join(),
			]);
			expect(described(results[2])).toMatch(/The other feeds went on/);

			await sb.admin('DELETE', '/faults');
			expect((await node.poll()).returnedNull).toBe(true);
		},
	);
});
