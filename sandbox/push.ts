import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';

import { isoTime, type Clock } from './clock';
import type { PushSettings } from './options';
import { Random } from './random';

export const NOTIFICATION_TYPES = [
	'event.created',
	'event.updated',
	'order.sale',
	'order.refund',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface Subscription {
	id: number;
	companyId: number;
	url: string;
	/** Signs each attempt: `X-Signature: t=<unix seconds>,sha256=<hex HMAC of "<t>.<raw body>">`. */
	secret?: string;
	types?: NotificationType[];
}

export interface Delivery {
	id: number;
	notificationId: string;
	subscriptionId: number;
	url: string;
	type: NotificationType;
	/** The exact bytes sent on every attempt, so a retry carries the same id and body. */
	body: string;
	/** Whether attempts carry `X-Signature` (the secret itself stays inside the notifier). */
	signed: boolean;
	/** dropped: push chaos kept it from ever being sent. */
	state: 'pending' | 'delivered' | 'failed' | 'dropped';
	attempts: Array<{ at: number; status?: number; error?: string }>;
	nextAttemptAt: number;
	/** What push chaos did: held it back `heldMs`, or made it a copy of delivery `copyOf`. */
	chaos?: { heldMs?: number; copyOf?: number };
}

/**
 * `X-Signature` for one attempt, Stripe's layout: the time on the sandbox clock, and the HMAC of
 * `<t>.<body>`, so a receiver can refuse a delivery signed too long ago (a replay) and a moved
 * clock shows as a skewed sender.
 */
export function signAttempt(secret: string, body: string, atMs: number): string {
	const t = Math.floor(atMs / 1000);
	return `t=${t},sha256=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * Pushes notifications at least once, retrying on non-2xx with exponential back-off on the
 * sandbox clock. Each attempt is signed anew with its own time, as senders that sign a time do;
 * the delivery id and the body stay the same.
 */
export class Notifier {
	subscriptions: Subscription[] = [];
	deliveries: Delivery[] = [];
	private notificationSeq = 0;
	private subscriptionSeq = 0;
	private inFlight = new Set<Delivery>();
	/** Deliveries still to attempt, so scheduling never rescans the delivered ones. */
	private pending = new Set<Delivery>();
	private timer?: NodeJS.Timeout;
	private closed = false;
	private readonly idleWaiters: Array<() => void> = [];
	private readonly agent = new Agent({ connections: 16, keepAliveTimeout: 2000 });
	/**
	 * The secret each delivery was published with, so a retry signs alike even if the
	 * subscription is gone; never listed.
	 */
	private readonly secrets = new WeakMap<Delivery, string>();
	/** Draws the fate of each delivery under push chaos; made anew when the seed changes. */
	private chaosRandom?: { seed: number; random: Random };

	constructor(
		private readonly clock: Clock,
		private readonly settings: () => PushSettings,
	) {
		clock.onMove(() => this.kick());
	}

	subscribe(sub: Omit<Subscription, 'id'>): Subscription {
		const full = { ...sub, id: ++this.subscriptionSeq };
		this.subscriptions.push(full);
		return full;
	}

	unsubscribeAll(): void {
		this.subscriptions = [];
	}

	publish(
		companyIds: Iterable<number>,
		type: NotificationType,
		data: Record<string, unknown>,
	): string {
		const id = `ntf_${String(++this.notificationSeq).padStart(8, '0')}`;
		const body = JSON.stringify({ id, type, occurredAt: isoTime(this.clock.now()), data });
		const companies = new Set(companyIds);
		for (const sub of this.subscriptions) {
			if (!companies.has(sub.companyId) || (sub.types && !sub.types.includes(type))) continue;
			const fate = this.fate();
			const delivery = this.add({
				notificationId: id,
				subscriptionId: sub.id,
				url: sub.url,
				type,
				body,
				signed: Boolean(sub.secret),
				state: fate.dropped ? 'dropped' : 'pending',
				attempts: [],
				nextAttemptAt: this.clock.now() + (fate.heldMs ?? 0),
				...(fate.heldMs !== undefined && { chaos: { heldMs: fate.heldMs } }),
			});
			if (sub.secret) this.secrets.set(delivery, sub.secret);
			if (fate.copyHeldMs === undefined) continue;
			const copy = this.add({
				...delivery,
				attempts: [],
				nextAttemptAt: this.clock.now() + fate.copyHeldMs,
				chaos: { heldMs: fate.copyHeldMs, copyOf: delivery.id },
			});
			if (sub.secret) this.secrets.set(copy, sub.secret);
		}
		this.kick();
		return id;
	}

	/** Starts push chaos's draws again from its seed (a test that sets chaos gets a known run). */
	resetChaos(): void {
		this.chaosRandom = undefined;
	}

	private add(fields: Omit<Delivery, 'id'>): Delivery {
		const delivery = { id: this.deliveries.length + 1, ...fields };
		this.deliveries.push(delivery);
		if (delivery.state === 'pending') this.pending.add(delivery);
		return delivery;
	}

	/**
	 * What push chaos does to the next delivery. Five draws each time whatever the shares, so one
	 * seed gives the same fates to the same sequence of deliveries under any shares.
	 */
	private fate(): { dropped: boolean; heldMs?: number; copyHeldMs?: number } {
		const { chaos } = this.settings();
		if (this.chaosRandom?.seed !== chaos.seed)
			this.chaosRandom = { seed: chaos.seed, random: new Random(chaos.seed) };
		const draw = this.chaosRandom.random;
		const [drop, hold, holdShare, copy, copyShare] = [1, 2, 3, 4, 5].map(() => draw.next());
		const holdFor = (share: number) => 1 + Math.round(share * Math.max(0, chaos.holdMs - 1));
		if (drop < chaos.drop) return { dropped: true };
		return {
			dropped: false,
			heldMs: hold < chaos.reorder ? holdFor(holdShare) : undefined,
			copyHeldMs: copy < chaos.duplicate ? holdFor(copyShare) : undefined,
		};
	}

	close(): Promise<void> {
		this.closed = true;
		clearTimeout(this.timer);
		return this.agent.close();
	}

	private kick(): void {
		if (this.closed) return;
		clearTimeout(this.timer);
		const now = this.clock.now();
		let next = Infinity;
		for (const delivery of this.pending) {
			if (this.inFlight.has(delivery)) continue;
			if (delivery.nextAttemptAt <= now) void this.attempt(delivery);
			else next = Math.min(next, delivery.nextAttemptAt);
		}
		if (next === Infinity) return;
		this.timer = setTimeout(() => this.kick(), next - now);
		this.timer.unref();
	}

	private async attempt(delivery: Delivery): Promise<void> {
		this.inFlight.add(delivery);
		const headers: Record<string, string> = {
			'content-type': 'application/json',
			'user-agent': 'public-events-sandbox/2',
			'x-delivery-id': delivery.notificationId,
			'x-delivery-attempt': String(delivery.attempts.length + 1),
		};
		const attempt: Delivery['attempts'][number] = { at: this.clock.now() };
		const secret = this.secrets.get(delivery);
		if (secret) headers['x-signature'] = signAttempt(secret, delivery.body, attempt.at);
		try {
			const { timeoutMs } = this.settings();
			const res = await request(delivery.url, {
				method: 'POST',
				headers,
				body: delivery.body,
				dispatcher: this.agent,
				headersTimeout: timeoutMs,
				bodyTimeout: timeoutMs,
			});
			await res.body.dump();
			attempt.status = res.statusCode;
		} catch (error) {
			attempt.error = (error as Error).message;
		}
		delivery.attempts.push(attempt);
		this.inFlight.delete(delivery);
		if (attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300) {
			delivery.state = 'delivered';
			this.pending.delete(delivery);
		} else {
			const { retryBaseMs, maxAttempts } = this.settings();
			if (delivery.attempts.length >= maxAttempts) {
				delivery.state = 'failed';
				this.pending.delete(delivery);
			} else {
				delivery.nextAttemptAt =
					this.clock.now() + retryBaseMs * 2 ** (delivery.attempts.length - 1);
			}
		}
		this.kick();
		if (this.inFlight.size === 0) this.idleWaiters.splice(0).forEach((done) => done());
	}

	/**
	 * Resolves once no delivery is being sent. A delivery due on the sandbox clock starts as soon
	 * as it is due (at the clock move, or on publish), so a test can wait for this instead of
	 * waiting some time to see that nothing was sent.
	 */
	idle(): Promise<void> {
		return this.inFlight.size === 0
			? Promise.resolve()
			: new Promise((done) => this.idleWaiters.push(done));
	}
}
