import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { credentialFor, runPublicEvents } from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { onlyEvents } from '../../../../harness/sandbox/suite';

/**
 * A service that answers 404 for the order list of an event whose sale has ended (the spec: a key
 * sees the events linked to it and still on sale). A ledger read over All Events reads on: such an
 * event has no orders to read. (Outside review: the 404 failed every Reconcile Table and Get Rows
 * for as long as such an event was in the archive's window.)
 */
let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(2, 60, { archivedEvents: 1 }));
});
afterAll(() => sb.stop());

it('Reconcile Table (All Events) reads on past an archived event whose orders 404', async () => {
	const archived = (await sb.getAll('/event-points-archived')).map((e) => String(e.id));
	expect(archived.length).toBe(1);
	const event = String((await sb.getAll('/event-points'))[0].id);
	await sb.admin('POST', '/widget-orders', { company: 'partner', eventPoint: event, tickets: 1 });
	await sb.admin('POST', '/faults', {
		kind: 'status',
		status: 404,
		path: `/event-points/${archived[0]}/orders`,
		count: 0,
	});
	const { items, error } = await runPublicEvents(
		credentialFor(sb).store,
		{ resource: 'ledger', operation: 'reconcile', lookBackDays: 7 } as INodeParameters,
		{ inputItems: [{}] },
	);
	expect(error?.message).toBeUndefined();
	expect(items.map((i) => (i.json as IDataObject).type)).toEqual(['sale']);
});
