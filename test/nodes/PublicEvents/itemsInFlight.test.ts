import type { IPairedItemData } from 'n8n-workflow';

import { READS_IN_FLIGHT } from '../../../nodes/PublicEvents/router';
import {
	credentialFor,
	fetchToken,
	mark,
	runPublicEvents,
	since,
	type LogEntry,
} from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';

/**
 * Reads across input items go a few at a time, writes one after the other; output order and
 * pairedItem follow the input either way. Each request is held DELAY ms by a latency fault, so
 * the arrival times in the sandbox's log show how many were out at once.
 */
const DELAY = 300;
let sb: SandboxClient;
let visible: string[];

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 12, placesPerEvent: 1 });
	visible = (await sb.getAll('/event-points')).map((e) => String(e.id));
});
afterAll(() => sb.stop());
afterEach(() => sb.admin('DELETE', '/faults'));

/** The most requests that arrived within any span shorter than DELAY: how many were out at once. */
function mostAtOnce(log: LogEntry[]): number {
	const at = log.map((e) => e.at).sort((a, b) => a - b);
	return Math.max(
		...at.map((start, i) => at.slice(i).filter((t) => t - start < DELAY * 0.8).length),
	);
}

it(
	'Event Get for 30 items: several at a time, never more than ' +
		'the window; output in input order with pairedItem',
	async () => {
		const { store } = credentialFor(sb);
		await fetchToken(store);
		const refs = Array.from({ length: 30 }, (_, i) => visible[(i * 5) % visible.length]);
		await sb.admin('POST', '/faults', {
			kind: 'latency',
			delayMs: DELAY,
			method: 'GET',
			path: '/event-points/{id}',
			count: 0,
		});
		const before = await mark(sb);

		const { items, error } = await runPublicEvents(
			store,
			{
				resource: 'event',
				operation: 'get',
				eventId: { __rl: true, mode: 'id', value: '={{ $json.ref }}' },
			},
			{ inputItems: refs.map((ref) => ({ ref })) },
		);

		expect(error).toBeUndefined();
		expect(items.map((item) => String(item.json.id))).toEqual(refs);
		expect(items.map((item) => (item.pairedItem as IPairedItemData).item)).toEqual(
			refs.map((_, i) => i),
		);
		const gets = (await since(sb, before)).filter((e) => e.route === '/event-points/{id}');
		expect(gets).toHaveLength(30);
		// Item 0 alone first: its request arrives a whole delay before item 1's.
		const [first, ...rest] = gets.map((e) => e.at).sort((a, b) => a - b);
		expect(Math.min(...rest) - first).toBeGreaterThanOrEqual(DELAY * 0.9);
		const atOnce = mostAtOnce(gets);
		expect(atOnce).toBeGreaterThan(2);
		expect(atOnce).toBeLessThanOrEqual(READS_IN_FLIGHT);
	},
);

it(
	'Change Status for 4 items (writes): one after the other, in ' +
		'input order, each an error item under continueOnFail',
	async () => {
		const { store } = credentialFor(sb);
		await fetchToken(store);
		await sb.admin('POST', '/faults', {
			kind: 'latency',
			delayMs: DELAY,
			method: 'PUT',
			path: '/orders/{id}/status',
			count: 0,
		});
		const orders = ['999991', '999992', '999993', '999994'];
		const before = await mark(sb);

		const { items, error } = await runPublicEvents(
			store,
			{
				resource: 'order',
				operation: 'changeStatus',
				orderId: '={{ $json.order }}',
				toStatus: 'paid',
			},
			{ inputItems: orders.map((order) => ({ order })), onError: 'continueRegularOutput' },
		);

		expect(error).toBeUndefined();
		expect(items.map((item) => (item.pairedItem as IPairedItemData).item)).toEqual([0, 1, 2, 3]);
		expect(items.every((item) => typeof item.json.error === 'string')).toBe(true);
		const puts = (await since(sb, before)).filter((e) => e.method === 'PUT');
		expect(puts.map((e) => e.path.split('/').at(-2))).toEqual(orders);
		expect(mostAtOnce(puts)).toBe(1);
	},
);
