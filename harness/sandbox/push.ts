/** Shared by the push suites: subscriptions, orders that push, and bounded waits. */
import { createHmac } from 'node:crypto';

import { signAttempt } from '../../sandbox/push';
import type { SandboxClient } from './client';
import { MINUTE } from '../time';

/**
 * The sandbox's first delivery retry (its default retryBaseMs), on its own clock: tests move the
 * clock by it, never wait for it.
 */
export const FIRST_RETRY = MINUTE;

export const SECRET = 'whsec_push_test_3f9a1c';

/** A signature over the body alone, as a sender that signs no time makes it. */
export const sign = (secret: string, raw: string) =>
	`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/**
 * A signature over `<t>.<body>` with t in unix seconds of `atMs` (real now by default), as the
 * sandbox makes it.
 */
export const signAt = (secret: string, raw: string, atMs = Date.now()) =>
	signAttempt(secret, raw, atMs);

/** The unix seconds of a timestamped signature. */
export const signedTime = (header: unknown) => Number(/^t=(\d+),/.exec(String(header))?.[1]);

/** Polls `probe` (`intervalMs` apart, at most `timeoutMs`) until it returns something truthy. */
export async function until<T>(
	probe: () => Promise<T | undefined | false>,
	what: string,
	timeoutMs = 5000,
	intervalMs = 5,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}

/**
 * Waits until the sandbox sends nothing (a delivery wrongly started has then reached its receiver).
 */
export const quiet = (sb: SandboxClient) => sb.app.push.idle();

export async function subscribe(sb: SandboxClient, body: Record<string, unknown>) {
	const res = await sb.admin('POST', '/webhooks', body);
	expect(res.status).toBe(201);
	return res.body as { id: number; companyId: number; signed: boolean; types?: string[] };
}

export async function deliveriesOf(sb: SandboxClient, subscriptionId: number): Promise<any[]> {
	const res = await sb.admin('GET', '/deliveries');
	expect(res.status).toBe(200);
	return (res.body as any[]).filter((d) => d.subscriptionId === subscriptionId);
}

/** A reserved order of the partner on an event with a free place. */
export async function reserveOrder(
	sb: SandboxClient,
): Promise<{ orderId: number; eventId: number }> {
	const events = await sb.get('/event-points', { query: { itemsPerPage: 20 } });
	const event = events.body.find((e: any) => e.countAvailableTickets > 0);
	const place = await sb.freePlace(event.id);
	const order = await sb.send('POST', '/orders', {
		eventPoint: String(event.id),
		places: [place.id],
		priceCategory: place.priceCategory,
	});
	expect(order.status).toBe(201);
	return { orderId: Number(order.body.id), eventId: event.id };
}

export async function payOrder(sb: SandboxClient): Promise<{ orderId: number; eventId: number }> {
	const order = await reserveOrder(sb);
	const paid = await sb.send('PUT', `/orders/${order.orderId}/status`, { toStatus: 'paid' });
	expect(paid.status).toBe(200);
	return order;
}

/** An order of the partner made through the API with `tickets` places, paid: its body. */
export async function paidApiOrder(sb: SandboxClient, tickets: number): Promise<any> {
	const events = (await sb.get('/event-points', { query: { itemsPerPage: 20 } })).body;
	const event = events.find((e: any) => Number(e.countAvailableTickets) >= tickets);
	const places = await sb.freePlaces(Number(event.id), tickets);
	const created = await sb.send('POST', '/orders', {
		eventPoint: String(event.id),
		places: places.ids,
		priceCategory: places.priceCategory,
	});
	expect(created.status).toBe(201);
	const paid = await sb.send('PUT', `/orders/${created.body.id}/status`, { toStatus: 'paid' });
	expect(paid.status).toBe(200);
	return paid.body;
}
