import type { IDataObject } from 'n8n-workflow';

import { credentialFor, probeLogged, type LogEntry } from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 12, placesPerEvent: 30 });
	await sb.token();
});
afterAll(() => sb.stop());
afterEach(() => sb.admin('DELETE', '/faults'));

async function probe(parameters: IDataObject) {
	const { store, id } = credentialFor(sb);
	// A token first, so the requests under test are the only ones after the mark.
	const result = await probeLogged(sb, store, parameters);
	const log = result.log.filter((e) => e.route !== '/__sandbox');
	return { ...result, log, token: String(store.data(id).token) };
}

const gaps = (log: LogEntry[]) => log.slice(1).map((entry, i) => entry.at - log[i].at);
const fault = (rule: IDataObject) => sb.admin('POST', '/faults', rule);

describe('429', () => {
	it('waits out Retry-After (seconds) each time, then completes', async () => {
		await fault({ kind: 'status', status: 429, retryAfter: 1, path: '/event-points', count: 2 });
		const { items, error, log } = await probe({ path: '/event-points', allPages: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(12);
		expect(log.map((e) => e.status)).toEqual([429, 429, 200]);
		for (const gap of gaps(log)) expect(gap).toBeGreaterThanOrEqual(1000);
	});

	it('waits out Retry-After as an HTTP date', async () => {
		await fault({
			kind: 'status',
			status: 429,
			retryAfter: { date: 2 },
			path: '/event-points',
			count: 1,
		});
		const { error, log } = await probe({ path: '/event-points' });
		expect(error).toBeUndefined();
		expect(log.map((e) => e.status)).toEqual([429, 200]);
		// The date has whole seconds: "2 s from now" is at least 1 s after the 429.
		expect(gaps(log)[0]).toBeGreaterThanOrEqual(1000);
	});

	it('without Retry-After: growing back-off, then gives up after its bound', async () => {
		await fault({ kind: 'status', status: 429, path: '/event-points', count: 0 });
		const { error, log } = await probe({ path: '/event-points', options: { maxRetries: 2 } });
		expect(log.map((e) => e.status)).toEqual([429, 429, 429]);
		const [first, second] = gaps(log);
		expect(first).toBeGreaterThanOrEqual(250);
		expect(second).toBeGreaterThanOrEqual(500);
		expect(error?.message).toMatch(/kept answering 429.*gave up after 3 tries/);
	});

	it('a Retry-After beyond Max Retry Wait gives up at once instead of sleeping', async () => {
		await fault({ kind: 'status', status: 429, retryAfter: 30, path: '/event-points', count: 0 });
		const started = Date.now();
		const { error, log } = await probe({ path: '/event-points', options: { maxRetryWait: 5 } });
		expect(log).toHaveLength(1);
		expect(Date.now() - started).toBeLessThan(5000);
		expect(error?.message).toMatch(/would pass the Max Retry Wait/);
	});

	it('a POST answered 429 is sent again: the service did not act on it', async () => {
		const place = await sb.freePlace(1001);
		await fault({
			kind: 'status',
			status: 429,
			retryAfter: 1,
			method: 'POST',
			path: '/orders',
			count: 1,
		});
		const body = JSON.stringify({
			eventPoint: '1001',
			places: [place.id],
			priceCategory: place.priceCategory,
		});
		const { items, error, log } = await probe({ method: 'POST', path: '/orders', body });
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('reserved_to_time');
		expect(log.map((e) => `${e.method} ${e.status}`)).toEqual(['POST 429', 'POST 201']);
	});
});

describe('5xx and dropped connections', () => {
	it('a GET is retried after 503s', async () => {
		await fault({ kind: 'status', status: 503, path: '/event-points', count: 2 });
		const { items, error, log } = await probe({ path: '/event-points' });
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		expect(log.map((e) => e.status)).toEqual([503, 503, 200]);
	});

	it('a GET is retried after a dropped connection', async () => {
		await fault({ kind: 'drop', path: '/event-points', count: 1 });
		const { error, log } = await probe({ path: '/event-points' });
		expect(error).toBeUndefined();
		expect(log.map((e) => e.route)).toEqual(['/event-points', '/event-points']);
	});

	it('a POST /orders answered 500 is not repeated', async () => {
		const place = await sb.freePlace(1002);
		await fault({ kind: 'status', status: 500, method: 'POST', path: '/orders', count: 0 });
		const body = JSON.stringify({
			eventPoint: '1002',
			places: [place.id],
			priceCategory: place.priceCategory,
		});
		const { error, log } = await probe({ method: 'POST', path: '/orders', body });
		expect(log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual(['POST /orders 500']);
		expect(error?.message).toMatch(/failed with status 500 after 1 try/);
	});

	it('a POST /orders whose connection dropped after it was applied is not repeated', async () => {
		const place = await sb.freePlace(1002);
		await fault({ kind: 'drop', phase: 'after', method: 'POST', path: '/orders', count: 1 });
		const body = JSON.stringify({
			eventPoint: '1002',
			places: [place.id],
			priceCategory: place.priceCategory,
		});
		const { error, log } = await probe({ method: 'POST', path: '/orders', body });
		expect(log.filter((e) => e.method === 'POST')).toHaveLength(1);
		expect(error?.message).toMatch(/may have been applied.*before sending it again/);
	});
});

describe('answers the node cannot read', () => {
	it.each([
		['an HTML page with status 200', { kind: 'html', status: 200 }, /instead of JSON/],
		['malformed JSON', { kind: 'malformed' }, /instead of JSON/],
		['an empty body', { kind: 'empty' }, /an empty body instead of JSON/],
		[
			'an unknown envelope',
			{ kind: 'status', status: 200, body: { results: [] } },
			/not a list this node can read/,
		],
	])('%s gives a clear error, not a crash', async (_, rule, message) => {
		await fault({ ...rule, path: '/event-points', count: 1 });
		const { error, log } = await probe({ path: '/event-points', allPages: true });
		expect(log).toHaveLength(1);
		expect(error?.message).toMatch(message);
		expect(error?.name).toBe('NodeApiError');
	});
});

describe('error messages per status', () => {
	it('403 on barcodes says to take them from the paid order', async () => {
		const { error } = await probe({ path: '/event-points/1001/barcodes', allPages: true });
		expect(error?.message).toMatch(/only for events your company organises.*Order > Get/);
	});

	it('422 names the limit from the body', async () => {
		await sb.admin('PUT', '/config', { limits: { ticketsPerOrder: 2 } });
		const places = await sb.freePlaces(1004, 3);
		const body = JSON.stringify({
			eventPoint: '1004',
			places: places.ids,
			priceCategory: places.priceCategory,
		});
		const { error } = await probe({ method: 'POST', path: '/orders', body });
		await sb.admin('PUT', '/config', { limits: { ticketsPerOrder: 10 } });
		expect(error?.message).toMatch(/limit of the service was exceeded \(limit 2, current 3\)/);
		expect((error as any).context.body).toEqual(expect.objectContaining({ limit: 2 }));
	});

	it('neither the key nor the token appears anywhere in a failed run', async () => {
		await fault({ kind: 'status', status: 401, path: '/event-points', count: 0 });
		const { error, run, token } = await probe({ path: '/event-points' });
		expect(error?.message).toMatch(/refused the token even after requesting a new one/);
		const everything = JSON.stringify(run) + String(error?.stack) + JSON.stringify(error);
		expect(everything).not.toContain(sb.keys.partner);
		expect(everything).not.toContain(token);
	});
});
