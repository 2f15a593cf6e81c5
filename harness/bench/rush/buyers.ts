/**
 * The rush's buyers: seeded arrival times and quantities, each buyer one POST of
 * `{ eventId, quantity }` to the shop's webhook, waiting for its answer.
 */
export interface Buyer {
	/** ms after the rush starts */
	at: number;
	quantity: number;
}

export type Outcome = 'tickets' | 'soldOut' | 'otherAnswer' | 'noAnswer';

export interface Answer {
	buyer: Buyer;
	/** send to answer (or to giving up) */
	ms: number;
	status: number;
	text: string;
	outcome: Outcome;
	tickets: number;
}

/** mulberry32: the same seed gives every build the same buyers. */
function random(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** `count` buyers arriving uniformly at random over `spreadMs`, asking 1-4 places each. */
export function buyers(count: number, spreadMs: number, seed: number): Buyer[] {
	const next = random(seed);
	return Array.from({ length: count }, () => ({
		at: Math.round(next() * spreadMs),
		quantity: 1 + Math.floor(next() * 4),
	})).sort((a, b) => a.at - b.at);
}

/** Places asked for by the buyers arriving within the busiest `windowMs`. */
export function peakDemand(schedule: Buyer[], windowMs: number): number {
	let peak = 0;
	for (const first of schedule) {
		const asked = schedule
			.filter((b) => b.at >= first.at && b.at < first.at + windowMs)
			.reduce((n, b) => n + b.quantity, 0);
		peak = Math.max(peak, asked);
	}
	return peak;
}

/**
 * Tickets: 200 with as many tickets as asked. Sold out: 409 whose body says so (`soldOut: true`,
 * or a message that begins "Not enough places"). Anything else answered is not a clear answer;
 * no answer is a 5xx, a timeout, an empty body or a broken connection.
 */
export function classify(buyer: Buyer, status: number, text: string): [Outcome, number] {
	let body: { tickets?: unknown[]; soldOut?: unknown; message?: unknown } = {};
	try {
		body = JSON.parse(text) as typeof body;
	} catch {
		// not JSON: no clear answer
	}
	if (status >= 500 || text.trim() === '') return ['noAnswer', 0];
	if (status === 200 && Array.isArray(body.tickets) && body.tickets.length === buyer.quantity)
		return ['tickets', body.tickets.length];
	const message = typeof body.message === 'string' ? body.message : '';
	if (status === 409 && (body.soldOut === true || message.startsWith('Not enough places')))
		return ['soldOut', 0];
	return ['otherAnswer', 0];
}

/**
 * Runs the rush: each buyer at its time posts to the next webhook URL in turn (a balancer's
 * round robin over the webhook processors) and waits up to `timeoutMs` for the answer.
 */
export async function rush(
	schedule: Buyer[],
	eventId: number | string,
	urls: string[],
	timeoutMs: number,
): Promise<Answer[]> {
	const start = performance.now();
	return await Promise.all(
		schedule.map(async (buyer, i): Promise<Answer> => {
			await new Promise((r) => setTimeout(r, Math.max(0, start + buyer.at - performance.now())));
			const sent = performance.now();
			let status = 0;
			let text = '';
			try {
				const res = await fetch(urls[i % urls.length], {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ eventId: String(eventId), quantity: buyer.quantity }),
					signal: AbortSignal.timeout(timeoutMs),
				});
				status = res.status;
				text = await res.text();
			} catch {
				// a timeout or a broken connection: no answer
			}
			const ms = performance.now() - sent;
			const [outcome, tickets] = status ? classify(buyer, status, text) : ['noAnswer' as const, 0];
			return { buyer, ms, status, text, outcome, tickets };
		}),
	);
}

/** Nearest-rank percentile (p in 0..100); NaN for no values. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
