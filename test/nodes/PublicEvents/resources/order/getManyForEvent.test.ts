import { MINUTE } from '../../../../../harness/time';
import { byId, json, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { mark, since } from '../../../../../harness/nodes/publicEvents';

const { sb, order, create, getOrder, setStatus, ms } = orderNodeSuite();

describe('Order: Get Many for Event', () => {
	it(
		'filters by status (several) and payAt[after], as the spec ' + 'names them; Return All / Limit',
		async () => {
			const eventId = 1002;
			const paid = (await create(1, {}, eventId)).order;
			await setStatus(paid.id, 'paid');
			const held = (await create(1, {}, eventId)).order;
			const released = (await create(1, {}, eventId)).order;
			await setStatus(released.id, 'expired');
			const event = byId(String(eventId));

			const before = await mark(sb());
			const some = await order('getManyForEvent', {
				eventId: event,
				returnAll: true,
				filters: { status: ['paid', 'expired'] },
			});
			expect(some.error).toBeUndefined();
			expect(json(some).map((o) => o.id)).toEqual([paid.id, released.id]);
			const [request] = (await since(sb(), before)).filter(
				(e) => e.route === '/event-points/{id}/orders',
			);
			expect(new URLSearchParams(request.query).getAll('status[]')).toEqual(['paid', 'expired']);

			const paidOnly = await order('getManyForEvent', {
				eventId: event,
				returnAll: true,
				filters: { status: ['paid'] },
			});
			expect(json(paidOnly).map((o) => o.id)).toEqual([paid.id]);
			const [single] = (await since(sb(), before))
				.filter((e) => e.route === '/event-points/{id}/orders')
				.slice(1);
			expect(new URLSearchParams(single.query).getAll('status')).toEqual(['paid']);

			const all = await order('getManyForEvent', { eventId: event, returnAll: true });
			expect(json(all).map((o) => o.id)).toEqual([paid.id, held.id, released.id]);
			expect(json(all).every((o) => o.tickets === undefined)).toBe(true);
			const one = await order('getManyForEvent', { eventId: event, returnAll: false, limit: 1 });
			expect(json(one).map((o) => o.id)).toEqual([paid.id]);

			const paidAt = ms((await getOrder(paid.id)).body.payAt!);
			const after = await order('getManyForEvent', {
				eventId: event,
				returnAll: true,
				filters: { payAtAfter: new Date(paidAt - MINUTE).toISOString() },
			});
			expect(json(after).map((o) => o.id)).toEqual([paid.id]);
			const later = await order('getManyForEvent', {
				eventId: event,
				returnAll: true,
				filters: { payAtAfter: new Date(paidAt + MINUTE).toISOString() },
			});
			expect(json(later)).toEqual([]);
			const byDay = await order('getManyForEvent', {
				eventId: event,
				returnAll: true,
				filters: { payAtAfter: '2000-01-01', status: '={{ "paid,refund" }}' },
			});
			expect(json(byDay).map((o) => o.id)).toEqual([paid.id]);
			await setStatus(held.id, 'expired');
		},
	);
});
