import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { callLoadOptions, PollSession } from '../../../harness/engine';
import { credentialFor, mark, pollItemId, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { MINUTE } from '../../../harness/time';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 6, placesPerEvent: 60, widgetOrders: 5 });
	await sb.token();
});
afterAll(() => sb.stop());

function trigger(parameters: IDataObject = {}, store = credentialFor(sb).store) {
	return new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters,
		credentials: store,
	});
}

const sell = async (tickets = 1) => (await sb.admin('POST', '/widget-orders', { tickets })).body;
const refund = async (id: number) => (await sb.admin('POST', `/widget-orders/${id}/refund`)).body;
const keys = (items: Array<{ json: IDataObject }>) =>
	items.map(
		(item) => `${String(item.json.type)}:${String(item.json.source)}:${pollItemId(item.json)}`,
	);

/** Visible events with free places, most free first. */
const eventsOnSale = async () =>
	(await sb.getAll('/event-points'))
		.sort((a, b) => b.countAvailableTickets - a.countAvailableTickets)
		.filter((e) => e.countAvailableTickets > 0)
		.map((e) => e.id as number);

/** Creates an order through the API and pays it: a sale of the Event Orders feed. */
async function payApiOrder(eventId: number) {
	const place = await sb.freePlace(eventId);
	const order = (
		await sb.send('POST', '/orders', {
			eventPoint: String(eventId),
			places: [place.id],
			priceCategory: place.priceCategory,
		})
	).body;
	return (await sb.send('PUT', `/orders/${order.id}/status`, { toStatus: 'paid' })).body;
}

