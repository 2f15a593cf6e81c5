/**
 * A widget order refunded whole (its event's list shows it at total 0, so it is no recognised copy)
 * shares its number with an API order of another event, and the order's read names no event nor
 * payment time: the API sale keeps its own event and time, from the listing the read matches
 * (outside review: it took the widget listing's, and left the period).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../harness/engine';
import { CREDENTIAL, runPublicEvents } from '../../harness/nodes/publicEvents';
import { Standin, type Model } from './server';

const DAY = 86_400_000;

describe('shared order number: widget copy (refunded whole) vs API order', () => {
	let api: Standin;
	let store: CredentialStore;
	const now = Date.now();
	const t = (days: number) => Math.floor((now - days * DAY) / 1000) * 1000;
	const tk = (ticketId: number, price: number) => ({
		ticketId,
		price,
		asObject: true,
		status: 'paid',
		priceCategory: 1,
	});
	const model: Model = {
		now,
		events: [
			{
				id: 101,
				name: 'A',
				dateStarted: now + 10 * DAY,
				dateEndOfSale: now + 9 * DAY,
				archived: false,
			},
			{
				id: 102,
				name: 'B',
				dateStarted: now + 20 * DAY,
				dateEndOfSale: now + 19 * DAY,
				archived: false,
			},
		],
		widgetOrders: [
			{
				id: 800001,
				event: '101',
				payAt: t(20),
				offsetMin: 0,
				email: 'w@example.com',
				totalAsObject: true,
				tickets: [tk(6001, 30)],
			},
		],
		widgetRefunds: [
			{
				id: 9101,
				order: 800001,
				orderAsIri: false,
				tickets: [6001],
				ticketsAsObjects: false,
				amount: 30,
				amountShape: 'plainPositive',
				refundedAt: t(19),
				offsetMin: 0,
				withEvent: true,
			},
		],
		apiOrders: [
			{
				id: '800001',
				event: '102',
				payAt: t(1),
				status: 'paid',
				tickets: [tk(7001, 50)],
				totalAsObject: true,
			},
		],
	};

	beforeAll(async () => {
		api = await new Standin(model, {
			minimalWholeOrder: true,
			noEventInEventList: false,
			envelope: 'hydra',
			pageCap: 100,
			widgetInEventLists: true,
		}).start();
		store = new CredentialStore([new PublicEventsApi()]);
		store.add(CREDENTIAL, {
			environment: 'staging',
			baseUrl: api.url,
			apiKey: 'key_standin_0123456789abcdef',
		});
	});
	afterAll(() => api.stop());

	it('Get Rows (Last 7 Days) has the API sale, in its own event, at its own time', async () => {
		const { items, error } = await runPublicEvents(store, {
			resource: 'ledger',
			operation: 'getRows',
			period: 'last7Days',
		} as INodeParameters);
		expect(error).toBeUndefined();
		const rows = items.map((i) => i.json as IDataObject);
		const sale = rows.find((r) => r.key === 'sale:api:800001');
		expect(sale && { event: sale.eventPointId, at: sale.at, amount: sale.amount }).toEqual({
			event: '102',
			at: new Date(t(1)).toISOString(),
			amount: 50,
		});
	});

	it('Get Rows (All Time-ish: last 30 days) puts the API sale in event 102', async () => {
		const { items, error } = await runPublicEvents(store, {
			resource: 'ledger',
			operation: 'getRows',
			period: 'last30Days',
		} as INodeParameters);
		expect(error).toBeUndefined();
		const rows = items.map((i) => i.json as IDataObject);
		const sale = rows.find((r) => r.key === 'sale:api:800001');
		expect(sale && { event: sale.eventPointId, at: sale.at }).toEqual({
			event: '102',
			at: new Date(t(1)).toISOString(),
		});
	});
});
