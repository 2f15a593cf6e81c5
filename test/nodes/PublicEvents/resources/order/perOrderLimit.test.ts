/**
 * Hold Best Available's memory of a per-order limit the service stated (holdRefusals.ts): found
 * by an outside review when it was kept an hour per credential id and event.
 *
 * Invariant: a hold the service at the credential's CURRENT Base URL and key would accept is sent
 * (never refused by the node from a memory of another service/key or of a limit since raised);
 * a 422 is called a per-order limit only when it could be one (the hold asked for more than it).
 */
import type { IDataObject } from 'n8n-workflow';

import { SandboxClient } from '../../../../../harness/sandbox/client';
import { onlyEvents } from '../../../../../harness/sandbox/suite';
import {
	byId,
	credentialFor,
	mark,
	runPublicEvents,
	since,
	CREDENTIAL,
} from '../../../../../harness/nodes/publicEvents';

let staging: SandboxClient;
let production: SandboxClient;

beforeAll(async () => {
	staging = await SandboxClient.start(
		onlyEvents(2, 40, { limits: { ticketsPerOrder: 4, reservedPerAccount: 100 } }),
	);
	production = await SandboxClient.start(
		onlyEvents(2, 40, { limits: { ticketsPerOrder: 10, reservedPerAccount: 100 } }),
	);
});
afterAll(async () => {
	await staging?.stop();
	await production?.stop();
});

const hold = (store: Parameters<typeof runPublicEvents>[0], eventId: number, quantity: number) =>
	runPublicEvents(store, {
		resource: 'order',
		operation: 'holdBestAvailable',
		eventId: byId(eventId),
		quantity,
	} as never);

const orderPosts = async (sb: SandboxClient, from: number) =>
	(await since(sb, from)).filter((e) => e.method === 'POST' && e.route === '/orders');

async function release(sb: SandboxClient, items: Array<{ json: IDataObject }>) {
	for (const { json } of items)
		await sb.call('PUT', `/orders/${String(json.id)}/status`, {
			token: await sb.token('partner'),
			body: { toStatus: 'expired' },
		});
}

describe('per-order limit memory', () => {
	it(
		'the service raised its per-order limit: a later run asks the service again, and the hold ' +
			'of 6 it now accepts is sent and held',
		async () => {
			const eventId = 1001;
			const { store } = credentialFor(staging);
			const first = await hold(store, eventId, 6);
			expect(first.error?.message).toMatch(/an order may hold at most 4 tickets/);

			// The service's staff raise the limit to 10.
			await staging.admin('PUT', '/config', { limits: { ticketsPerOrder: 10 } });
			try {
				const from = await mark(staging);
				const again = await hold(store, eventId, 6);
				const sent = await orderPosts(staging, from);
				// What should happen: the hold is sent and the service holds 6 places.
				expect({ error: again.error?.message, posts: sent.length }).toEqual({
					error: undefined,
					posts: 1,
				});
				await release(staging, again.items);
			} finally {
				await staging.admin('PUT', '/config', { limits: { ticketsPerOrder: 4 } });
			}
		},
	);

	it(
		'the credential moved from staging to production (Base URL and key edited, same ' +
			"credential): staging's limit of 4 does not stop a hold of 6 production accepts",
		async () => {
			const eventId = 1002;
			const { store, id } = credentialFor(staging);
			const first = await hold(store, eventId, 6);
			expect(first.error?.message).toMatch(/an order may hold at most 4 tickets/);

			// The partner edits the same credential: production's address and key.
			await store.updateCredentials({ id, name: 'x' }, CREDENTIAL, {
				environment: 'production',
				baseUrl: production.sandbox.baseUrl,
				apiKey: production.keys.partner,
			});
			const from = await mark(production);
			const moved = await hold(store, eventId, 6);
			const sent = await orderPosts(production, from);
			expect({ error: moved.error?.message, posts: sent.length }).toEqual({
				error: undefined,
				posts: 1,
			});
			await release(production, moved.items);
		},
	);

	it(
		"an account-limit 422 whose words mention 'in an order' (code reserved_tickets_limit, limit " +
			'40, a hold of 3) is waited out as the account limit, not called a per-order limit',
		async () => {
			const eventId = 1001;
			const { store } = credentialFor(staging);
			await staging.admin('POST', '/faults', {
				kind: 'status',
				status: 422,
				method: 'POST',
				path: '/orders',
				body: {
					code: 'reserved_tickets_limit',
					message:
						'Your company has reached its limit of 40 simultaneously reserved tickets; ' +
						'tickets in an order count until it is paid or its hold ends.',
					limit: 40,
					current: 38,
				},
			});
			try {
				const from = await mark(staging);
				const result = await hold(store, eventId, 3);
				const sent = await orderPosts(staging, from);
				// The account limit clears (the fault is one-shot): waited out, the hold succeeds.
				expect(String(result.error?.message)).not.toMatch(/an order may hold at most 40 tickets/);
				expect({ error: result.error?.message, posts: sent.length }).toEqual({
					error: undefined,
					posts: 2,
				});
				await release(staging, result.items);
			} finally {
				await staging.admin('DELETE', '/faults');
			}
		},
	);
});
