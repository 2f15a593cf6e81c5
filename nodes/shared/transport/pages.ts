/**
 * Default ceiling of the pages in flight. Over a network every page pays its own round trips
 * (n8n's HTTP helpers open a new connection, with a TLS handshake, for each request), so a
 * read of P pages takes about ceil(P / window) x 3 round trips. 8 brings 200 pages at 50 ms from
 * 30 s to under 4 s (npm run bench:wan) while one node run never holds more than 8 requests
 * at the service; on loopback more pages at once gain nothing on two cores.
 */
export const MAX_PAGES_IN_FLIGHT = 8;

/** Pages sent at once when the read starts: the window grows from here while pages answer. */
const FIRST_WINDOW = 2;

/** How a window opens and how far it reaches; pages leave both at their defaults. */
export interface WindowShape {
	/** Sent at once when the run starts; FIRST_WINDOW when absent. */
	start?: number;
	/**
	 * How far past the first result not yet consumed a request may go out; `ceiling` when absent.
	 * Infinity for work that is all needed: a slow one then holds up no other.
	 */
	ahead?: number;
}

type Outcome<T> = { value: T } | { error: unknown };
type Fetch<T> = (page: number, onThrottle: (sentAt: number) => void) => Promise<T>;
type Consume<T> = (page: number, result: T) => boolean;

/**
 * Fetches pages `from`..`last` (`last` may be Infinity) with an adaptive number in flight and
 * hands them to `consume` in page order; `consume` returns false at the last page it needs.
 * The window starts at FIRST_WINDOW and grows by one per page answered (doubling each round
 * trip) up to `ceiling`; a 429 halves it, once per episode, and after the first halving it
 * grows by one per round trip only. No page goes out `ceiling` or more pages ahead of the first
 * one not yet consumed, so fewer than `ceiling` are ever sent past the end.
 * Settles once no request is out, so nothing runs on after the read returns or fails.
 * The one concurrency helper of the nodes: pages, input items and the poll's feeds go through it.
 */
export async function inOrder<T>(
	fetch: Fetch<T>,
	from: number,
	last: number,
	ceiling: number,
	consume: Consume<T>,
	shape: WindowShape = {},
): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const done = (failure?: { error: unknown }) => (failure ? reject(failure.error) : resolve());
		new Run(fetch, consume, { from, last, ceiling, ...shape }, done).pump();
	});
}

/** One inOrder: what is out, what has come back and waits for its turn. */
class Run<T> {
	private readonly max: number;
	private readonly ahead: number;
	private window: number;
	private cutAt = -Infinity;
	private next: number;
	private end: number;
	private due: number;
	private inFlight = 0;
	private failure?: { error: unknown };
	private readonly settled = new Map<number, Outcome<T>>();

	constructor(
		private readonly fetch: Fetch<T>,
		private readonly consume: Consume<T>,
		range: WindowShape & { from: number; last: number; ceiling: number },
		private readonly done: (failure?: { error: unknown }) => void,
	) {
		this.max = Math.max(1, Math.floor(range.ceiling));
		this.window = Math.min(range.start ?? FIRST_WINDOW, this.max);
		this.ahead = range.ahead ?? this.max;
		this.next = this.due = range.from;
		this.end = range.last;
	}

	private readonly onThrottle = (sentAt: number) => {
		// 429s to requests sent before the last halving tell nothing new.
		if (sentAt < this.cutAt) return;
		this.window = Math.max(1, this.window / 2);
		this.cutAt = Date.now();
	};

	/** Hands on what is due, then settles once nothing is out, or sends more. */
	pump(): void {
		this.consumeDue();
		if (this.failure || this.due > this.end) {
			if (this.inFlight === 0) this.done(this.failure);
			return;
		}
		// Never more than `ahead` pages past the one awaited: that bounds the pages past the end.
		while (
			this.inFlight < Math.floor(this.window) &&
			this.next <= this.end &&
			this.next < this.due + this.ahead
		)
			this.send(this.next++);
	}

	private consumeDue(): void {
		try {
			for (
				let outcome = this.settled.get(this.due);
				!this.failure && this.due <= this.end && outcome;
				outcome = this.settled.get(this.due)
			) {
				this.settled.delete(this.due);
				if ('error' in outcome) this.failure = outcome;
				else if (!this.consume(this.due, outcome.value)) this.end = this.due;
				this.due++;
			}
		} catch (error) {
			this.failure = { error };
		}
	}

	private send(page: number): void {
		this.inFlight++;
		void this.fetch(page, this.onThrottle)
			.then(
				(value) => {
					this.settled.set(page, { value });
					const step = this.cutAt > -Infinity ? 1 / this.window : 1;
					this.window = Math.min(this.max, this.window + step);
				},
				(error: unknown) => {
					this.settled.set(page, { error });
				},
			)
			.finally(() => {
				this.inFlight--;
				this.pump();
			});
	}
}
