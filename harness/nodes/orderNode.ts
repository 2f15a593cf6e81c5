import type { IDataObject } from 'n8n-workflow';

import { orderHelpers, type Order, type Place } from './orderFixtures';
import { credentialFor, runPublicEvents } from './publicEvents';
import { SandboxClient } from '../sandbox/client';
import { onlyEvents } from '../sandbox/suite';

/** Events 1001 and 1002 are on sale with 40 places each (sandbox seed below). */
export const EVENT = 1001;

export const byId = (value: unknown) => ({ __rl: true, mode: 'id', value });
export const json = (result: { items: Array<{ json: IDataObject }> }) =>
	result.items.map((item) => item.json);

/**
 * One sandbox per suite (started in beforeAll) and the Order resource of the node run through
 * n8n-core against it with one credential. Accessors read the sandbox lazily.
 */
export function orderNodeSuite() {
	let sb: SandboxClient;
	let store: ReturnType<typeof credentialFor>['store'];
	beforeAll(async () => {
		sb = await SandboxClient.start(onlyEvents(3, 40, { limits: { reservedPerAccount: 100 } }));
		store = credentialFor(sb).store;
	});
	afterAll(() => sb.stop());
	const fixtures = orderHelpers(() => sb);

	const order = (
		operation: string,
		parameters: IDataObject = {},
		extra: Parameters<typeof runPublicEvents>[2] = {},
	) => runPublicEvents(store, { resource: 'order', operation, ...parameters } as never, extra);

	/** Creates an order through the node: `count` free places of one sector. */
	async function create(count = 1, parameters: IDataObject = {}, eventId = EVENT) {
		const free = await sb.freePlaces(eventId, count);
		const result = await order('create', {
			eventId: byId(String(eventId)),
			places: byId(free.ids.join(',')),
			priceCategory: free.priceCategory,
			...parameters,
		});
		expect(result.error).toBeUndefined();
		// Create answers without tickets: one item even when split
		expect(result.items).toHaveLength(1);
		return { order: result.items[0].json as unknown as Order, free };
	}

	const madeEvents: number[] = [];
	/** A new event of `places` places (sectors of rows of 20), all free, and its hall plan. */
	async function newEvent(places: number) {
		const { body } = await sb.admin('POST', '/events', { places });
		madeEvents.push(body.id);
		const plan = await sb.getAll<Place>(`/event-points/${body.id}/places`);
		return { id: body.id as number, plan };
	}
	/** Every hold on the events newEvent made released: the account's limit starts empty. */
	async function releaseNewEvents() {
		for (const id of madeEvents.splice(0)) {
			const live = await sb.getAll(`/event-points/${id}/orders`, {
				query: { status: 'reserved_to_time' },
			});
			for (const { id: orderId } of live) await fixtures.setStatus(Number(orderId), 'expired');
		}
	}
	afterEach(releaseNewEvents);

	return {
		sb: () => sb,
		order,
		create,
		newEvent,
		releaseNewEvents,
		...fixtures,
		place: (id: string | number) => fixtures.place(id, EVENT),
		/** The sandbox clock (epoch ms), from its control surface. */
		now: async () => (await sb.admin('POST', '/clock', {})).body.nowMs as number,
	};
}
