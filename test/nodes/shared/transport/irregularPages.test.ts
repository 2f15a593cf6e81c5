/**
 * Event lists from services that page irregularly (the sandbox pages as asked; these answer as a
 * service may), read with Return All (outside review):
 * - a page size not the same on every answer (a rolling deploy: one replica caps itemsPerPage at
 *   50, the next honours 100): the pages after a short page 1 are asked in its size, so none is
 *   skipped (before: page 2 asked for 100 was items 101-200; 51-100 were never read, no error);
 * - a stated total one more than the list holds (an item deleted between the count and the page)
 *   on a service that answers a page past the end with its last page: read to its end, not failed
 *   as a service that ignores the page parameter.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEventsApi } from '../../../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../../../harness/engine';
import { CREDENTIAL, runPublicEvents } from '../../../../harness/nodes/publicEvents';

const DAY = 86_400_000;
const eventsOf = (count: number) =>
	Array.from({ length: count }, (_, i) => ({
		id: 1000 + i,
		eventId: 5000 + i,
		eventName: `Event ${i}`,
		dateStarted: new Date(Date.now() + (i + 1) * DAY).toISOString(),
		dateEndOfSale: new Date(Date.now() + (i + 1) * DAY).toISOString(),
		countAvailableTickets: 10,
	}));

/** How the service answers GET /event-points: page and size asked, the answer's number. */
let answer: (page: number, per: number, n: number) => IDataObject = () => ({});
let server: Server;
let url = '';
beforeAll(async () => {
	let n = 0;
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
		if (path !== '/event-points') return send(404, { message: 'not here' });
		const page = Number(u.searchParams.get('page') ?? 1);
		return send(200, answer(page, Number(u.searchParams.get('itemsPerPage') ?? 30), ++n));
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((r) => server.close(r));
});

async function getAllEvents() {
	const store = new CredentialStore([new PublicEventsApi()]);
	store.add(CREDENTIAL, { environment: 'staging', baseUrl: url, apiKey: 'key_0123456789abcdef' });
	const { items, error } = await runPublicEvents(store, {
		resource: 'event',
		operation: 'getMany',
		returnAll: true,
	} as INodeParameters);
	return { ids: items.map((item) => item.json.id), error: error?.message };
}

it('a page size that changes after page 1: every one of the 120 events, once', async () => {
	const events = eventsOf(120);
	answer = (page, per, n) => {
		const size = n === 1 ? Math.min(per, 50) : per;
		const member = events.slice((page - 1) * size, page * size);
		return { 'hydra:member': member, 'hydra:totalItems': events.length };
	};
	expect(await getAllEvents()).toEqual({ ids: events.map((e) => e.id), error: undefined });
});

it('a total one too high, the page past the end answered as the last: the 30 events', async () => {
	const events = eventsOf(30);
	answer = (asked, per) => {
		const page = Math.min(asked, Math.max(1, Math.ceil(events.length / per)));
		const member = events.slice((page - 1) * per, page * per);
		return { 'hydra:member': member, 'hydra:totalItems': events.length + 1 };
	};
	expect(await getAllEvents()).toEqual({ ids: events.map((e) => e.id), error: undefined });
});
