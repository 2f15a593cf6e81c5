/**
 * A key that made an order answers with it for 24 hours, whatever became of the order: a manual
 * run again with the same Sale reference two hours after a paid sale makes no second order
 * (outside review: keys lived for the hold length and an hour).
 */
import { byId, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';
import { mark, since } from '../../../../../../harness/nodes/publicEvents';

const { sb, order, newEvent } = orderNodeSuite();

afterEach(() => jest.restoreAllMocks());

describe('the life of an Idempotency Key', () => {
	it('the same Sale reference run again 2 hours after its sale: one sale', async () => {
		const event = await newEvent(4);
		const [one, two] = event.plan;
		const create = (place: number) => ({
			eventId: byId(String(event.id)),
			places: byId(String(place)),
			priceCategory: String(one.priceCategories[0].id),
			reservedMinutes: 15,
			options: { idempotencyKey: 'invoice-2024-0042' },
		});
		const first = await order('create', create(one.id));
		expect(first.error).toBeUndefined();
		const orderId = String(first.items[0].json.id);
		const paid = await order('changeStatus', { orderId, toStatus: 'paid' });
		expect(paid.items[0].json.status).toBe('paid');

		// Two hours later (the sandbox's clock moves with Date.now, so its token is still valid).
		const real = Date.now.bind(Date);
		jest.spyOn(Date, 'now').mockImplementation(() => real() + 2 * 60 * 60_000);

		const before = await mark(sb());
		const again = await order('create', create(two.id));
		const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
		expect(again.error).toBeUndefined();
		expect({
			posts: log.filter((e) => e.method === 'POST' && e.route === '/orders').length,
			id: String(again.items[0].json.id),
			repeated: (again.items[0].json.idempotency as { repeated?: boolean } | undefined)?.repeated,
		}).toEqual({ posts: 0, id: orderId, repeated: true });
	});
});
