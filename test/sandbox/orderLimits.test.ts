import { SandboxClient } from '../../harness/sandbox/client';
import { MINUTE } from '../../harness/time';

interface Order {
	id: number;
	status: string;
	tickets?: Array<{ ticketId: number; placeId: number }>;
}
interface Place {
	id: number;
	sectorId: number;
	availableCount: number;
	priceCategories: Array<{ id: number }>;
}
interface Violation {
	propertyPath: string;
	message: string;
}
interface ErrorBody {
	code: string;
	message: string;
	limit?: number;
	current?: number;
	places?: string[];
	violations?: Violation[];
}

/** On sale and linked to both seeded companies. */
const EVENT = 1002;
const OTHER_EVENT = 1005;
const SOLD_OUT = 1003;
const DEFAULT_LIMITS = { ticketsPerOrder: 10, reservedPerAccount: 40 };

describe('sandbox orders: limits, conflicts and validation', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start()));
	afterAll(() => sb.stop());
	afterEach(async () => {
		// Every test starts with the default limits and no live holds.
		expect((await sb.admin('PUT', '/config', { limits: DEFAULT_LIMITS })).status).toBe(200);
		await sb.advanceClock(16 * MINUTE);
	});

	const create = (body: unknown) => sb.send<Order & ErrorBody>('POST', '/orders', body);
	/** An order for all the free places `p` found. */
	const createFor = (p: { ids: string[]; priceCategory: string }, eventId = EVENT) =>
		create({ eventPoint: String(eventId), places: p.ids, priceCategory: p.priceCategory });
	const setStatus = (id: number, toStatus: string) =>
		sb.send<Order>('PUT', `/orders/${id}/status`, { toStatus });
	const setLimits = async (limits: Partial<typeof DEFAULT_LIMITS>) =>
		expect((await sb.admin('PUT', '/config', { limits })).status).toBe(200);

	async function hold(ids: string[], priceCategory: string, eventId = EVENT) {
		const res = await create({ eventPoint: String(eventId), places: ids, priceCategory });
		expect(res.status).toBe(201);
		return res.body;
	}

	/** Holds 2 of 3 free places under `limits`, then asks to add the third to the order. */
	async function addThird(limits: Partial<typeof DEFAULT_LIMITS>) {
		await setLimits(limits);
		const p = await sb.freePlaces(EVENT, 3);
		const order = await hold(p.ids.slice(0, 2), p.priceCategory);
		const res = await sb.send<ErrorBody>('PUT', `/orders/${order.id}/add-place`, {
			places: [p.ids[2]],
			priceCategory: p.priceCategory,
		});
		return { p, order, res };
	}

	/** With room for 3 reserved tickets: a hold of 2, and a request for 2 more to send. */
	async function holdTwoOfFour() {
		await setLimits({ reservedPerAccount: 3 });
		const p = await sb.freePlaces(EVENT, 4);
		const first = await hold(p.ids.slice(0, 2), p.priceCategory);
		const second = {
			eventPoint: String(EVENT),
			places: p.ids.slice(2, 4),
			priceCategory: p.priceCategory,
		};
		return { p, first, second };
	}

	async function places(eventId = EVENT): Promise<Place[]> {
		return sb.getAll<Place>(`/event-points/${eventId}/places`);
	}

	/** What a rejected request must leave untouched: availability and the company's orders. */
	async function snapshot() {
		const event = await sb.get<{ countAvailableTickets: number }>(`/event-points/${EVENT}`);
		const orders = await sb.get<Order[]>(`/event-points/${EVENT}/orders`, {
			query: { itemsPerPage: 100 },
		});
		const free = (await places()).filter((p) => p.availableCount > 0).map((p) => p.id);
		return {
			available: event.body.countAvailableTickets,
			orders: orders.body.map((o) => `${o.id}:${o.status}`),
			free,
		};
	}

	const paths = (body: ErrorBody) => (body.violations ?? []).map((v) => v.propertyPath);

	describe('tickets per order', () => {
		it(
			'more places than ticketsPerOrder answers ' + '422 with limit and current, and holds nothing',
			async () => {
				const before = await snapshot();
				const p = await sb.freePlaces(EVENT, 11);
				const res = await createFor(p);
				expect(res.status).toBe(422);
				expect(res.body.limit).toBe(10);
				expect(res.body.current).toBe(11);
				expect(res.body.message).toEqual(expect.any(String));
				expect(await snapshot()).toEqual(before);

				// Exactly the limit is fine.
				const ok = await hold(p.ids.slice(0, 10), p.priceCategory);
				expect(ok.status).toBe('reserved_to_time');
			},
		);

		it(
			'add-place past the per-order limit ' + 'answers 422 and leaves the order as it was',
			async () => {
				const { p, order, res } = await addThird({ ticketsPerOrder: 2 });
				expect(res.status).toBe(422);
				expect(res.body.limit).toBe(2);
				expect(res.body.current).toBe(3);
				const read = await sb.get<Order>(`/orders/${order.id}`);
				expect(read.body.tickets).toHaveLength(2);
				expect((await places()).find((x) => String(x.id) === p.ids[2])!.availableCount).toBe(1);
			},
		);

		it('the per-order limit follows the config: ticketsPerOrder 3 rejects 4 places', async () => {
			await setLimits({ ticketsPerOrder: 3 });
			const p = await sb.freePlaces(EVENT, 4);
			const res = await createFor(p);
			expect(res.status).toBe(422);
			expect(res.body).toMatchObject({ limit: 3, current: 4 });
		});
	});

	describe('reserved tickets on the account', () => {
		it(
			'a hold of 2 then 2 with reservedPerAccount 3: the second answers ' +
				'422 with limit 3 and current 2; releasing the first lets it through',
			async () => {
				const { p, first, second } = await holdTwoOfFour();

				const refused = await create(second);
				expect(refused.status).toBe(422);
				expect(refused.body.limit).toBe(3);
				expect(refused.body.current).toBe(2);
				expect(
					(await places())
						.filter((x) => p.ids.slice(2).includes(String(x.id)))
						.map((x) => x.availableCount),
				).toEqual([1, 1]);

				expect((await setStatus(first.id, 'expired')).body.status).toBe('expired');
				const accepted = await create(second);
				expect(accepted.status).toBe(201);
			},
		);

		it('the same request succeeds once the first hold expires by the clock', async () => {
			const { first, second } = await holdTwoOfFour();
			expect((await create(second)).status).toBe(422);

			await sb.advanceClock(15 * MINUTE + 1000);
			const accepted = await create(second);
			expect(accepted.status).toBe(201);
			expect((await sb.get<Order>(`/orders/${first.id}`)).body.status).toBe('expired');
		});

		it('holds on different events count together; paid orders do not count', async () => {
			await setLimits({ reservedPerAccount: 3 });
			const a = await sb.freePlaces(EVENT, 2);
			const b = await sb.freePlaces(OTHER_EVENT, 2);
			const first = await hold(a.ids, a.priceCategory);
			const refused = await createFor(b, OTHER_EVENT);
			expect(refused.status).toBe(422);
			expect(refused.body).toMatchObject({ limit: 3, current: 2 });

			expect((await setStatus(first.id, 'paid')).body.status).toBe('paid');
			expect((await createFor(b, OTHER_EVENT)).status).toBe(201);
		});

		it('add-place past the account limit answers 422', async () => {
			const { res } = await addThird({ reservedPerAccount: 2 });
			expect(res.status).toBe(422);
			expect(res.body).toMatchObject({ limit: 2, current: 2 });
		});

		it("another company's holds do not count against the partner", async () => {
			await setLimits({ reservedPerAccount: 2 });
			const a = await sb.freePlaces(EVENT, 2, 'organiser');
			const res = await sb.send(
				'POST',
				'/orders',
				{ eventPoint: String(EVENT), places: a.ids, priceCategory: a.priceCategory },
				'organiser',
			);
			expect(res.status).toBe(201);
			const b = await sb.freePlaces(EVENT, 2);
			expect((await createFor(b)).status).toBe(201);
		});
	});

	describe('conflicts', () => {
		it(
			'a place already held answers 409 listing it, ' +
				'and the other places of the request stay free',
			async () => {
				const p = await sb.freePlaces(EVENT, 2);
				await hold([p.ids[0]], p.priceCategory);
				const before = await snapshot();
				const res = await create({
					eventPoint: String(EVENT),
					places: [p.ids[1], p.ids[0]],
					priceCategory: p.priceCategory,
				});
				expect(res.status).toBe(409);
				expect(res.body.places).toEqual([p.ids[0]]);
				expect(res.body.message).toContain(p.ids[0]);
				expect(await snapshot()).toEqual(before);
			},
		);

		it('a sold place answers 409 listing it (paid order, and the sold-out event)', async () => {
			const p = await sb.freePlaces(EVENT, 1);
			const order = await hold(p.ids, p.priceCategory);
			await setStatus(order.id, 'paid');
			const res = await createFor(p);
			expect(res.status).toBe(409);
			expect(res.body.places).toEqual(p.ids);

			const sold = (await places(SOLD_OUT))[0];
			const soldOut = await create({
				eventPoint: String(SOLD_OUT),
				places: [String(sold.id)],
				priceCategory: String(sold.priceCategories[0].id),
			});
			expect(soldOut.status).toBe(409);
			expect(soldOut.body.places).toEqual([String(sold.id)]);
		});

		it('add-place of a held place answers 409', async () => {
			const p = await sb.freePlaces(EVENT, 2);
			const mine = await hold([p.ids[0]], p.priceCategory);
			await hold([p.ids[1]], p.priceCategory);
			const res = await sb.send<ErrorBody>('PUT', `/orders/${mine.id}/add-place`, {
				places: [p.ids[1]],
				priceCategory: p.priceCategory,
			});
			expect(res.status).toBe(409);
			expect(res.body.places).toEqual([p.ids[1]]);
			expect((await sb.get<Order>(`/orders/${mine.id}`)).body.tickets).toHaveLength(1);
		});

		it('the same place twice in one request answers 400 naming places', async () => {
			const before = await snapshot();
			const p = await sb.freePlaces(EVENT, 1);
			const res = await create({
				eventPoint: String(EVENT),
				places: [p.ids[0], p.ids[0]],
				priceCategory: p.priceCategory,
			});
			expect(res.status).toBe(400);
			expect(paths(res.body)).toContain('places');
			expect(await snapshot()).toEqual(before);
		});
	});

	describe('validation: 400 naming the field, nothing changed', () => {
		let free: { ids: string[]; priceCategory: string };
		let foreign: { ids: string[]; priceCategory: string };
		let otherSectorCategory: string;
		beforeAll(async () => {
			free = await sb.freePlaces(EVENT, 1);
			foreign = await sb.freePlaces(OTHER_EVENT, 1);
			const all = await places();
			const sector = all.find((x) => String(x.id) === free.ids[0])!.sectorId;
			otherSectorCategory = String(all.find((x) => x.sectorId !== sector)!.priceCategories[0].id);
		});

		const base = () => ({
			eventPoint: String(EVENT),
			places: free.ids,
			priceCategory: free.priceCategory,
		});
		const cases: Array<[string, () => Record<string, unknown>, string]> = [
			['eventPoint sent as a number', () => ({ ...base(), eventPoint: EVENT }), 'eventPoint'],
			[
				'a place id sent as a number',
				() => ({ ...base(), places: [Number(free.ids[0])] }),
				'places[0]',
			],
			[
				'priceCategory sent as a number',
				() => ({ ...base(), priceCategory: Number(free.priceCategory) }),
				'priceCategory',
			],
			[
				'an IRI as a place id',
				() => ({ ...base(), places: [`/api/v2/places/${free.ids[0]}`] }),
				'places[0]',
			],
			[
				'an IRI as eventPoint',
				() => ({ ...base(), eventPoint: `/api/v2/event-points/${EVENT}` }),
				'eventPoint',
			],
			['empty places', () => ({ ...base(), places: [] }), 'places'],
			['places not an array', () => ({ ...base(), places: free.ids[0] }), 'places'],
			[
				'missing places',
				() => ({ eventPoint: String(EVENT), priceCategory: free.priceCategory }),
				'places',
			],
			[
				'missing eventPoint',
				() => ({ places: free.ids, priceCategory: free.priceCategory }),
				'eventPoint',
			],
			['reservedMinutes 0', () => ({ ...base(), reservedMinutes: 0 }), 'reservedMinutes'],
			['reservedMinutes -5', () => ({ ...base(), reservedMinutes: -5 }), 'reservedMinutes'],
			['reservedMinutes 1.5', () => ({ ...base(), reservedMinutes: 1.5 }), 'reservedMinutes'],
			['reservedMinutes "15"', () => ({ ...base(), reservedMinutes: '15' }), 'reservedMinutes'],
			[
				'missing priceCategory',
				() => ({ eventPoint: String(EVENT), places: free.ids }),
				'priceCategory',
			],
			['a place of another event', () => ({ ...base(), places: foreign.ids }), 'places[0]'],
			[
				'a price category the place does not offer',
				() => ({ ...base(), priceCategory: otherSectorCategory }),
				'priceCategory',
			],
			[
				'a price category of another event',
				() => ({ ...base(), priceCategory: foreign.priceCategory }),
				'priceCategory',
			],
		];

		it.each(cases)('POST /orders with %s', async (_name, body, field) => {
			const before = await snapshot();
			const res = await create(body());
			expect(res.status).toBe(400);
			expect(res.body.code).toBe('validation_failed');
			expect(paths(res.body)).toContain(field);
			expect(await snapshot()).toEqual(before);
		});

		it(
			'a malformed JSON body answers 400 ' + 'invalid_json on POST /orders and PUT status',
			async () => {
				const token = await sb.token();
				const before = await snapshot();
				const res = await sb.api<ErrorBody>('POST', '/orders', {
					token,
					raw: `{"eventPoint": "${EVENT}", "places": [`,
				});
				expect(res.status).toBe(400);
				expect(res.body.code).toBe('invalid_json');
				expect(await snapshot()).toEqual(before);

				const order = await hold(free.ids, free.priceCategory);
				const put = await sb.api<ErrorBody>('PUT', `/orders/${order.id}/status`, {
					token,
					raw: "{toStatus: 'paid'}",
				});
				expect(put.status).toBe(400);
				expect(put.body.code).toBe('invalid_json');
				expect((await sb.get<Order>(`/orders/${order.id}`)).body.status).toBe('reserved_to_time');
			},
		);

		it('add-place and reserve validate their bodies the same way', async () => {
			const order = await hold(free.ids, free.priceCategory);
			const extra = await sb.freePlaces(EVENT, 1);
			const checks: Array<[string, unknown, string]> = [
				[
					'add-place',
					{ places: [Number(extra.ids[0])], priceCategory: extra.priceCategory },
					'places[0]',
				],
				[
					'add-place',
					{ places: [`/api/v2/places/${extra.ids[0]}`], priceCategory: extra.priceCategory },
					'places[0]',
				],
				['add-place', { places: [] as string[], priceCategory: extra.priceCategory }, 'places'],
				['add-place', { places: extra.ids }, 'priceCategory'],
				['add-place', { places: foreign.ids, priceCategory: foreign.priceCategory }, 'places[0]'],
				['reserve', { reservedMinutes: 0 }, 'reservedMinutes'],
				['reserve', { reservedMinutes: 1.5 }, 'reservedMinutes'],
				['reserve', { reservedMinutes: '30' }, 'reservedMinutes'],
			];
			const before = (await sb.get<Order & { reservedToDate: string }>(`/orders/${order.id}`)).body;
			for (const [op, body, field] of checks) {
				const res = await sb.send<ErrorBody>('PUT', `/orders/${order.id}/${op}`, body);
				expect({ op, body, status: res.status }).toEqual({ op, body, status: 400 });
				expect(paths(res.body)).toContain(field);
			}
			const after = (await sb.get<Order & { reservedToDate: string }>(`/orders/${order.id}`)).body;
			expect(after.tickets).toHaveLength(1);
			expect(after.reservedToDate).toBe(before.reservedToDate);
			expect((await places()).find((x) => String(x.id) === extra.ids[0])!.availableCount).toBe(1);
		});

		it('non-numeric path ids answer 400 naming the path parameter', async () => {
			const order = await hold(free.ids, free.priceCategory);
			const checks: Array<[string, string, string]> = [
				['GET', '/orders/abc', 'id'],
				['PUT', '/orders/abc/status', 'id'],
				['GET', '/orders/1.5', 'id'],
				['PUT', `/orders/${order.id}/tickets/abc/remove`, 'ticketId'],
				['PUT', `/orders/${order.id}/tickets/xyz/status`, 'ticketId'],
				['GET', '/event-points/abc/orders', 'id'],
				['GET', '/event-points/abc/places', 'id'],
			];
			const token = await sb.token();
			for (const [method, path, field] of checks) {
				const res = await sb.api<ErrorBody>(method, path, {
					token,
					body: method === 'PUT' ? { toStatus: 'paid' } : undefined,
				});
				expect({ path, status: res.status }).toEqual({ path, status: 400 });
				expect(paths(res.body)).toContain(field);
			}
			const read = await sb.get<Order>(`/orders/${order.id}`);
			expect(read.body.status).toBe('reserved_to_time');
			expect(read.body.tickets).toHaveLength(1);
		});
	});
});
