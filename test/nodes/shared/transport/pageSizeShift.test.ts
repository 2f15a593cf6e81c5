/**
 * A service whose page size is not the same on every answer (a rolling deploy: one replica caps
 * itemsPerPage at 50, the next honours 100): the pages after a short page 1 are asked in its
 * size, so none is skipped (outside review: page 2 asked for 100 was items 101-200, and items
 * 51-100 were never read, without an error).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';

import { PublicEventsApi } from '../../../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../../../harness/engine';
import { CREDENTIAL, runPublicEvents } from '../../../../harness/nodes/publicEvents';

const DAY = 86_400_000;
const events = Array.from({ length: 120 }, (_, i) => ({
	id: 1000 + i,
	eventId: 5000 + i,
	eventName: `Event ${i}`,
	dateStarted: new Date(Date.now() + (i + 1) * DAY).toISOString(),
	dateEnd: new Date(Date.now() + (i + 1) * DAY + 3_600_000).toISOString(),
	dateEndOfSale: new Date(Date.now() + (i + 1) * DAY).toISOString(),
	countAvailableTickets: 10,
}));

let server: Server;
let url = '';
let listRequests = 0;
const asked: string[] = [];

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
			listRequests++;
			asked.push(u.search);
			const page = Number(u.searchParams.get('page') ?? 1);
			const per = Number(u.searchParams.get('itemsPerPage') ?? 30);
			// The first answer comes from a replica capping pages at 50; later ones honour 100.
			const size = listRequests === 1 ? Math.min(per, 50) : per;
			return send(200, {
				'hydra:member': events.slice((page - 1) * size, page * size),
				'hydra:totalItems': events.length,
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

it('Event > Get Many, Return All: every one of the 120 events, or an error', async () => {
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
	const got = items.length;
	// Either all 120 came back, or the run failed saying the read is incomplete.
	expect({ got, complete: got === 120 || error !== undefined, requests: asked }).toMatchObject({
		complete: true,
	});
});
