import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../nodes/PublicEventsPollTrigger/PublicEventsPollTrigger.node';
import { PollSession, type PollResult } from '../helpers/engine';
import { credentialFor, mark, since } from '../helpers/publicEvents';
import { SandboxClient } from '../helpers/sandboxClient';

const MINUTE = 60_000;
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
	return new PollSession({ nodeType: new PublicEventsPollTrigger(), type: 'CUSTOM.publicEventsPollTrigger', parameters, credentials: credentialFor(sb).store });
}

const keys = (result: PollResult) => {
	expect(result.error).toBeUndefined();
	return result.items.map((item) => `${String(item.json.type)}:${String(item.json.source)}:${String(item.json.id)}`);
};

async function payApiOrder(eventId: number) {
	const place = await sb.freePlace(eventId);
	const hold = (await sb.send('POST', '/orders', { eventPoint: String(eventId), places: [place.id], priceCategory: place.priceCategory })).body;
	return (await sb.send('PUT', `/orders/${hold.id}/status`, { toStatus: 'paid' })).body;
}

const ordersOnly = { include: ['eventOrders'] };
const orderRequests = async (seq: number) => (await since(sb, seq)).filter((e) => e.route === '/event-points/{id}/orders').map((e) => e.path);

describe('Poll Trigger: Event Orders of All Visible Events', () => {
	it('an event that appears later is found at the next list reading, with its sales since the watch began', async () => {
		const node = trigger(ordersOnly);
		await node.poll();
		const created = (await sb.admin('POST', '/events', { name: 'Late addition', places: 10 })).body;
		const early = await payApiOrder(created.id);

		let seq = await mark(sb);
		expect((await node.poll()).returnedNull).toBe(true); // the cached list does not know the event yet
		expect((await since(sb, seq)).filter((e) => e.route === '/event-points')).toHaveLength(0);

		letTimePass(16 * MINUTE);
		const late = await payApiOrder(created.id);
		seq = await mark(sb);
		expect(keys(await node.poll())).toEqual([`sale:eventOrders:${early.id}`, `sale:eventOrders:${late.id}`]);
		expect((await since(sb, seq)).filter((e) => e.route === '/event-points')).toHaveLength(1);
		expect((await node.poll()).returnedNull).toBe(true);
	});

	it('an event that leaves the list is read one last time, then rests; back on sale it resumes without repeats', async () => {
		const node = trigger(ordersOnly);
		await node.poll();
		const [event] = await sb.getAll('/event-points');
		const beforeEnd = await payApiOrder(event.id);
		const clock = Date.parse((await sb.admin('GET', '/state')).body.now);
		await sb.admin('PATCH', `/events/${event.id}`, { dateEndOfSale: new Date(clock - MINUTE).toISOString() });

		letTimePass(16 * MINUTE);
		let seq = await mark(sb);
		expect(keys(await node.poll())).toEqual([`sale:eventOrders:${beforeEnd.id}`]);
		expect(await orderRequests(seq)).toContain(`/event-points/${event.id}/orders`);

		seq = await mark(sb);
		expect((await node.poll()).returnedNull).toBe(true);
		expect(await orderRequests(seq)).not.toContain(`/event-points/${event.id}/orders`);

		await sb.admin('PATCH', `/events/${event.id}`, { dateEndOfSale: new Date(clock + 5 * 24 * 60 * MINUTE).toISOString() });
		const afterReturn = await payApiOrder(event.id);
		letTimePass(16 * MINUTE);
		expect(keys(await node.poll())).toEqual([`sale:eventOrders:${afterReturn.id}`]);
	});

	it('an event unlinked from the company (404) stops being read without failing the poll', async () => {
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

		// Those polls returned null, so n8n saved none of it: after a restart the event is tried once more.
		node.restart();
		seq = await mark(sb);
		const again = await node.poll();
		expect([again.error, again.returnedNull]).toEqual([undefined, true]);
		expect(await orderRequests(seq)).toContain(`/event-points/${gone.id}/orders`);
		seq = await mark(sb);
		await node.poll();
		expect(await orderRequests(seq)).not.toContain(`/event-points/${gone.id}/orders`);
	});
});

describe('Poll Trigger: robustness', () => {
	it('a service that ignores the time filter and the sort: only new records, each once', async () => {
		const node = trigger({ include: ['widgetSales'] });
		await node.poll();
		await sb.advanceClock(MINUTE);
		const fresh = [];
		for (let i = 0; i < 3; i++) fresh.push((await sb.admin('POST', '/widget-orders', {})).body);
		// The whole list, newest first, whatever the query asked for.
		const everything = (await sb.getAll('/widget-orders')).reverse();
		expect(everything.length).toBeGreaterThan(fresh.length);
		await sb.admin('POST', '/faults', { kind: 'status', status: 200, method: 'GET', path: '/widget-orders', count: 2, body: everything });

		expect(keys(await node.poll()).sort()).toEqual(fresh.map((o) => `sale:widgetSales:${o.id}`).sort());
		expect((await node.poll()).returnedNull).toBe(true); // the same whole list again: nothing new
	});

	it('a poll that fails leaves the state as it was; the next one emits what the failed one missed', async () => {
		const node = trigger({ include: ['widgetSales', 'widgetRefunds'], options: { maxRetries: 0 } });
		await node.poll();
		const saved = node.staticData;
		const sale = (await sb.admin('POST', '/widget-orders', {})).body;
		await sb.admin('POST', '/faults', { kind: 'status', status: 503, method: 'GET', path: '/widget-orders-refunds', count: 1 });

		const failed = await node.poll();
		expect(failed.error?.message).toMatch(/503/);
		expect(failed.changed).toBe(false);
		expect(node.staticData).toBe(saved);

		expect(keys(await node.poll())).toEqual([`sale:widgetSales:${sale.id}`]);
	});
});
