/**
 * A stated total one more than the list holds (an item deleted between the count and the page) on
 * a service that answers a page past the end with its last page: the list is read to its end, not
 * failed as a service that ignores the page parameter (outside review: a regression of reading on
 * past a short page 1).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';

import { PublicEventsApi } from '../../../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../../../harness/engine';
import { CREDENTIAL, runPublicEvents } from '../../../../harness/nodes/publicEvents';

const DAY = 86_400_000;
const events = Array.from({ length: 30 }, (_, i) => ({
	id: 1000 + i,
	eventId: 5000 + i,
	eventName: `Event ${i}`,
	dateStarted: new Date(Date.now() + (i + 1) * DAY).toISOString(),
	dateEndOfSale: new Date(Date.now() + (i + 1) * DAY).toISOString(),
	countAvailableTickets: 10,
}));

let server: Server;
let url = '';
beforeAll(async () => {
	server = createServer((req, res) => {
		const u = new URL(req.url ?? '/', 'http://x');
		const path = u.pathname.replace(/^\/api\/v2/, '');
		const send = (status: number, body: unknown) => {
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		if (req.method === 'POST' && path === '/token') {
			req.resume();
			return req.on('end', () => send(200, { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig' }));
		}
		if (path === '/event-points') {
			const per = Number(u.searchParams.get('itemsPerPage') ?? 30);
			const last = Math.max(1, Math.ceil(events.length / per));
			const page = Math.min(Number(u.searchParams.get('page') ?? 1), last); // clamps
			return send(200, {
				'hydra:member': events.slice((page - 1) * per, page * per),
				'hydra:totalItems': events.length + 1, // one deleted since it was counted
			});
		}
		return send(404, { message: 'not here' });
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((r) => server.close(r));
});

it('Event > Get Many, Return All: the 30 events, no error', async () => {
	const store = new CredentialStore([new PublicEventsApi()]);
	store.add(CREDENTIAL, {
		environment: 'staging',
		baseUrl: url,
		apiKey: 'key_attack_0123456789abcdef',
	});
	const { items, error } = await runPublicEvents(store, {
		resource: 'event',
		operation: 'getMany',
		returnAll: true,
	} as INodeParameters);
	expect({ got: items.length, error: error?.message }).toEqual({ got: 30, error: undefined });
});
