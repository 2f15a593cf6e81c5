import { inOrder, MAX_PAGES_IN_FLIGHT } from '../../../../nodes/shared/transport/pages';

/**
 * The window alone, with pages answered by hand (no timers): how many are out at each moment,
 * the order they are consumed in, where it stops.
 */
function harness(ceiling: number, last: number, stopAt = Infinity) {
	const out = new Map<
		number,
		{
			resolve: (v: number) => void;
			reject: (e: unknown) => void;
			throttle: (sentAt: number) => void;
		}
	>();
	const sent: number[] = [];
	const consumed: number[] = [];
	const done = inOrder(
		(page, onThrottle) =>
			new Promise<number>((resolve, reject) => {
				sent.push(page);
				out.set(page, { resolve, reject, throttle: onThrottle });
			}),
		2,
		last,
		ceiling,
		(page, value) => {
			consumed.push(value);
			return page < stopAt;
		},
	);
	const flush = () => new Promise((r) => setImmediate(r));
	const answer = async (page: number) => {
		const p = out.get(page)!;
		out.delete(page);
		p.resolve(page);
		await flush();
	};
	return { out, sent, consumed, done, answer, flush };
}

it(
	'starts with 2, grows by one per answered page up to the ' + 'ceiling, consumes in page order',
	async () => {
		const h = harness(5, 40);
		await h.flush();
		expect([...h.out.keys()]).toEqual([2, 3]);
		await h.answer(3); // out of order: held until 2 comes
		expect(h.consumed).toEqual([]);
		expect(h.out.size).toBe(3);
		await h.answer(2);
		expect(h.consumed).toEqual([2, 3]);
		expect(h.out.size).toBe(4);
		for (let i = 0; i < 10; i++) await h.answer(Math.min(...h.out.keys()));
		expect(h.out.size).toBe(5);
		while (h.out.size > 0) await h.answer(Math.min(...h.out.keys()));
		await h.done;
		expect(h.consumed).toEqual(Array.from({ length: 39 }, (_, i) => i + 2));
		expect(h.sent).toEqual(h.consumed);
	},
);

it(
	'a 429 halves the window once for the requests out together; ' +
		'growth then slows to one per round',
	async () => {
		const h = harness(32, 500);
		for (let i = 0; i < 12; i++) await h.answer(Math.min(...h.out.keys()));
		expect(h.out.size).toBe(14);
		// Three requests out at once answer 429: one halving (to 7), not three (to under 2).
		const sentAt = Date.now() - 1;
		for (const page of [...h.out.keys()].slice(0, 3)) h.out.get(page)!.throttle(sentAt);
		// The 14 out drain; new ones go out only below the halved window.
		for (let i = 0; i < 10; i++) await h.answer(Math.max(...h.out.keys()));
		expect(h.out.size).toBeGreaterThanOrEqual(6);
		expect(h.out.size).toBeLessThanOrEqual(9);
		// After a halving: about one more per window's worth of answers (before: one per answer).
		for (let i = 0; i < 10; i++) await h.answer(Math.min(...h.out.keys()));
		expect(h.out.size).toBeLessThanOrEqual(10);
		h.out.forEach((p) => p.reject(new Error('stop')));
		await expect(h.done).rejects.toThrow('stop');
	},
);

it(
	'stops at the page consume refuses; pages sent past it are ' +
		'fewer than the ceiling and not consumed',
	async () => {
		const h = harness(MAX_PAGES_IN_FLIGHT, Infinity, 20);
		while (h.out.size > 0) await h.answer(Math.min(...h.out.keys()));
		await h.done;
		expect(h.consumed).toEqual(Array.from({ length: 19 }, (_, i) => i + 2));
		expect(h.sent.length - h.consumed.length).toBeLessThan(MAX_PAGES_IN_FLIGHT);
	},
);

it(
	'a failed page fails the read once every request out has ' +
		'settled; pages after it are not consumed',
	async () => {
		const h = harness(4, 30);
		await h.answer(2);
		const [failing, ...others] = [...h.out.keys()].sort((a, b) => a - b);
		h.out.get(failing)!.reject(new Error('page failed'));
		h.out.delete(failing);
		let settled = false;
		void h.done.catch(() => (settled = true));
		await h.flush();
		expect(settled).toBe(false);
		for (const page of others) await h.answer(page);
		await h.flush();
		expect(settled).toBe(true);
		await expect(h.done).rejects.toThrow('page failed');
		expect(h.consumed).toEqual([2]);
		expect(h.out.size).toBe(0);
	},
);

it(
	'a slow page holds the window back: nothing goes out a ' + 'ceiling or more ahead of it',
	async () => {
		const h = harness(4, Infinity, 3);
		await h.flush();
		// Page 2 never answers while the others do.
		for (let i = 0; i < 10 && h.out.size > 1; i++)
			await h.answer(Math.max(...[...h.out.keys()].filter((p) => p !== 2)));
		expect(Math.max(...h.sent)).toBe(5);
		await h.answer(2);
		while (h.out.size > 0) await h.answer(Math.min(...h.out.keys()));
		await h.done;
		expect(h.consumed).toEqual([2, 3]);
		expect(h.sent.length - 2).toBeLessThan(4);
	},
);

it(
	'shaped for work that is all needed (start at the ceiling, no bound ahead): ' +
		'a slow one holds up no other, results still in order',
	async () => {
		const out = new Map<number, (value: number) => void>();
		const consumed: number[] = [];
		const done = inOrder(
			(i) => new Promise<number>((resolve) => out.set(i, resolve)),
			0,
			9,
			3,
			(_, value) => consumed.push(value) > 0,
			{ start: 3, ahead: Infinity },
		);
		const flush = () => new Promise((r) => setImmediate(r));
		const answer = async (i: number) => {
			const resolve = out.get(i)!;
			out.delete(i);
			resolve(i);
			await flush();
		};
		await flush();
		expect([...out.keys()]).toEqual([0, 1, 2]);
		// 0 stays out while the others answer; each answer sends the next one.
		for (let i = 1; i < 10; i++) await answer(i);
		expect([...out.keys()]).toEqual([0]);
		expect(consumed).toEqual([]);
		await answer(0);
		await done;
		expect(consumed).toEqual(Array.from({ length: 10 }, (_, i) => i));
	},
);