describe('Poll Trigger: Sales and Refunds', () => {
	it(
		'first activation emits nothing; then each new sale and ' +
			'refund once, oldest first, in one flat shape',
		async () => {
			const node = trigger();
			const existing = await sell();
			const first = await node.poll();
			expect(first.error).toBeUndefined();
			expect(first.returnedNull).toBe(true);
			expect(node.nodeData()?.publicEventsPoll).toMatchObject({ version: 1 });

			await sb.advanceClock(MINUTE);
			const sale = await sell(2);
			const events = await eventsOnSale();
			const apiOrder = await payApiOrder(events[1]);
			await sb.advanceClock(MINUTE);
			const refunded = await refund(existing.id);

			const second = await node.poll();
			expect(second.error).toBeUndefined();
			expect(keys(second.items)).toEqual([
				`sale:widgetSales:${sale.id}`,
				`sale:eventOrders:${apiOrder.id}`,
				`refund:widgetRefunds:${refunded.id}`,
			]);
			// The name both triggers give the change (nodes/shared/dedupeKey.ts), with its channel: a
			// widget order and an API order of one number are two sales.
			expect(second.items.map((item) => item.json.dedupeKey)).toEqual([
				`sale:widget:${sale.id}`,
				`sale:api:${apiOrder.id}`,
				`refund:widget:${refunded.id}`,
			]);
			const [saleItem, orderItem, refundItem] = second.items.map((item) => item.json);
			expect(saleItem).toMatchObject({
				type: 'sale',
				source: 'widgetSales',
				channel: 'widget',
				occurredAt: new Date(Date.parse(sale.payAt)).toISOString(),
				orderId: String(sale.id),
				eventPointId: String(sale.eventPoint),
				payAt: sale.payAt,
				email: sale.email,
				totalPrice: sale.totalPrice,
			});
			expect((saleItem.tickets as IDataObject[]).length).toBe(2);
			expect(orderItem).toMatchObject({
				type: 'sale',
				source: 'eventOrders',
				channel: 'api',
				orderId: String(apiOrder.id),
				eventPointId: String(events[1]),
				status: 'paid',
				totalPrice: apiOrder.totalPrice,
			});
			expect(refundItem).toMatchObject({
				type: 'refund',
				source: 'widgetRefunds',
				channel: 'widget',
				orderId: String(existing.id),
				refundId: String(refunded.id),
				amount: refunded.amount,
				refundedAt: refunded.refundedAt,
			});
			// One field per id (version 1.1): no `id`, `order` or `eventPoint` copies beside the
			// header's.
			for (const item of [saleItem, orderItem, refundItem])
				expect(Object.keys(item)).not.toEqual(expect.arrayContaining(['id']));
			expect(
				[saleItem, orderItem, refundItem].flatMap((item) =>
					['id', 'order', 'eventPoint'].filter((key) => key in item),
				),
			).toEqual([]);

			const third = await node.poll();
			expect(third.returnedNull).toBe(true);
			expect(third.changed).toBe(false);
		},
	);

	it(
		'a poll started while the previous one still runs (n8n does ' +
			'not wait) steps aside: the sale comes once',
		async () => {
			const node = trigger({ include: ['widgetSales'] });
			await node.poll();
			const sale = await sell();
			const [first, second] = await Promise.all([node.poll(), node.poll()]);
			expect([first.error, second.error]).toEqual([undefined, undefined]);
			expect([...keys(first.items), ...keys(second.items)]).toEqual([
				`sale:widgetSales:${sale.id}`,
			]);
			expect((await node.poll()).returnedNull).toBe(true);
		},
	);

	it(
		'the first poll of a new credential requests one token, ' + 'though it reads two feeds',
		async () => {
			const { store } = credentialFor(sb);
			const before = await mark(sb);
			const first = await trigger({ include: ['widgetSales', 'widgetRefunds'] }, store).poll();
			expect(first.error).toBeUndefined();
			const log = await since(sb, before);
			expect(log.filter((e) => e.route === '/token')).toHaveLength(1);
			// Activation first asks for one event, for the service's time in the answer's Date header.
			expect(log.slice(0, 2).map((e) => e.route)).toEqual(['/token', '/event-points']);
			expect(
				log
					.slice(2)
					.map((e) => e.route)
					.sort(),
			).toEqual(['/widget-orders', '/widget-orders-refunds']);
			expect(new URLSearchParams(log[1].query).get('itemsPerPage')).toBe('1');
			expect(store.preAuthenticationCount).toBe(1);
		},
	);

	it(
		'a quiet poll costs one request per feed and per watched ' + 'event, and no token request',
		async () => {
			const { store } = credentialFor(sb);
			const node = trigger({}, store);
			await node.poll();
			await sell();
			await node.poll();
			const watched = (await sb.getAll('/event-points')).length;
			const before = await mark(sb);

			const quiet = await node.poll();

			expect(quiet.returnedNull).toBe(true);
			expect(quiet.changed).toBe(false); // nothing for n8n to save
			const log = await since(sb, before);
			const count = (route: string) => log.filter((e) => `${e.method} ${e.route}` === route).length;
			expect(count('GET /widget-orders')).toBe(1);
			expect(count('GET /widget-orders-refunds')).toBe(1);
			expect(count('GET /event-points/{id}/orders')).toBe(watched);
			expect(count('GET /event-points')).toBe(0); // the event list is cached for 15 minutes
			expect(count('POST /token')).toBe(0);
			expect(log).toHaveLength(2 + watched);
			expect(store.preAuthenticationCount).toBe(1);
			// What the service was asked: the time filter a window before the newest sale, oldest first.
			const widget = new URLSearchParams(log.find((e) => e.route === '/widget-orders')!.query);
			expect(widget.get('order[payAt]')).toBe('asc');
			expect(widget.get('payAt[after]')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
			const orders = new URLSearchParams(
				log.find((e) => e.route === '/event-points/{id}/orders')!.query,
			);
			expect([...orders.keys()].filter((key) => key.startsWith('status'))).toEqual([]);
		},
	);

	it(
		'a saved state that does not parse (an older version, a hand ' +
			'edit) starts over instead of failing',
		async () => {
			const node = trigger({ include: ['widgetSales'] });
			expect((await node.poll()).returnedNull).toBe(true);
			const data = JSON.parse(node.staticData!);
			const nodeKey = Object.keys(data).find((key) => data[key]?.publicEventsPoll)!;
			data[nodeKey].publicEventsPoll.feeds.widgetSales.cursor = 'yesterday';
			node.staticData = JSON.stringify(data);

			await sb.advanceClock(MINUTE);
			await sell();
			const restarted = await node.poll();
			expect(restarted.error).toBeUndefined();
			expect(restarted.returnedNull).toBe(true);
			expect(node.nodeData()?.publicEventsPoll).toMatchObject({
				feeds: { widgetSales: { cursor: expect.any(Number) } },
			});

			await sb.advanceClock(MINUTE);
			const sale = await sell();
			expect(keys((await node.poll()).items)).toEqual([`sale:widgetSales:${sale.id}`]);
		},
	);

	it('Chosen Events: only their orders, one request each', async () => {
		const events = await eventsOnSale();
		const node = trigger({
			include: ['eventOrders'],
			eventScope: 'chosen',
			eventIds: [String(events[2]), `/api/v2/event-points/${events[3]}`],
		});
		await node.poll();
		const wanted = [await payApiOrder(events[2]), await payApiOrder(events[3])];
		await payApiOrder(events[0]);
		await sell();
		const before = await mark(sb);
		const { items, error } = await node.poll();
		expect(error).toBeUndefined();
		expect(keys(items).sort()).toEqual(wanted.map((o) => `sale:eventOrders:${o.id}`).sort());
		expect((await since(sb, before)).map((e) => e.path).sort()).toEqual(
			[`/event-points/${events[2]}/orders`, `/event-points/${events[3]}/orders`].sort(),
		);
	});

	it('the Events list offers every visible event by name, start and venue', async () => {
		const visible = await sb.getAll('/event-points');
		const options = await callLoadOptions({
			nodeType: new PublicEventsPollTrigger(),
			type: 'CUSTOM.publicEventsPollTrigger',
			credentials: credentialFor(sb).store,
			parameters: { include: ['eventOrders'], eventScope: 'chosen' },
			method: 'getWatchableEvents',
		});
		expect(options.map((o) => o.value).sort()).toEqual(visible.map((e) => String(e.id)).sort());
		const first = options.find((o) => o.value === String(visible[0].id))!;
		expect(first.name).toBe(
			`${visible[0].eventName} · ${visible[0].dateStarted.slice(0, 16).replace('T', ' ')}` +
				` · ${visible[0].venue.name}`,
		);
	});

	it(
		'Event Orders: an order paid and refunded between two polls ' + 'is still emitted as a sale',
		async () => {
			const [eventId] = await eventsOnSale();
			const node = trigger({
				include: ['eventOrders'],
				eventScope: 'chosen',
				eventIds: [String(eventId)],
			});
			await node.poll();
			const order = await payApiOrder(eventId);
			await sb.send('PUT', `/orders/${order.id}/status`, { toStatus: 'refund' });
			const { items } = await node.poll();
			expect(keys(items)).toEqual([`sale:eventOrders:${order.id}`]);
			expect(items[0].json).toMatchObject({ status: 'refund', payAt: order.payAt });
		},
	);

	it('Start From backfills from that moment on the first poll', async () => {
		const all = await sb.getAll('/widget-orders');
		const refunds = await sb.getAll('/widget-orders-refunds');
		const cut = Date.parse(all[Math.floor(all.length / 2)].payAt);
		const expected = [
			...all.filter((o) => Date.parse(o.payAt) >= cut).map((o) => `sale:widgetSales:${o.id}`),
			...refunds
				.filter((r) => Date.parse(r.refundedAt) >= cut)
				.map((r) => `refund:widgetRefunds:${r.id}`),
		];
		const node = trigger({
			include: ['widgetSales', 'widgetRefunds'],
			options: { startFrom: new Date(cut).toISOString() },
		});
		const { items, error } = await node.poll();
		expect(error).toBeUndefined();
		expect(keys(items).sort()).toEqual(expected.sort());
		const times = items.map((item) => Date.parse(String(item.json.occurredAt)));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect((await node.poll()).returnedNull).toBe(true);
	});

	it('Start From without an offset is read in the workflow time zone', async () => {
		await sell();
		await sb.advanceClock(MINUTE);
		const target = await sell();
		// The sale's moment as a wall-clock time in New York (n8n's default zone, the harness
		// workflow's), without an offset.
		const wall = new Date(Date.parse(target.payAt))
			.toLocaleString('sv-SE', { timeZone: 'America/New_York' })
			.replace(' ', 'T');
		const { items, error } = await trigger({
			include: ['widgetSales'],
			options: { startFrom: wall },
		}).poll();
		expect(error).toBeUndefined();
		expect(keys(items)).toEqual([`sale:widgetSales:${target.id}`]);
	});

	it(
		'manual mode returns the newest record as a sample and leaves ' + 'the state as it was',
		async () => {
			const node = trigger();
			await node.poll();
			const saved = node.staticData;
			await sb.advanceClock(MINUTE);
			const newest = await sell();

			const manual = await node.poll({ mode: 'manual' });

			expect(manual.error).toBeUndefined();
			expect(keys(manual.items)).toEqual([`sale:widgetSales:${newest.id}`]);
			expect(manual.changed).toBe(false);
			expect(node.staticData).toBe(saved);
			// The sale is still new to the active trigger.
			expect(keys((await node.poll()).items)).toEqual([`sale:widgetSales:${newest.id}`]);
		},
	);

	it('bad parameters fail before any request, naming the field', async () => {
		const cases: Array<[IDataObject, RegExp]> = [
			[{ include: [] }, /^Include: choose at least one/],
			[
				{ include: ['eventOrders'], eventScope: 'chosen', eventIds: ['abc'] },
				/^Event Names or IDs: expected numeric event IDs/,
			],
			[
				{ include: ['eventOrders'], eventScope: 'chosen', eventIds: [] },
				/^Event Names or IDs: choose at least one event/,
			],
			[{ options: { startFrom: 'next tuesday' } }, /^Start From: expected a date and time/],
			[{ options: { overlapMinutes: -1 } }, /^Overlap Window \(Minutes\): expected a number/],
		];
		for (const [parameters, message] of cases) {
			const before = await mark(sb);
			const result = await trigger(parameters).poll();
			expect(result.error?.message).toMatch(message);
			expect(await since(sb, before)).toEqual([]);
		}
	});
	it(
		"version 1 (workflows saved before 1.1) keeps the record's " +
			"own id fields beside the header's",
		async () => {
			const node = new PollSession({
				nodeType: new PublicEventsPollTrigger(),
				type: 'CUSTOM.publicEventsPollTrigger',
				typeVersion: 1,
				parameters: { include: ['widgetSales', 'widgetRefunds'] },
				credentials: credentialFor(sb).store,
			});
			await node.poll();
			await sb.advanceClock(MINUTE);
			const sale = await sell();
			const refunded = await refund(sale.id);
			const [saleItem, refundItem] = (await node.poll()).items.map((item) => item.json);
			expect(saleItem).toMatchObject({
				orderId: String(sale.id),
				id: sale.id,
				eventPoint: sale.eventPoint,
			});
			expect(refundItem).toMatchObject({
				orderId: String(sale.id),
				id: refunded.id,
				order: sale.id,
			});
			expect(refundItem).not.toHaveProperty('refundId');
		},
	);
});
