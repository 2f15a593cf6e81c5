/**
 * What holds for every order operation: extra body fields, the service's limits (422), input
 * checks.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Order } from '../../../../../harness/nodes/orderFixtures';
import { byId, EVENT, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { mark, since } from '../../../../../harness/nodes/publicEvents';

const { sb, order, create, getOrder, setStatus } = orderNodeSuite();

describe('Order: Additional Body Fields (JSON)', () => {
	it(
		'its fields are added to the body: a field the node does not ' +
			'offer, here the promo code, given as an object by expression',
		async () => {
			const promo = await create(1, {
				options: { additionalBodyFields: '={{ { promocode: "WINTER20" } }}' },
			});
			const stored = (await getOrder(promo.order.id)).body as Order & { promocode: string };
			expect(stored.promocode).toBe('WINTER20');
			expect(stored.totalDiscount.amount).toBeCloseTo(stored.tickets![0].price.amount * 0.2, 2);
			await setStatus(promo.order.id, 'expired');
		},
	);

	it(
		'a field the node sets cannot be replaced: the error names ' +
			'the field and the parameter, before any request',
		async () => {
			const { order: created } = await create(1);
			const free = await sb().freePlaces(EVENT, 1);
			const good = {
				eventId: byId(String(EVENT)),
				places: byId(free.ids[0]),
				priceCategory: free.priceCategory,
			};
			const cases: Array<[string, IDataObject, string, string]> = [
				[
					'extendHold',
					{ orderId: String(created.id), reservedMinutes: 15 },
					'{"reservedMinutes": 50}',
					'"reservedMinutes" is set by the node (Hold Minutes)',
				],
				[
					'create',
					good,
					'{"eventPoint": "9/../../../admin?x="}',
					'"eventPoint" is set by the node (Event)',
				],
				// Another spelling of the same field is the same field to many services.
				['create', good, '{"Places": [1]}', '"Places" is set by the node (Places)'],
				[
					'create',
					{ ...good, additionalFields: { promoCode: 'PARTNER10' } },
					'{"promocode": "WINTER20"}',
					'"promocode" is set by the node (Promo Code Name or ID)',
				],
				[
					'addPlace',
					{
						orderId: String(created.id),
						places: byId(free.ids[0]),
						priceCategory: free.priceCategory,
					},
					'{"priceCategory": "1"}',
					'"priceCategory" is set by the node (Price Category Name or ID)',
				],
				[
					'changeStatus',
					{ orderId: String(created.id), toStatus: 'expired' },
					'={{ { toStatus: "paid" } }}',
					'"toStatus" is set by the node (New Status)',
				],
				[
					'changeTicketStatus',
					{ orderId: String(created.id), ticketId: '900001', toStatus: 'refund' },
					'{"toStatus": "sold"}',
					'"toStatus" is set by the node (New Status)',
				],
			];
			const before = await mark(sb());
			for (const [operation, parameters, extra, named] of cases) {
				const { error } = await order(operation, {
					...parameters,
					options: { additionalBodyFields: extra },
				});
				expect([operation, error?.name, error?.message]).toEqual([
					operation,
					'NodeOperationError',
					`Additional Body Fields (JSON): ${named}; change it there`,
				]);
			}
			expect(await since(sb(), before)).toEqual([]);
			expect((await getOrder(created.id)).body.status).toBe('reserved_to_time');
			await setStatus(created.id, 'expired');
		},
	);

	it('a value that is not a JSON object fails before any request, naming the option', async () => {
		const before = await mark(sb());
		for (const value of ['[1, 2]', '{"reservedMinutes": ', '"text"', 'null']) {
			const { error } = await order('extendHold', {
				orderId: '700001',
				options: { additionalBodyFields: value },
			});
			expect(error?.message).toMatch(
				/^Additional Body Fields \(JSON\): (expected a JSON object|not valid JSON)/,
			);
		}
		expect(await since(sb(), before)).toEqual([]);
	});
});

describe('Order: limits of the service (422)', () => {
	afterEach(() =>
		sb().admin('PUT', '/config', { limits: { ticketsPerOrder: 10, reservedPerAccount: 100 } }),
	);

	it(
		'tickets per order: the message shows the limit from the ' +
			'body; continueOnFail makes an error item and goes on',
		async () => {
			await sb().admin('PUT', '/config', { limits: { ticketsPerOrder: 2 } });
			const free = await sb().freePlaces(EVENT, 4);
			const parameters = {
				eventId: byId(String(EVENT)),
				places: byId('={{ $json.places }}'),
				priceCategory: free.priceCategory,
			};
			const stopped = await order('create', parameters, {
				inputItems: [{ places: free.ids.slice(0, 3).join(',') }],
			});
			expect(stopped.error?.message).toMatch(
				/limit of the service was exceeded \(limit 2, current 3\)/,
			);

			const { items, error } = await order('create', parameters, {
				inputItems: [{ places: free.ids.slice(0, 3).join(',') }, { places: free.ids[3] }],
				onError: 'continueRegularOutput',
			});
			expect(error).toBeUndefined();
			expect(items[0].json).toEqual(
				expect.objectContaining({
					httpCode: '422',
					error: expect.stringContaining('(limit 2, current 3)'),
				}),
			);
			expect(items[0].json.body).toEqual(
				expect.objectContaining({ code: 'tickets_per_order_limit', limit: 2 }),
			);
			expect(items[0].pairedItem).toEqual({ item: 0 });
			expect(items[1].json.status).toBe('reserved_to_time');
			expect(items[1].pairedItem).toEqual({ item: 1 });
			await setStatus(Number(items[1].json.id), 'expired');
		},
	);

	it('reserved tickets per account: live holds count; released, they stop counting', async () => {
		const held = sb().app.store.heldTickets(2);
		await sb().admin('PUT', '/config', { limits: { reservedPerAccount: held + 2 } });
		const { order: first } = await create(2);
		const free = await sb().freePlaces(EVENT, 1);
		const parameters = {
			eventId: byId(String(EVENT)),
			places: byId(free.ids[0]),
			priceCategory: free.priceCategory,
		};
		const refused = await order('create', parameters);
		expect(refused.error?.message).toMatch(
			new RegExp(`\\(limit ${held + 2}, current ${held + 2}\\).*Release holds`),
		);
		// The node's own hint, whatever the service says: holds count until paid or released.
		expect(refused.error?.description).toMatch(
			new RegExp(
				'^POST \\/orders answered 422\\. Service said: .*\\. Held ticket' +
					"s count against the account's limit .*Order > Change Status " +
					'> Release Hold$',
			),
		);
		await order('changeStatus', { orderId: String(first.id), toStatus: 'expired' });
		expect((await order('create', parameters)).items[0].json.status).toBe('reserved_to_time');
	});
});

describe('Order: an order the service does not know (404)', () => {
	it('says the order is not found for this key, without the hint about events', async () => {
		const { error } = await order('get', { orderId: '999999' });
		expect(error?.message).toMatch(
			new RegExp(
				"^Order 999999 was not found for this credential's API key\\. " +
					'.*the same Public Events credential',
			),
		);
		expect(error?.message).not.toMatch(/linked to your company|Archived/);
	});
});

describe('Order: input is checked before any request', () => {
	it('ids, places, hold minutes, statuses and dates name the field; nothing is sent', async () => {
		const free = await sb().freePlaces(EVENT, 1);
		const good = {
			eventId: byId(String(EVENT)),
			places: byId(free.ids[0]),
			priceCategory: free.priceCategory,
		};
		const cases: Array<[string, IDataObject, RegExp]> = [
			['get', { orderId: 'ORD-1' }, /^Order ID: expected a numeric ID/],
			['create', { ...good, places: byId('={{ "" }}') }, /^Places: expected at least one ID/],
			['create', { ...good, places: byId('={{ [] }}') }, /^Places: expected at least one ID/],
			[
				'create',
				{ ...good, places: byId(`${free.ids[0]}, A12`) },
				/^Places: expected a numeric ID.*" ?A12"/,
			],
			[
				'create',
				{ ...good, priceCategory: '={{ "" }}' },
				/^Price Category Name or ID: expected a numeric ID/,
			],
			[
				'create',
				{ ...good, reservedMinutes: 0 },
				/^Hold Minutes: expected a whole number of at least 1/,
			],
			[
				'create',
				{ ...good, reservedMinutes: '={{ 1.5 }}' },
				/^Hold Minutes: expected a whole number/,
			],
			[
				'create',
				{ ...good, eventId: byId('={{ $json.missing }}') },
				/^Event: expected a numeric ID/,
			],
			[
				'addPlace',
				{ orderId: '700001', places: byId('={{ [] }}'), priceCategory: free.priceCategory },
				/^Places: expected at least one ID/,
			],
			[
				'extendHold',
				{ orderId: '700001', reservedMinutes: -5 },
				/^Hold Minutes: expected a whole number/,
			],
			[
				'removeTicket',
				{ orderId: '700001', ticketId: 'first' },
				/^Ticket ID: expected a numeric ID/,
			],
			[
				'changeStatus',
				{ orderId: '700001', toStatus: '={{ "" }}' },
				/^New Status: expected a value/,
			],
			[
				'changeTicketStatus',
				{ orderId: '700001', ticketId: '900001', toStatus: ' ' },
				/^New Status: expected a value/,
			],
			['getPaymentData', { orderId: '={{ "" }}' }, /^Order ID: expected a numeric ID/],
			[
				'getManyForEvent',
				{ eventId: byId(String(EVENT)), paid: 'between', paidAfter: 'yesterday' },
				/^Paid After: expected a date/,
			],
			[
				'getManyForEvent',
				{ eventId: byId(String(EVENT)), filters: { payAtAfter: 'yesterday' } },
				/^Paid After \(Kept for Older Workflows\): expected a date/,
			],
		];
		const before = await mark(sb());
		for (const [operation, parameters, message] of cases) {
			const { error } = await order(operation, parameters);
			expect([operation, error?.message]).toEqual([operation, expect.stringMatching(message)]);
			expect((error as unknown as { context?: IDataObject })?.context?.itemIndex).toBe(0);
		}
		expect(await since(sb(), before)).toEqual([]);
	});
});
