/**
 * Messages that must not send a partner the wrong way (found by an outside review).
 *
 * Invariants:
 * - a 404 about a ticket of an order this credential can read blames the ticket, not the
 *   credential (errors.ts case 404 + subjectOf);
 * - a node run with an empty API Key says "API Key: empty" before any request (the credential
 *   test does, and the field is no longer required);
 * - the credential test's message for a transient answer of the list (503, 429) does not tell
 *   the partner to change a right Base URL;
 * - when the service's token names Production, a passed test does not advise switching to
 *   Staging.
 */
import type { ICredentialTestFunctions } from 'n8n-workflow';

import { orderNodeSuite } from '../../../harness/nodes/orderNode';
import { credentialFor, mark, runPublicEvents, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { onlyEvents } from '../../../harness/sandbox/suite';
import { runCredentialTest } from '../../../harness/engine/credentialTest';
import { publicEventsApiConnection } from '../../../nodes/shared/credentialTests';

const suite = orderNodeSuite();
const { sb, order, create, setStatus } = suite;

describe('404 words', () => {
	it.each(['changeTicketStatus', 'removeTicket'])(
		'%s with a ticket id the order does not have: the message blames the credential',
		async (operation) => {
			const { order: made } = await create(2);
			if (operation === 'changeTicketStatus') await setStatus(made.id, 'paid');
			// Sanity: this credential reads the order.
			const got = await order('get', { orderId: String(made.id) } as never);
			expect(got.error).toBeUndefined();
			const result = await order(operation, {
				orderId: String(made.id),
				ticketId: '999999',
				toStatus: 'refund',
			});
			const message = result.error?.message ?? '';
			// The service said "Ticket 999999 in order N not found"; the order is this key's own.
			expect(message).not.toMatch(/use the same Public Events credential/);
			expect(message).not.toMatch(/seen only with the key of the company that made it/);
		},
	);
});

describe('empty API Key at run time', () => {
	it('names the field before any request, as the credential test does', async () => {
		const { store } = credentialFor(sb(), { apiKey: '' });
		const from = await mark(sb());
		const result = await runPublicEvents(store, {
			resource: 'event',
			operation: 'getMany',
			returnAll: false,
			limit: 1,
		} as never);
		const sent = await since(sb(), from);
		expect({ message: result.error?.message, requests: sent.length }).toEqual({
			message: expect.stringMatching(/API Key/),
			requests: 0,
		});
	});
});

describe('credential test words', () => {
	let staging: SandboxClient;
	beforeAll(async () => {
		staging = await SandboxClient.start(onlyEvents(1, 10));
	});
	afterAll(() => staging.stop());

	it.each([503, 429])(
		'the list answered %i once (the service busy): the message sends the partner to change a ' +
			'right Base URL',
		async (status) => {
			await staging.admin('POST', '/faults', {
				kind: 'status',
				status,
				method: 'GET',
				path: '/event-points',
			});
			const result = await runCredentialTest('publicEventsApi', {
				environment: 'staging',
				baseUrl: staging.sandbox.baseUrl,
				apiKey: staging.keys.partner,
			});
			await staging.admin('DELETE', '/faults');
			expect(result.status).toBe('Error');
			expect(result.message).not.toMatch(/check that the Base URL is the Public Events API/);
		},
	);

	it(
		"the service's token names production, yet the passed test says to set Environment to " +
			'Staging (a production host named like "tickets.test-events.com")',
		async () => {
			const token =
				'eyJhbGciOiJIUzI1NiJ9.' +
				Buffer.from(JSON.stringify({ env: 'production', sub: 7 })).toString('base64url') +
				'.c2ln';
			const context = {
				helpers: {
					request: async (options: { uri: string }) =>
						options.uri.endsWith('/token')
							? { statusCode: 200, body: { token } }
							: { statusCode: 200, body: [{ id: 1 }] },
				},
			} as unknown as ICredentialTestFunctions;
			const result = await publicEventsApiConnection.call(context, {
				id: '1',
				name: 'x',
				type: 'publicEventsApi',
				data: {
					environment: 'production',
					baseUrl: 'https://tickets.test-events.com',
					apiKey: 'pe_live_0123456789abcdef',
				},
			});
			expect(result.status).toBe('OK');
			expect(result.message).not.toMatch(/set Environment to Staging/);
		},
	);
});
