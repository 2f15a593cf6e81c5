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

type Outcome<T> = { value: T } | { error: unknown };

/**
 * Fetches pages `from`..`last` (`last` may be Infinity) with an adaptive number in flight and
 * hands them to `consume` in page order; `consume` returns false at the last page it needs.
 * The window starts at FIRST_WINDOW and grows by one per page answered (doubling each round
 * trip) up to `ceiling`; a 429 halves it, once per episode, and after the first halving it
 * grows by one per round trip only. No page goes out `ceiling` or more pages ahead of the first
 * one not yet consumed, so fewer than `ceiling` are ever sent past the end.
 * Settles once no request is out, so nothing runs on after the read returns or fails.
 */
export async function inOrder<T>(
	fetch: (page: number, onThrottle: (sentAt: number) => void) => Promise<T>,
	from: number,
	last: number,
	ceiling: number,
	consume: (page: number, result: T) => boolean,
): Promise<void> {
	const max = Math.max(1, Math.floor(ceiling));
	let window = Math.min(FIRST_WINDOW, max);
	let cutAt = -Infinity;
	let next = from;
	let end = last;
	let due = from;
	let inFlight = 0;
	let failure: { error: unknown } | undefined;
	const settled = new Map<number, Outcome<T>>();
	const onThrottle = (sentAt: number) => {
		// 429s to requests sent before the last halving tell nothing new.
		if (sentAt < cutAt) return;
		window = Math.max(1, window / 2);
		cutAt = Date.now();
	};

	await new Promise<void>((resolve, reject) => {
		const pump = () => {
			try {
				for (
					let outcome = settled.get(due);
					!failure && due <= end && outcome;
					outcome = settled.get(due)
				) {
					settled.delete(due);
					if ('error' in outcome) failure = outcome;
					else if (!consume(due, outcome.value)) end = due;
					due++;
				}
			} catch (error) {
				failure = { error };
			}
			if (failure || due > end) {
				if (inFlight > 0) return;
				if (failure) reject(failure.error);
				else resolve();
				return;
			}
			// Never more than `ceiling` pages ahead of the one awaited: that bounds the pages past the
			// end.
			while (inFlight < Math.floor(window) && next <= end && next < due + max) send(next++);
		};
		const send = (page: number) => {
			inFlight++;
			void fetch(page, onThrottle)
				.then(
					(value) => {
						settled.set(page, { value });
						window = Math.min(max, window + (cutAt > -Infinity ? 1 / window : 1));
					},
					(error: unknown) => {
						settled.set(page, { error });
					},
				)
				.finally(() => {
					inFlight--;
					pump();
				});
		};
		pump();
	});
}
