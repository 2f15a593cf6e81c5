import type { SandboxInit } from '../../sandbox';
import { SandboxClient } from './client';

/**
 * One sandbox for the suite or describe block it is called in: started in beforeAll, stopped in
 * afterAll. The accessor reads it lazily.
 */
export function sandboxSuite(init: SandboxInit = {}) {
	let sb: SandboxClient;
	beforeAll(async () => {
		sb = await SandboxClient.start(init);
	});
	afterAll(() => sb.stop());
	return () => sb;
}

/**
 * A sandbox of `events` public events of `placesPerEvent` places and nothing else (no private,
 * archived or widget ones) unless `more` adds it.
 */
export const onlyEvents = (
	events: number,
	placesPerEvent: number,
	more: SandboxInit = {},
): SandboxInit => ({
	events,
	placesPerEvent,
	privateEvents: 0,
	archivedEvents: 0,
	widgetOrders: 0,
	...more,
});
