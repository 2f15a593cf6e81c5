/**
 * Idempotency Key (Create, Hold Best Available): a buyer's key for one purchase. The first run
 * with it holds; a later run with the same key, at once or later, in this process or (through the
 * workflow's static data, as n8n saves it) in another, gets that order again and holds nothing; the
 * same key for another purchase is refused before any request. Found by an outside round: two
 * identical checkout posts made two paid orders, and running Sell a ticket twice sold two.
 */
import * as workflow from 'n8n-workflow';
import type { IDataObject, INodeType } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { loseTheHoldsAnswer, sent } from '../../../../../harness/nodes/orderWrites';
import { mark, since } from '../../../../../harness/nodes/publicEvents';

const suite = orderNodeSuite();
const { sb, order, newEvent, setStatus } = suite;

const hold = (key: string | undefined, extra: IDataObject = {}, eventId = EVENT) => ({
	eventId: byId(String(eventId)),
	quantity: 1,
	...extra,
	options: key === undefined ? {} : { idempotencyKey: key },
});

/** Runs `write` and returns its outcome with the requests it made, token requests left out. */
async function logged<T>(write: () => Promise<T>) {
	const before = await mark(sb());
	const result = await write();
	const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
	return { result, log };
}

const idOf = (result: { items: Array<{ json: IDataObject }> }) => String(result.items[0].json.id);

describe('Idempotency Key on Hold Best Available', () => {
	it('the same key again: the first order, read afresh and marked repeated; no hold', async () => {
		const first = await order('holdBestAvailable', hold('buyer-1-click'));
		expect(first.error).toBeUndefined();
		const { result: again, log } = await logged(() =>
			order('holdBestAvailable', hold('buyer-1-click')),
		);
		expect(again.error).toBeUndefined();
		expect(idOf(again)).toBe(idOf(first));
		expect(again.items[0].json.idempotency).toEqual({ key: 'buyer-1-click', repeated: true });
		expect(first.items[0].json.idempotency).toBeUndefined();
		expect(log.map((e) => `${e.method} ${e.route}`)).toEqual(['GET /orders/{id}']);
		await setStatus(Number(idOf(first)), 'expired');
	});

	it('two runs at once with one key: one hold, both give its order', async () => {
		const { result, log } = await logged(() =>
			Promise.all([
				order('holdBestAvailable', hold('buyer-2-double')),
				order('holdBestAvailable', hold('buyer-2-double')),
			]),
		);
		expect(sent(log, 'POST', '/orders')).toBe(1);
		expect(result.map(idOf)).toEqual([idOf(result[0]), idOf(result[0])]);
		expect(result.map((r) => r.items[0].json.idempotency !== undefined).sort()).toEqual([
			false,
			true,
		]);
		await setStatus(Number(idOf(result[0])), 'expired');
	});

	it.each([
		['another number of places', { quantity: 2 }],
		['another price', { price: 'any' }],
		['another hold length', { reservedMinutes: 5 }],
	])('the key again for %s: refused, nothing sent', async (_, change) => {
		const first = await order('holdBestAvailable', hold('buyer-3-other'));
		const { result, log } = await logged(() =>
			order('holdBestAvailable', hold('buyer-3-other', change)),
		);
		expect(result.error?.message).toMatch(
			new RegExp(
				`^Refused: the purchase was NOT made\\. Idempotency Key "buyer-3-other" was used for ` +
					`another purchase, order ${idOf(first)} `,
			),
		);
		expect(log).toEqual([]);
		await setStatus(Number(idOf(first)), 'expired');
	});

	it('no key: two runs, two holds (as before)', async () => {
		const { result, log } = await logged(async () => [
			await order('holdBestAvailable', hold(undefined)),
			await order('holdBestAvailable', hold(undefined)),
		]);
		expect(sent(log, 'POST', '/orders')).toBe(2);
		expect(idOf(result[0])).not.toBe(idOf(result[1]));
		for (const r of result) await setStatus(Number(idOf(r)), 'expired');
	});

	it('a first run that held nothing (not enough places) leaves the key free', async () => {
		const other = await newEvent(1);
		const refused = await order('holdBestAvailable', hold('buyer-5', { quantity: 2 }, other.id));
		expect(refused.error?.message).toMatch(/^Not enough places/);
		const { result, log } = await logged(() =>
			order('holdBestAvailable', hold('buyer-5', { quantity: 2 }, other.id)),
		);
		// Read and said again: the key stood for nothing.
		expect(result.error?.message).toMatch(/^Not enough places/);
		expect(log.map((e) => e.route)).toContain('/event-points/{id}/places');
	});

	it('a first run left uncertain: the repeat says so and sends nothing', async () => {
		await loseTheHoldsAnswer(sb());
		const options = { confirmWaitSeconds: 0, maxRetries: 0 };
		const uncertain = (key: string) => ({
			...hold(key),
			options: { ...options, idempotencyKey: key },
		});
		const first = await order('holdBestAvailable', uncertain('buyer-8-lost'));
		expect(first.error?.message).toMatch(/^Uncertain:/);
		const { result, log } = await logged(() =>
			order('holdBestAvailable', uncertain('buyer-8-lost')),
		);
		await sb().admin('DELETE', '/faults');
		expect(result.error?.message).toMatch(
			/^Uncertain: an earlier request with Idempotency Key "buyer-8-lost" may have held places/,
		);
		expect(log).toEqual([]);
	});

	it('a paid order, repeated: its tickets, as the first request was answered', async () => {
		const first = await order('holdBestAvailable', hold('buyer-6-paid'));
		const paid = await order('changeStatus', { orderId: idOf(first), toStatus: 'paid' });
		const again = await order('holdBestAvailable', hold('buyer-6-paid'));
		expect(again.items[0].json.status).toBe('paid');
		expect(again.items[0].json.tickets).toEqual(paid.items[0].json.tickets);
	});

	it('the same key in another process: found in the static data n8n saved', async () => {
		const saved: IDataObject = {};
		const first = await order('holdBestAvailable', hold('buyer-7-restart'), {
			workflowStaticData: saved,
		});
		const { result, log } = await logged(() =>
			order('holdBestAvailable', hold('buyer-7-restart'), {
				nodeType: anotherProcess(),
				workflowStaticData: JSON.parse(JSON.stringify(saved)),
			}),
		);
		expect(idOf(result)).toBe(idOf(first));
		expect(log.map((e) => `${e.method} ${e.route}`)).toEqual(['GET /orders/{id}']);
		await setStatus(Number(idOf(first)), 'expired');
	});
});

