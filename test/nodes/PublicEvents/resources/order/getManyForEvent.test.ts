import type { IDataObject } from 'n8n-workflow';

import { MINUTE } from '../../../../../harness/time';
import { byId, json, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { mark, since } from '../../../../../harness/nodes/publicEvents';

const { sb, order, create, getOrder, setStatus, ms, hold, newEvent } = orderNodeSuite();

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

/** Sets the sandbox clock; tokens asked anew (one issued later on the clock may have expired). */
async function clockAt(iso: string) {
	await sb().admin('POST', '/clock', { set: iso });
	sb().forgetTokens();
}

/** An order of the event paid at `iso` on the sandbox's clock (payAt reads `iso`). */
async function paidAt(eventId: number, iso: string): Promise<number> {
	await clockAt(iso);
	const { order: held } = await hold(1, {}, 'partner', eventId);
	expect((await setStatus(held.id, 'paid')).status).toBe(200);
	return held.id;
}

/** Get Many for Event of `eventId` in the workflow time zone `timezone`: ids and the list query. */
async function listed(
	eventId: number,
	parameters: IDataObject,
	timezone: string,
	extra: { inputItems?: IDataObject[]; onError?: 'continueRegularOutput' } = {},
) {
	const before = await mark(sb());
	const result = await order(
		'getManyForEvent',
		{ eventId: byId(String(eventId)), returnAll: true, ...parameters },
		{ timezone, ...extra },
	);
	const log = await since(sb(), before);
	const lists = log.filter((e) => e.route === '/event-points/{id}/orders');
	return {
		ids: json(result)
			.map((o) => Number(o.id))
			.sort((a, b) => a - b),
		error: result.error,
		items: result.items,
		after: lists.map((e) => new URLSearchParams(e.query).get('payAt[after]')),
		log,
	};
}

const BERLIN = 'Europe/Berlin';

describe('Order: Get Many for Event > Paid, in the workflow time zone (Europe/Berlin here)', () => {
	let eventId: number;
	/** Order ids by name: when each was paid, Berlin time (CEST, +02:00). */
	const o: Record<string, number> = {};
	const NOW = '2026-05-12T10:00:00+02:00';

	beforeAll(async () => {
		await clockAt(NOW);
		eventId = (await newEvent(40)).id;
		const paid: Record<string, string> = {
			march31Last: '2026-03-31T23:59:59+02:00',
			april1: '2026-04-01T00:00:00+02:00',
			april30Last: '2026-04-30T23:59:59+02:00',
			may1: '2026-05-01T00:00:00+02:00',
			may5Last: '2026-05-05T23:59:59+02:00',
			may6: '2026-05-06T00:00:00+02:00',
			may11: '2026-05-11T00:00:00+02:00',
			may11Last: '2026-05-11T23:59:59+02:00',
			may12: '2026-05-12T00:00:00+02:00',
			may12Morning: '2026-05-12T09:59:00+02:00',
		};
		for (const [name, iso] of Object.entries(paid)) o[name] = await paidAt(eventId, iso);
		await clockAt('2026-05-12T09:00:00+02:00');
		o.held = (await hold(1, {}, 'partner', eventId)).order.id;
		await clockAt(NOW);
	});
	afterAll(() => clockAt(new Date().toISOString()));

	const names = (...list: string[]) => list.map((name) => o[name]).sort((a, b) => a - b);

	it.each([
		['today', ['may12', 'may12Morning'], '2026-05-11T22:00:00Z'],
		['yesterday', ['may11', 'may11Last'], '2026-05-10T22:00:00Z'],
		['last7Days', ['may6', 'may11', 'may11Last', 'may12', 'may12Morning'], '2026-05-05T22:00:00Z'],
		[
			'last30Days',
			['april30Last', 'may1', 'may5Last', 'may6', 'may11', 'may11Last', 'may12', 'may12Morning'],
			'2026-04-12T22:00:00Z',
		],
		[
			'thisMonth',
			['may1', 'may5Last', 'may6', 'may11', 'may11Last', 'may12', 'may12Morning'],
			'2026-04-30T22:00:00Z',
		],
		['lastMonth', ['april1', 'april30Last'], '2026-03-31T22:00:00Z'],
	])(
		'%s: the orders paid in it, its start sent, its end kept here (an order paid exactly at ' +
			'the end is left out)',
		async (paid, expected, after) => {
			const got = await listed(eventId, { paid }, BERLIN);
			expect([got.error, got.ids, got.after]).toEqual([undefined, names(...expected), [after]]);
		},
	);

	it('Any Time (the default): every order, paid or not, no time sent', async () => {
		for (const parameters of [{}, { paid: 'anyTime' }]) {
			const got = await listed(eventId, parameters, BERLIN);
			expect([got.ids, got.after]).toEqual([names(...Object.keys(o)), [null]]);
		}
	});

	it.each([
		[
			'a day and a moment: the first included, the second left out',
			{ paidAfter: '2026-05-06', paidBefore: '2026-05-11T00:00:00' },
			['may6'],
			'2026-05-05T22:00:00Z',
		],
		[
			'Paid After only, with an offset',
			{ paidAfter: '2026-05-11T23:59:59+02:00' },
			['may11Last', 'may12', 'may12Morning'],
			'2026-05-11T21:59:59Z',
		],
		[
			'Paid Before only: nothing sent, orders never paid left out',
			{ paidBefore: '2026-04-01' },
			['march31Last'],
			null,
		],
		['both empty: every order, as Any Time', { paidAfter: '', paidBefore: '' }, 'all', null],
	])('Between Dates, %s', async (_, dates, expected, after) => {
		const got = await listed(eventId, { paid: 'between', ...dates }, BERLIN);
		const orders = expected === 'all' ? Object.keys(o) : expected;
		expect([got.error, got.ids, got.after]).toEqual([undefined, names(...orders), [after]]);
	});

	it('the same day in another time zone is another range (UTC: 2 hours later)', async () => {
		const got = await listed(eventId, { paid: 'yesterday' }, 'UTC');
		// 2026-05-11 in UTC: from 02:00 to 02:00 the next day, Berlin time.
		expect([got.ids, got.after]).toEqual([names('may11Last', 'may12'), ['2026-05-11T00:00:00Z']]);
	});

	it('Limit counts the orders in the range; Ledger Rows are theirs', async () => {
		const one = await listed(eventId, { paid: 'yesterday', returnAll: false, limit: 1 }, BERLIN);
		expect(one.ids).toHaveLength(1);
		expect(names('may11', 'may11Last')).toContain(one.ids[0]);
		const rows = await listed(eventId, { paid: 'yesterday', options: { output: 'rows' } }, BERLIN);
		expect(rows.items.map((item) => item.json.key).sort()).toEqual(
			names('may11', 'may11Last').map((id) => `sale:api:${id}`),
		);
	});

	describe('a workflow saved before Paid (Filters > Paid After, no Paid)', () => {
		it('sends its Paid After as it was written and keeps what the service lists', async () => {
			const old = { payAtAfter: '2026-05-11T00:00:00', status: ['paid'] };
			const got = await listed(eventId, { filters: old }, BERLIN);
			const service = await sb().getAll(`/event-points/${eventId}/orders`, {
				query: { 'payAt[after]': old.payAtAfter, status: 'paid' },
			});
			expect([got.error, got.after]).toEqual([undefined, [old.payAtAfter]]);
			expect(got.ids).toEqual(service.map((s) => Number(s.id)).sort((a, b) => a - b));
			expect(got.ids).toContain(o.may12Morning);
		});

		it('Paid chosen in the editor hides it, and n8n leaves it out of the run', async () => {
			const got = await listed(
				eventId,
				{ paid: 'today', filters: { payAtAfter: '2000-01-01' } },
				BERLIN,
			);
			expect([got.ids, got.after]).toEqual([
				names('may12', 'may12Morning'),
				['2026-05-11T22:00:00Z'],
			]);
		});

		it('Paid by expression beside it fails naming it, before any request', async () => {
			const got = await listed(
				eventId,
				{ paid: '={{ "today" }}', filters: { payAtAfter: '2026-05-11' } },
				BERLIN,
			);
			expect([got.error?.message, got.log]).toEqual([
				'Paid After (Kept for Older Workflows): applies only when Paid is Any Time: give the ' +
					'date in Paid',
				[],
			]);
		});
	});

	describe('bad input: a NodeOperationError naming the field and the item, nothing sent', () => {
		it.each([
			[
				'Paid Before earlier than Paid After',
				{ paid: 'between', paidAfter: '2026-05-12', paidBefore: '2026-05-11' },
				'Paid Before: must come after Paid After ("2026-05-12"), got "2026-05-11"',
			],
			[
				'Paid Before equal to Paid After (an empty range)',
				{ paid: 'between', paidAfter: '2026-05-12', paidBefore: '2026-05-12T00:00:00' },
				'Paid Before: must come after Paid After ("2026-05-12"), got "2026-05-12T00:00:00"',
			],
			[
				'an unparseable Paid After by expression',
				{ paid: 'between', paidAfter: '={{ "next tuesday" }}' },
				'Paid After: expected a date such as 2026-05-01, got "next tuesday"',
			],
			[
				'a Paid Before that does not exist',
				{ paid: 'between', paidBefore: '={{ "2026-02-30" }}' },
				'Paid Before: expected a date such as 2026-05-01, got "2026-02-30"',
			],
			[
				'Paid by expression, not a choice',
				{ paid: '={{ "lastWeek" }}' },
				'Paid: expected one of anyTime, between, last30Days, last7Days, lastMonth, thisMonth, ' +
					'today, yesterday, got "lastWeek"',
			],
			['Paid by expression, nothing', { paid: '={{ null }}' }, 'Paid: expected one of'],
		])('%s', async (_, parameters, message) => {
			const got = await listed(eventId, parameters, BERLIN);
			const field = message.slice(0, message.indexOf(':'));
			expect({
				name: got.error?.name,
				message: got.error?.message.slice(0, message.length),
				description: got.error?.description,
				itemIndex: got.error?.context?.itemIndex,
				sent: got.log,
			}).toEqual({
				name: 'NodeOperationError',
				message,
				description: `Fix the "${field}" parameter of item 1.`,
				itemIndex: 0,
				sent: [],
			});
		});

		it('names the item: the second of two, its own error item with Continue', async () => {
			const got = await listed(
				eventId,
				{ paid: 'between', paidAfter: '2026-05-11', paidBefore: '={{ $json.before }}' },
				BERLIN,
				{
					inputItems: [{ before: '2026-05-12' }, { before: '2026-05-10' }],
					onError: 'continueRegularOutput',
				},
			);
			expect(got.items.map((item) => item.json.id ?? item.json.error)).toEqual([
				o.may11,
				o.may11Last,
				'Paid Before: must come after Paid After ("2026-05-11"), got "2026-05-10"',
			]);
			expect(got.items[2].json.description).toBe('Fix the "Paid Before" parameter of item 2.');
		});
	});
});

describe('Order: Get Many for Event > Paid on a day the clocks change', () => {
	afterAll(() => clockAt(new Date().toISOString()));

	/** Orders paid at `paid` (ids in that order), then the clock at `now`. */
	async function ordersPaid(now: string, paid: string[]) {
		await clockAt(now);
		const { id } = await newEvent(20);
		const ids: number[] = [];
		for (const iso of paid) ids.push(await paidAt(id, iso));
		await clockAt(now);
		return { eventId: id, ids };
	}

	it('America/New_York, 8 March 2026 (23 hours: 02:00 is 03:00): Today and Yesterday', async () => {
		const zone = 'America/New_York';
		const { eventId, ids } = await ordersPaid('2026-03-08T15:00:00-04:00', [
			'2026-03-07T00:00:00-05:00',
			'2026-03-07T23:59:59-05:00',
			'2026-03-08T00:00:00-05:00',
			'2026-03-08T01:59:59-05:00',
			'2026-03-08T03:00:00-04:00',
		]);
		const today = await listed(eventId, { paid: 'today' }, zone);
		expect([today.ids, today.after]).toEqual([ids.slice(2), ['2026-03-08T05:00:00Z']]);
		const yesterday = await listed(eventId, { paid: 'yesterday' }, zone);
		expect([yesterday.ids, yesterday.after]).toEqual([ids.slice(0, 2), ['2026-03-07T05:00:00Z']]);
		const between = await listed(
			eventId,
			{ paid: 'between', paidAfter: '2026-03-08T01:00:00', paidBefore: '2026-03-08T04:00:00' },
			zone,
		);
		// 01:00 EST is 06:00Z, 04:00 EDT is 08:00Z.
		expect([between.ids, between.after]).toEqual([ids.slice(3), ['2026-03-08T06:00:00Z']]);
	});

	it('Europe/Berlin, 25 October 2026 (25 hours: 02:00 to 03:00 twice): Yesterday', async () => {
		const { eventId, ids } = await ordersPaid('2026-10-26T09:00:00+01:00', [
			'2026-10-24T23:59:59+02:00',
			'2026-10-25T00:00:00+02:00',
			'2026-10-25T02:30:00+02:00',
			'2026-10-25T02:30:00+01:00',
			'2026-10-25T23:59:59+01:00',
			'2026-10-26T00:00:00+01:00',
		]);
		const yesterday = await listed(eventId, { paid: 'yesterday' }, BERLIN);
		expect([yesterday.ids, yesterday.after]).toEqual([ids.slice(1, 5), ['2026-10-24T22:00:00Z']]);
		const days = await listed(
			eventId,
			{ paid: 'between', paidAfter: '2026-10-25', paidBefore: '2026-10-26' },
			BERLIN,
		);
		expect(days.ids).toEqual(ids.slice(1, 5));
		const october = await listed(eventId, { paid: 'thisMonth' }, BERLIN);
		expect(october.ids).toEqual(ids);
	});
});
