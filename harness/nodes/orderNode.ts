import type { IDataObject } from 'n8n-workflow';

import { orderHelpers, type Order } from './orderFixtures';
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

	return {
		sb: () => sb,
		order,
		create,
		...fixtures,
		place: (id: string | number) => fixtures.place(id, EVENT),
		/** The sandbox clock (epoch ms), from its control surface. */
		now: async () => (await sb.admin('POST', '/clock', {})).body.nowMs as number,
	};
}
