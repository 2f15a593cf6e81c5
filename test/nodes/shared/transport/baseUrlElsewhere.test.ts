/**
 * A Base URL that points at another site: a web page answering POST /token with a 4xx says the
 * address does not answer as the Public Events API and to check the Base URL; a 5xx page says the
 * service may be down or the address not the API's. (Outside review: only 404, 405 and 410 said
 * so.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { PublicEventsApi } from '../../../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../../../harness/engine';
import { CREDENTIAL, runPublicEvents } from '../../../../harness/nodes/publicEvents';

let server: Server;
let url: string;
let status = 400;
let body = '';
let type = 'text/html';
beforeAll(async () => {
	server = createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			res.writeHead(status, { 'content-type': type });
			res.end(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

const run = async () => {
	const store = new CredentialStore([new PublicEventsApi()]);
	store.add(CREDENTIAL, { environment: 'staging', baseUrl: url, apiKey: 'key_live_5f4e3d2c1b0a' });
	const { error } = await runPublicEvents(store, {
		resource: 'event',
		operation: 'getMany',
		limit: 1,
	});
	return error?.message ?? '';
};

describe('a Base URL that points at another site', () => {
	it.each([
		[
			'400 Bad Request (HTML)',
			400,
			'<html><body>Bad Request</body></html>',
			new RegExp(
				'answered 400 with a web page: this address does not answer as the Public Events API ' +
					'.*Check the Base URL',
			),
		],
		[
			'500 (an app crashing on the body)',
			500,
			'<h1>Internal Server Error</h1>',
			/failed with status 500 .*web page: the service may be down, or the Base URL may not be/,
		],
	])('POST /token answered %s: the message says what to check', async (_, s, b, expected) => {
		status = s;
		body = b;
		type = 'text/html';
		expect(await run()).toMatch(expected);
	});
});
