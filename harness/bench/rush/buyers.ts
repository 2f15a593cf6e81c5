/**
 * The rush's buyers: seeded arrival times and quantities, each buyer POSTing
 * `{ eventId, quantity }` to the shop's webhook and waiting for its answer; after an error it
 * clicks again, a few times, as a shop's front end lets it.
 */
export interface Buyer {
	/** ms after the rush starts */
	at: number;
	quantity: number;
}

export type Outcome = 'tickets' | 'soldOut' | 'otherAnswer' | 'noAnswer';

/** One POST of a buyer's checkout and what came of it. */
export interface Try {
	/** send to answer (or to giving up) */
	ms: number;
	status: number;
	text: string;
	outcome: Outcome;
	tickets: number;
}

/** A buyer's checkout: its tries, the last one's answer as the final one. */
export interface Answer extends Try {
	buyer: Buyer;
	tries: Try[];
	/** from the first click to the final answer, pauses between tries included */
	ms: number;
	/** the final answer's time, ms after the rush started */
	at: number;
}

/** How a buyer behaves: how long it waits for an answer, how often it clicks again. */
export interface BuyerModel {
	/** A try's wait for the answer. */
	timeoutMs: number;
	/** Tries in all (1: never again). */
	tries: number;
	/** The pause before trying again. */
	pauseMs: number;
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

/** One POST of the checkout with `headers`, waiting up to `timeoutMs` for the answer. */
async function checkout(
	url: string,
	buyer: Buyer,
	eventId: number | string,
	timeoutMs: number,
	headers: Record<string, string>,
): Promise<Try> {
	const sent = performance.now();
	let status = 0;
	let text = '';
	try {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
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
	return { ms, status, text, outcome, tickets };
}

/**
 * Runs the rush: each buyer at its time posts to a webhook URL (a balancer's round robin over
 * the webhook processors: buyer i's first try to the i-th, each try again to the next). As a
 * shop's front end does, a buyer whose checkout ends in an error (neither tickets nor a clear
 * sold-out) clicks again after `pauseMs`, up to `tries` in all.
 */
export async function rush(
	schedule: Buyer[],
	eventId: number | string,
	urls: string[],
	model: BuyerModel,
	headers: Record<string, string> = {},
): Promise<Answer[]> {
	const start = performance.now();
	return await Promise.all(
		schedule.map(async (buyer, i): Promise<Answer> => {
			await new Promise((r) => setTimeout(r, Math.max(0, start + buyer.at - performance.now())));
			const clicked = performance.now();
			const tries: Try[] = [];
			for (;;) {
				const url = urls[(i + tries.length) % urls.length];
				const last = await checkout(url, buyer, eventId, model.timeoutMs, headers);
				tries.push(last);
				const answered = last.outcome === 'tickets' || last.outcome === 'soldOut';
				const now = performance.now();
				if (answered || tries.length >= model.tries)
					return { ...last, buyer, tries, ms: now - clicked, at: now - start };
				await new Promise((r) => setTimeout(r, model.pauseMs));
			}
		}),
	);
}

/** Nearest-rank percentile (p in 0..100); NaN for no values. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