describe('Idempotency Key on Create (Sell a ticket run twice)', () => {
	it(
		'the key again with other places (the first ones are held now): the first order, nothing ' +
			'sent; another event under the key is refused',
		async () => {
			const event = await newEvent(4);
			const [one, two] = event.plan;
			const create = (place: string, eventId = event.id) => ({
				eventId: byId(String(eventId)),
				places: byId(place),
				priceCategory: String(one.priceCategories[0].id),
				options: { idempotencyKey: 'sale-1' },
			});
			const first = await order('create', create(String(one.id)));
			const { result, log } = await logged(() => order('create', create(String(two.id))));
			expect(idOf(result)).toBe(idOf(first));
			expect(sent(log, 'POST', '/orders')).toBe(0);
			const other = await newEvent(4);
			const refused = await order('create', create(String(other.plan[0].id), other.id));
			expect(refused.error?.message).toMatch(/^Refused: the purchase was NOT made/);
		},
	);
});

/** The node as another n8n process loads it: its own copy of the package's modules. */
function anotherProcess(): INodeType {
	let node: INodeType | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => workflow);
		const { PublicEvents } = jest.requireActual<
			typeof import('../../../../../nodes/PublicEvents/PublicEvents.node')
		>('../../../../../nodes/PublicEvents/PublicEvents.node');
		node = new PublicEvents();
	});
	return node!;
}
