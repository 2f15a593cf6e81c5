import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import type { Place } from '../../../../../harness/nodes/orderFixtures';
import { expectOutputSchema } from '../../../../../harness/engine/outputSchema';
import { byId, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { mark, since, type LogEntry } from '../../../../../harness/nodes/publicEvents';
import { checkProperty } from '../../../../../harness/props/property';

const suite = orderNodeSuite();
const { sb, order, getOrder, setStatus, newEvent, releaseNewEvents } = suite;

/**
 * Holds places directly (orders of up to 10, the sandbox's per-order limit), as another buyer of
 * the same account would; the first order's id.
 */
async function holdDirectly(eventId: number, places: Place[]) {
	const ids: number[] = [];
	for (let at = 0; at < places.length; at += 10) {
		const res = await sb().send('POST', '/orders', {
			eventPoint: String(eventId),
			places: places.slice(at, at + 10).map((p) => String(p.id)),
			priceCategory: String(places[0].priceCategories[0].id),
		});
		expect(res.status).toBe(201);
		ids.push(res.body.id);
	}
	return ids[0];
}

const hold = (eventId: number, parameters: IDataObject = {}) =>
	order('holdBestAvailable', { eventId: byId(String(eventId)), ...parameters });

/** Said after every "Not enough places" while places are free. */
const PER_ORDER_CAVEAT =
	' The service may also limit the tickets in one order: its refusal names that limit.';
const posts = (log: LogEntry[]) => log.filter((e) => e.method === 'POST' && e.route === '/orders');

/** Waits (polling the sandbox's request log, not a clock) until `count` order POSTs arrived. */
async function postsArrived(from: number, count: number, status?: number) {
	for (let tries = 0; tries < 500; tries++) {
		const seen = posts(await since(sb(), from)).filter(
			(e) => status === undefined || e.status === status,
		);
		if (seen.length >= count) return seen;
		await new Promise((resolve) => setImmediate(resolve));
	}
	throw new Error(`${count} POST /orders did not arrive`);
}

const amount = (p: Place, category: number) =>
	p.priceCategories.find((c) => c.id === category)!.price.amount;

describe('Order: Hold Best Available', () => {
	it('holds the cheapest places, in one row, and says which', async () => {
		const { id, plan } = await newEvent(60);
		const { items, error } = await hold(id, { quantity: 3 });
		expect(error).toBeUndefined();
		const held = items[0].json;
		expect(held).toMatchObject({ status: 'reserved_to_time' });
		expect(held.holdAttempts).toEqual({ conflicts: 0, limitWaits: 0, waitedMs: 0 });
		const places = held.places as IDataObject[];
		expect(places).toHaveLength(3);
		const chosen = plan.filter((p) => places.some((q) => q.id === String(p.id)));
		const category = Number(held.priceCategory);
		const cheapest = Math.min(...plan.flatMap((p) => p.priceCategories.map((c) => c.price.amount)));
		for (const p of chosen) expect(amount(p, category)).toBe(cheapest);
		expect(new Set(chosen.map((p) => `${p.sectorId}/${p.rowName}`)).size).toBe(1);
		const stored = (await getOrder(Number(held.id))).body;
		expect(stored.tickets!.map((t) => String(t.placeId)).sort()).toEqual(
			chosen.map((p) => String(p.id)).sort(),
		);
		expectOutputSchema('order', 'holdBestAvailable', [held]);
		await setStatus(Number(held.id), 'expired');
	});

	it('a sector, a price category and Together in One Row are kept', async () => {
		const { id, plan } = await newEvent(80);
		const sector = plan[plan.length - 1].sectorId;
		const inSector = plan.filter((p) => p.sectorId === sector);
		const category = inSector[0].priceCategories[0].id;
		// row 1 of the sector keeps 2 free places, row 2 all 20: 4 together fit in row 2 only
		await holdDirectly(id, inSector.filter((p) => p.rowName === '1').slice(2));
		const { items, error } = await hold(id, {
			quantity: 4,
			sectorId: byId(String(sector)),
			price: 'category',
			priceCategoryId: String(category),
			together: true,
		});
		expect(error).toBeUndefined();
		const held = items[0].json;
		expect(held.priceCategory).toBe(String(category));
		for (const p of held.places as IDataObject[]) expect(p.rowName).toBe('2');
		const stored = (await getOrder(Number(held.id))).body;
		expect(new Set(stored.tickets!.map((t) => t.priceCategory))).toEqual(new Set([category]));
	});

	it('"Not enough places" says what is left and sends no order', async () => {
		const { id, plan } = await newEvent(40);
		// two free places left, in two rows of two sectors
		const keep = [plan[0].id, plan[39].id];
		await holdDirectly(
			id,
			plan.filter((p) => !keep.includes(p.id) && p.sectorId === plan[0].sectorId),
		);
		await holdDirectly(
			id,
			plan.filter((p) => !keep.includes(p.id) && p.sectorId === plan[39].sectorId),
		);
		const before = await mark(sb());
		const together = await hold(id, { quantity: 2, together: true });
		expect(together.error?.message).toBe(
			'Not enough places: 2 asked together in one row, at most 1 is free that way; ' +
				'2 places are free in all',
		);
		expect(together.error?.description).toBe(
			'Places held by others may come free again when their holds end. Ask for fewer, or ' +
				'turn off Together in One Row.' +
				PER_ORDER_CAVEAT,
		);
		// the shop checkout example reads how many are left from "at most N"
		expect(/at most (\d+)/.exec(together.error?.message ?? '')?.[1]).toBe('1');
		const three = await hold(id, { quantity: 3 });
		expect(three.error?.message).toMatch(/^Not enough places: 3 asked, at most 1 is free that way/);
		// Together is off: the advice does not ask to turn it off.
		expect(three.error?.description).toBe(
			'Places held by others may come free again when their holds end. Ask for fewer.' +
				PER_ORDER_CAVEAT,
		);
		expect(posts(await since(sb(), before))).toEqual([]);
	});

	it('sold out: "Not enough places" says none is free and does not ask for fewer', async () => {
		const { id, plan } = await newEvent(40);
		await holdDirectly(
			id,
			plan.filter((p) => p.sectorId === plan[0].sectorId),
		);
		await holdDirectly(
			id,
			plan.filter((p) => p.sectorId !== plan[0].sectorId),
		);
		const before = await mark(sb());
		const { error } = await hold(id, { quantity: 1 });
		expect(error?.message).toBe('Not enough places: 1 asked, none is free (sold out, or all held)');
		expect(error?.description).toBe(
			'Places held by others may come free again when their holds end: try again later.',
		);
		expect(posts(await since(sb(), before))).toEqual([]);
	});

	/** Seats 1-3 of one row free, the node's first POST held back while a rival takes seat 2. */
	async function raced(parameters: IDataObject) {
		const { id, plan } = await newEvent(40);
		const row = plan.filter((p) => p.sectorId === plan[0].sectorId && p.rowName === '1');
		// the other sector held, and the row past seat 3: any two of seats 1-3 include seat 2
		await holdDirectly(id, row.slice(3));
		await holdDirectly(
			id,
			plan.filter((p) => p.sectorId !== plan[0].sectorId),
		);
		await sb().admin('POST', '/faults', {
			kind: 'latency',
			method: 'POST',
			path: '/orders',
			delayMs: 1500,
		});
		const before = await mark(sb());
		const running = hold(id, { quantity: 2, price: 'any', ...parameters });
		await postsArrived(before, 1);
		await holdDirectly(id, [row[1]]);
		return { row, before, ...(await running) };
	}

	it('a place taken meanwhile (409): picks others and holds them', async () => {
		const { row, before, items, error } = await raced({});
		expect(error).toBeUndefined();
		const held = items[0].json;
		expect((held.holdAttempts as IDataObject).conflicts).toBe(1);
		expect((held.places as IDataObject[]).map((p) => p.id).sort()).toEqual(
			[row[0], row[2]].map((p) => String(p.id)).sort(),
		);
		// one read of the hall plan: the new pick came from it, without the taken seat
		const log = await since(sb(), before);
		expect(posts(log).map((e) => e.status)).toEqual([409, 201, 201]);
		expect(log.filter((e) => e.route === '/event-points/{id}/places')).toHaveLength(1);
	});

	it('with no new picks left, the 409 fails the item and says so', async () => {
		const { before, error } = await raced({ options: { conflictRetries: 0 } });
		expect(error?.message).toMatch(/^Refused: creating an order on event \d+ was NOT applied/);
		expect(error?.message).toContain('picked other places 0 times');
		expect(posts(await since(sb(), before)).map((e) => e.status)).toEqual([409, 201]);
	});

	it('the reserved-tickets limit (422): waits for a hold to end, then holds', async () => {
		const { id, plan } = await newEvent(40);
		await sb().admin('PUT', '/config', { limits: { reservedPerAccount: 6 } });
		try {
			const blocking = await holdDirectly(id, plan.slice(0, 5));
			const before = await mark(sb());
			const running = hold(id, { quantity: 2, options: { limitWaitSeconds: 20 } });
			await postsArrived(before, 1, 422);
			await setStatus(blocking, 'expired');
			const { items, error } = await running;
			expect(error).toBeUndefined();
			const attempts = items[0].json.holdAttempts as IDataObject;
			expect(attempts.limitWaits).toBeGreaterThanOrEqual(1);
			expect(
				posts(await since(sb(), before))
					.map((e) => e.status)
					.slice(-1),
			).toEqual([201]);
			await setStatus(Number(items[0].json.id), 'expired');

			// 0 s: fails at once with the limit named; one request
			const other = await holdDirectly(id, plan.slice(10, 15));
			const once = await mark(sb());
			const refused = await hold(id, { quantity: 2, options: { limitWaitSeconds: 0 } });
			expect(refused.error?.message).toMatch(/^Refused: holding 2 places on event \d+ was NOT/);
			expect(refused.error?.message).toContain("your account's limit of reserved tickets");
			expect(posts(await since(sb(), once))).toHaveLength(1);
			await setStatus(other, 'expired');
		} finally {
			await sb().admin('PUT', '/config', { limits: { reservedPerAccount: 100 } });
		}
	});

	it('a Retry-After on the 422 is honoured; a per-order limit fails at once', async () => {
		const { id } = await newEvent(40);
		await sb().admin('POST', '/faults', {
			kind: 'status',
			status: 422,
			method: 'POST',
			path: '/orders',
			retryAfter: 1,
			body: { code: 'reserved_tickets_limit', message: 'Too many reserved tickets' },
		});
		const before = await mark(sb());
		const { items, error } = await hold(id, { quantity: 1 });
		expect(error).toBeUndefined();
		const sent = posts(await since(sb(), before));
		expect(sent.map((e) => e.status)).toEqual([422, 201]);
		expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(1000);
		expect((items[0].json.holdAttempts as IDataObject).waitedMs).toBe(1000);
		await setStatus(Number(items[0].json.id), 'expired');

		// Two items asking for 11 in one run: the service refuses the first and says its limit; the
		// second is stopped before it is sent, naming Places (within this run only: the service may
		// raise its limit, so a later run asks it again).
		const perOrder = await mark(sb());
		const run = await order(
			'holdBestAvailable',
			{ eventId: byId(String(id)), quantity: 11 },
			{ inputItems: [{}, {}], onError: 'continueRegularOutput' },
		);
		expect(run.items.map((item) => item.json.error)).toEqual([
			`Refused: holding 11 places on event ${id} was NOT applied: an order may hold at most 10 ` +
				"tickets (the service's limit). Ask for 10 or fewer, and hold the rest in another order.",
			expect.stringMatching(
				new RegExp(
					'^Places: an order may hold at most 10 tickets \\(the service said so less than a ' +
						"minute ago, when this run's hold on this event asked for more\\)",
				),
			),
		]);
		expect(posts(await since(sb(), perOrder))).toHaveLength(1);
		const later = await mark(sb());
		expect((await hold(id, { quantity: 11 })).error?.message).toMatch(/^Refused: holding 11/);
		expect(posts(await since(sb(), later))).toHaveLength(1);
		const ten = await hold(id, { quantity: 10 });
		expect(ten.error).toBeUndefined();
		expect((ten.items[0].json.places as IDataObject[]).length).toBe(10);
	});

	it.each([
		['truncated', 'a 201 cut short names the order: held, reported applied'],
		['gzip', 'a 201 that cannot be decoded: accepted, the one order on these places is it'],
	])(
		'a service that applies the hold but mangles its answer (%s), redirecting reads: %s',
		async (kind) => {
			const { id } = await newEvent(40);
			await sb().setQuirks({
				mangleWriteAnswers: kind,
				mangleWriteAnswersCount: 1,
				redirect: 'same-origin',
			} as never);
			try {
				const before = await mark(sb());
				const { items, error } = await hold(id, { quantity: 2 });
				expect(error).toBeUndefined();
				expect(items[0].json.writeCheck).toMatchObject({ outcome: 'applied' });
				const log = await since(sb(), before);
				expect(posts(log)).toHaveLength(1);
				// the hall plan was read through the service's redirect
				expect(log.some((e) => e.method === 'GET' && e.status === 302)).toBe(true);
				// the sandbox read plainly: quirks off
				await sb().setQuirks({} as never);
				const live = await sb().getAll(`/event-points/${id}/orders`, {
					query: { status: 'reserved_to_time' },
				});
				expect(live.map((o) => String(o.id))).toEqual([String(items[0].json.id)]);
			} finally {
				await sb().setQuirks({} as never);
			}
		},
	);

	it.each([
		['html', { mangleWriteAnswers: 'html', mangleWriteAnswersCount: 1 }, undefined],
		['garbage', { mangleWriteAnswers: 'garbage', mangleWriteAnswersCount: 1 }, undefined],
		['the connection dropped after', {}, { kind: 'drop', phase: 'after' }],
	])(
		'a hold applied behind an answer that ties nothing to the request (%s): the order is ' +
			'named, never taken, never sent twice',
		async (_, quirks, rule) => {
			const { id } = await newEvent(40);
			if (rule) await sb().admin('POST', '/faults', { ...rule, method: 'POST', path: '/orders' });
			await sb().setQuirks(quirks as never);
			try {
				const before = await mark(sb());
				const { items, error } = await hold(id, { quantity: 2 });
				await sb().setQuirks({} as never);
				expect(items).toEqual([]);
				expect(posts(await since(sb(), before))).toHaveLength(1);
				const live = await sb().getAll(`/event-points/${id}/orders`, {
					query: { status: 'reserved_to_time' },
				});
				expect(live).toHaveLength(1);
				expect(error?.message).toMatch(/^Uncertain: creating an order on event \d+ may or may not/);
				expect(error?.message).toContain(`order ${String(live[0].id)} (places `);
				expect((error as { context?: IDataObject }).context?.writeCheck).toMatchObject({
					outcome: 'uncertain',
					candidates: [{ id: String(live[0].id), status: 'reserved_to_time' }],
				});
			} finally {
				await sb().setQuirks({} as never);
				await sb().admin('DELETE', '/faults');
			}
		},
	);

	/** A 422 on every POST /orders until cleared. */
	const refuseEvery = (body: IDataObject, retryAfter?: number | { date: number }) =>
		sb().admin('POST', '/faults', {
			kind: 'status',
			status: 422,
			method: 'POST',
			path: '/orders',
			count: 0,
			body,
			...(retryAfter === undefined ? {} : { retryAfter }),
		});
	const LIMIT = { code: 'reserved_tickets_limit', message: 'Too many reserved tickets' };

	it.each([
		['Retry-After: 0', 0],
		['an HTTP date that is not in the future', { date: 0 }],
		['no Retry-After', undefined],
	])(
		'the account limit with %s: Max Wait 0 sends one POST and fails at once; Max Wait 2 s ' +
			'sends at most 3, a second apart, and stops within it',
		async (_, retryAfter) => {
			const { id } = await newEvent(20);
			await refuseEvery(LIMIT, retryAfter);
			try {
				const once = await mark(sb());
				const none = await hold(id, { options: { limitWaitSeconds: 0 } });
				expect(none.error?.message).toMatch(/^Refused: holding 1 place on event \d+ was NOT/);
				expect(posts(await since(sb(), once))).toHaveLength(1);

				const before = await mark(sb());
				const started = Date.now();
				const some = await hold(id, { options: { limitWaitSeconds: 2 } });
				const took = Date.now() - started;
				expect(some.error?.message).toContain('(Max Wait for the Reserved-Tickets Limit: 2 s)');
				const sent = posts(await since(sb(), before));
				expect(sent.length).toBeGreaterThanOrEqual(2);
				expect(sent.length).toBeLessThanOrEqual(3);
				for (let n = 1; n < sent.length; n++)
					expect(sent[n].at - sent[n - 1].at).toBeGreaterThanOrEqual(1000);
				expect(took).toBeLessThan(2000 + 1000);
			} finally {
				await sb().admin('DELETE', '/faults');
			}
		},
	);

	it("a Retry-After date is read on the service's clock, even one behind", async () => {
		const { id } = await newEvent(20);
		// The service's clock 10 minutes behind this one: its dates are all "past" here.
		await sb().advanceClock(-10 * 60_000);
		await sb().admin('POST', '/faults', {
			kind: 'status',
			status: 422,
			method: 'POST',
			path: '/orders',
			body: LIMIT,
			retryAfter: { date: 2 },
		});
		try {
			const before = await mark(sb());
			const { items, error } = await hold(id, { options: { limitWaitSeconds: 10 } });
			expect(error).toBeUndefined();
			expect((items[0].json.holdAttempts as IDataObject).waitedMs).toBe(2000);
			const sent = posts(await since(sb(), before));
			expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(2000);
			await setStatus(Number(items[0].json.id), 'expired');
		} finally {
			await sb().advanceClock(10 * 60_000);
			await sb().admin('DELETE', '/faults');
		}
	});

	it.each([
		['per purchase', { code: 'limit', message: 'At most 10 tickets per purchase' }],
		[
			"API Platform's validation",
			{
				'@type': 'ConstraintViolationList',
				'hydra:title': 'An error occurred',
				'hydra:description': 'places: This collection should contain 10 elements or less.',
				violations: [
					{
						propertyPath: 'places',
						message: 'This collection should contain 10 elements or less.',
					},
				],
			},
		],
		['words the node cannot place', { message: 'Unprocessable: rule 7b' }],
	])(
		"a 422 that is not the account limit (%s): one POST, the service's words, at once",
		async (_, body) => {
			const { id } = await newEvent(20);
			await refuseEvery(body, 0);
			try {
				const before = await mark(sb());
				const { error } = await hold(id, { options: { limitWaitSeconds: 30 } });
				expect(posts(await since(sb(), before))).toHaveLength(1);
				expect(error?.message).toMatch(
					/^Refused: creating an order on event \d+ was NOT applied\. /,
				);
				const fields = body as { message?: string; violations?: Array<{ message: string }> };
				const words = String(fields.message ?? fields.violations?.[0].message);
				expect(error?.message).toContain(words);
				expect(error?.message).toContain("Not waited out: the node waits only on your account's");
			} finally {
				await sb().admin('DELETE', '/faults');
			}
		},
	);
});

/**
 * Invariant: buyers running Hold Best Available at once on one event never share a place; each
 * holds exactly what it asked for in one price category, or is told "Not enough places" only when
 * no price category (and, together, no row) had that many free places by the end (places are only
 * taken here, never freed). Seed 500553456 found that "fewer free places in all" was the wrong
 * bound: 4 free places split over two sectors' price categories cannot make one order of 4.
 */
interface Buyers {
	places: number;
	asks: number[];
	together: boolean;
}

/** Buyers asking for `asks` places at once on a new event of `places`; the conflicts they met. */
async function buyersAtOnce({ places, asks, together }: Buyers): Promise<number> {
	let met = 0;
	const { id } = await newEvent(places);
	const runs = await Promise.all(
		asks.map((quantity) =>
			hold(id, { quantity, together, price: 'any', options: { conflictRetries: 20 } }),
		),
	);
	const plan = await sb().getAll<Place>(`/event-points/${id}/places`);
	const free = plan.filter((p) => p.availableCount > 0);
	// One order holds one price category: what could still be held is the most free places
	// sharing one (and, together, one row).
	const groups = new Map<string, number>();
	for (const p of free)
		for (const c of p.priceCategories) {
			const key = together ? `${c.id}/${p.sectorId}/${p.rowName}` : String(c.id);
			groups.set(key, (groups.get(key) ?? 0) + 1);
		}
	const holdable = Math.max(0, ...groups.values());
	const owner = new Map<string, string>();
	for (const [n, run] of runs.entries()) {
		if (run.error) {
			expect(run.error.message).toMatch(/^Not enough places/);
			expect(holdable).toBeLessThan(asks[n]);
			continue;
		}
		const held = run.items[0].json;
		met += (held.holdAttempts as { conflicts: number }).conflicts;
		const stored = (await getOrder(Number(held.id))).body;
		expect(stored.tickets).toHaveLength(asks[n]);
		expect(new Set(stored.tickets!.map((t) => t.priceCategory)).size).toBe(1);
		for (const t of stored.tickets!) {
			expect(owner.get(String(t.placeId))).toBeUndefined();
			owner.set(String(t.placeId), String(held.id));
		}
	}
	expect(owner.size + free.length).toBe(places);
	await releaseNewEvents();
	return met;
}

it('concurrent buyers: no place held twice, and "not enough" only when it is so', async () => {
	let met = 0;
	await checkProperty(
		'hold best available under contention',
		fc.record({
			places: fc.integer({ min: 4, max: 24 }),
			asks: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 8 }),
			together: fc.boolean(),
		}),
		async (buyers) => {
			met += await buyersAtOnce(buyers);
		},
		12,
	);
	// the cases did compete: some buyer's first pick was taken by another
	expect(met).toBeGreaterThan(0);
	process.stdout.write(`hold best available under contention: ${met} conflicts absorbed\n`);
}, 120_000);

it('kept: 4 free places over two categories are not 4 for one order (seed 500553456)', async () => {
	await buyersAtOnce({ places: 9, asks: [1, 1, 3, 4], together: false });
});
