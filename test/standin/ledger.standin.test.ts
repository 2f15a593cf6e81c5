/**
 * The ledger's paths (Get Rows, Get Sales Summary, Reconcile Table, the poll trigger's Ledger Rows)
 * against an independent stand-in of the API (server.ts), for each choice the API description
 * leaves open: the rows equal the stand-in's ledger, row by row and in totals (an outside review
 * wrote it; its findings are fixed: an order read with only the described fields lost its API
 * sales, event lists whose records name no event counted a shared order number twice, a page
 * shorter than asked ended the read while the total said more).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { CredentialStore, PollSession } from '../../harness/engine';
import { PublicEventsPollTrigger } from '../../harness/nodes/pollTrigger';
import { CREDENTIAL, runPublicEvents } from '../../harness/nodes/publicEvents';
import {
	buildModel,
	expectedLedger,
	Standin,
	type Model,
	type Row,
	type StandinOptions,
} from './server';

const DAY = 86_400_000;
const cents = (n: number) => Math.round(n * 100) / 100;

const VARIANTS: Array<[string, StandinOptions]> = [
	[
		'19-digit widget order and refund ids as bare JSON numbers',
		{
			minimalWholeOrder: false,
			noEventInEventList: false,
			envelope: 'hydra',
			pageCap: 100,
			widgetInEventLists: true,
			bigIds: true,
		},
	],
	[
		'rich whole orders, event list records without eventPoint (widget copies listed)',
		{
			minimalWholeOrder: false,
			noEventInEventList: true,
			envelope: 'hydra',
			pageCap: 100,
			widgetInEventLists: true,
		},
	],
	[
		'rich records, hydra, widget orders in event lists',
		{
			minimalWholeOrder: false,
			noEventInEventList: false,
			envelope: 'hydra',
			pageCap: 100,
			widgetInEventLists: true,
		},
	],
	[
		'hydra with server page cap 2 (total stated)',
		{
			minimalWholeOrder: false,
			noEventInEventList: false,
			envelope: 'hydra',
			pageCap: 2,
			widgetInEventLists: true,
		},
	],
	[
		'plain arrays, widget orders not in event lists',
		{
			minimalWholeOrder: false,
			noEventInEventList: false,
			envelope: 'array',
			pageCap: 100,
			widgetInEventLists: false,
		},
	],
	[
		'spec-minimal order records (GET /orders/{id}: only the spec`s known fields)',
		{
			minimalWholeOrder: true,
			noEventInEventList: false,
			envelope: 'hydra',
			pageCap: 100,
			widgetInEventLists: true,
		},
	],
	[
		'spec-minimal + event list records without eventPoint',
		{
			minimalWholeOrder: true,
			noEventInEventList: true,
			envelope: 'hydra',
			pageCap: 100,
			widgetInEventLists: true,
		},
	],
];

const COLS = [
	'key',
	'type',
	'channel',
	'orderId',
	'eventPointId',
	'eventName',
	'at',
	'tickets',
	'amount',
	'currency',
	'email',
	'refundId',
	'ticketIds',
] as const;

/** Differences between the node's rows and the expected ledger, as readable lines. */
function mismatches(got: IDataObject[], want: Row[], readFrom: number, readTo: number): string[] {
	const out: string[] = [];
	const byKey = new Map(got.map((r) => [String(r.key), r]));
	const seen = new Set<string>();
	for (const r of got) {
		if (seen.has(String(r.key))) out.push(`duplicate ${String(r.key)}`);
		seen.add(String(r.key));
	}
	for (const w of want) {
		const g = byKey.get(w.key);
		if (!g) {
			out.push(`missing ${w.key}`);
			continue;
		}
		for (const c of COLS) {
			const gv = g[c] ?? null;
			if (c === 'at') {
				const ms = gv === null ? NaN : Date.parse(String(gv));
				if (w.at === null) {
					if (!(ms >= readFrom - 2000 && ms <= readTo + 2000))
						out.push(`${w.key}.at: got ${String(gv)}, want read time`);
				} else if (ms !== Date.parse(w.at))
					out.push(`${w.key}.at: got ${String(gv)}, want ${w.at}`);
				continue;
			}
			const wv = w[c];
			const eq =
				typeof wv === 'number'
					? Number(gv) === wv && gv !== null
					: (gv === null ? null : String(gv)) === wv;
			if (!eq) out.push(`${w.key}.${c}: got ${JSON.stringify(gv)}, want ${JSON.stringify(wv)}`);
		}
	}
	const keys = new Set(want.map((w) => w.key));
	for (const r of got)
		if (!keys.has(String(r.key))) out.push(`extra ${String(r.key)} ${JSON.stringify(r)}`);
	return out;
}

describe.each(VARIANTS)('stand-in: %s', (_label, opts) => {
	let api: Standin;
	let model: Model;
	let store: CredentialStore;
	const run = async (parameters: IDataObject, inputItems?: IDataObject[]) => {
		const { items, error } = await runPublicEvents(
			store,
			parameters as INodeParameters,
			inputItems ? { inputItems } : {},
		);
		if (error) throw new Error(`${error.message} ${JSON.stringify(error).slice(0, 400)}`);
		return items.map((i) => i.json);
	};
	const timed = async <T>(f: () => Promise<T>) => {
		const from = Date.now();
		const value = await f();
		return { value, from, to: Date.now() };
	};

	beforeAll(async () => {
		model = buildModel(Date.now(), opts.bigIds);
		api = await new Standin(model, opts).start();
		store = new CredentialStore([new PublicEventsApi()]);
		store.add(CREDENTIAL, {
			environment: 'staging',
			baseUrl: api.url,
			apiKey: 'key_standin_0123456789abcdef',
		});
	});
	afterAll(async () => {
		const unimplemented = api.log.filter(
			(l) => l.status === 404 && !/^\/orders\/(5|700001$)/.test(l.path),
		);
		if (unimplemented.length) console.log('404s:', JSON.stringify(unimplemented.slice(0, 20)));
		await api.stop();
	});

	it('Get Rows (Last 7 Days) equals the ledger row by row and in totals', async () => {
		const {
			value: rows,
			from,
			to,
		} = await timed(() => run({ resource: 'ledger', operation: 'getRows', period: 'last7Days' }));
		const want = expectedLedger(model);
		expect(mismatches(rows, want, from, to)).toEqual([]);
		const sum = (rs: Array<{ amount?: unknown }>) =>
			cents(rs.reduce((s, r) => s + Number(r.amount ?? 0), 0));
		expect(sum(rows)).toBe(sum(want));
	});

	it('Get Sales Summary of each event equals the ledger`s sums', async () => {
		const want = expectedLedger(model);
		const got: IDataObject[] = [];
		const expected: IDataObject[] = [];
		for (const ev of ['101', '102', '103']) {
			const [s] = await run({
				resource: 'event',
				operation: 'getSalesSummary',
				eventId: { __rl: true, mode: 'id', value: ev },
				options: { freePlaces: false },
			});
			const rows = want.filter((r) => r.eventPointId === ev);
			const gross = cents(rows.filter((r) => r.type === 'sale').reduce((a, r) => a + r.amount, 0));
			const refunds =
				0 + cents(-rows.filter((r) => r.type === 'refund').reduce((a, r) => a + r.amount, 0));
			const tickets = (ch: string, t: string) =>
				rows.filter((r) => r.channel === ch && r.type === t).reduce((a, r) => a + r.tickets, 0);
			expected.push({
				ev,
				money: [{ currency: 'EUR', gross, refunds, net: cents(gross - refunds) }],
				channels: ['api', 'widget']
					.filter((ch) => rows.some((r) => r.channel === ch))
					.map((ch) => ({
						channel: ch,
						sold: tickets(ch, 'sale') - tickets(ch, 'refund'),
						refunded: tickets(ch, 'refund'),
					})),
			});
			got.push({
				ev,
				money: s.money,
				channels: ((s.byChannel as IDataObject[]) ?? [])
					.filter((c) => c.sold !== 0 || c.refunded !== 0)
					.map((c) => ({ channel: c.channel, sold: c.sold, refunded: c.refunded }))
					.sort((a, b) => String(a.channel).localeCompare(String(b.channel))),
			});
		}
		expect(got).toEqual(expected);
	});

	describe('Reconcile Table', () => {
		let table: IDataObject[] = [];
		const reconcile = (t: IDataObject[]) =>
			run({ resource: 'ledger', operation: 'reconcile', lookBackDays: 7 }, t.length ? t : [{}]);

		it('an empty table: outputs exactly the ledger', async () => {
			const { value, from, to } = await timed(() => reconcile([]));
			table = value;
			expect(mismatches(value, expectedLedger(model), from, to)).toEqual([]);
		});

		it('the full table: outputs nothing', async () => {
			expect(await reconcile(table)).toEqual([]);
		});

		it('stale rows (older states): rewritten to the API`s state, others untouched', async () => {
			const want = new Map(expectedLedger(model).map((r) => [r.key, r]));
			const stale = table.map((r) => {
				if (r.key === 'sale:api:700001') return { ...r, amount: 20 }; // list total less refunds
				// The poll's empty amount; an old cumulative state.
				if (r.key === 'refund:widget:9003') return { ...r, amount: null };
				if (r.key === 'sale:widget:500001') return { ...r, tickets: 1, amount: 25.5 };
				return r;
			});
			const out = await reconcile(stale);
			expect(out.map((r) => r.key).sort()).toEqual([
				'refund:widget:9003',
				'sale:api:700001',
				'sale:widget:500001',
			]);
			for (const r of out) {
				expect(r.amount).toBe(want.get(String(r.key))!.amount);
				expect(r.tickets).toBe(want.get(String(r.key))!.tickets);
			}
		});

		it('refunds after the table was read: only the new rows, none older over newer', async () => {
			const old = [...table];
			// a third partial refund of widget order 500001; the last ticket of API order 700001
			model.widgetRefunds.push({
				id: 9004,
				order: 500001,
				orderAsIri: false,
				tickets: [5003],
				ticketsAsObjects: false,
				amount: 25.5,
				amountShape: 'plainPositive',
				refundedAt: Math.floor(Date.now() / 1000) * 1000 - 60_000,
				offsetMin: 0,
				withEvent: true,
			});
			model.apiOrders[0].tickets[2].status = 'refund';
			model.apiOrders[0].status = 'refund';
			let newer: IDataObject[] = [];
			try {
				newer = await reconcile(old);
				expect(newer.map((r) => r.key).sort()).toEqual([
					'refund:api:700001:7003',
					'refund:widget:9004',
				]);
				const full = [...old, ...newer];
				const { value: again } = await timed(() => reconcile(full));
				expect(again).toEqual([]);
				// and the whole table equals the ledger now
				expect(mismatches(full, expectedLedger(model), 0, Date.now())).toEqual([]);
			} finally {
				// undo the change for the next tests of this variant
				model.widgetRefunds.pop();
				model.apiOrders[0].tickets[2].status = 'paid';
				model.apiOrders[0].status = 'paid';
			}
		});
	});

	// The poll reads pages of the size it asks (the spec's paging); Get Rows and Reconcile Table also
	// read a service that pages by fewer.
	const pollable = opts.pageCap >= 100 ? it : () => undefined;
	pollable(
		'Poll trigger, Sales and Refunds, Ledger Rows, backfill from 5 days: every row once',
		async () => {
			const session = new PollSession({
				nodeType: new PublicEventsPollTrigger(),
				type: 'CUSTOM.publicEventsPollTrigger',
				parameters: {
					options: { output: 'rows', startFrom: new Date(Date.now() - 5 * DAY).toISOString() },
				},
				credentials: store,
			});
			const from = Date.now();
			const rows: IDataObject[] = [];
			for (let n = 0; n < 3; n++) {
				const r = await session.poll();
				if (r.error) throw r.error;
				rows.push(...r.items.map((i) => i.json));
			}
			// The poll reads the orders of the events listed now (documented): an event archived since is
			// the reconcile's, which reads the archive.
			const archived = new Set(model.events.filter((e) => e.archived).map((e) => String(e.id)));
			const want = expectedLedger(model).filter(
				(r) => !(r.channel === 'api' && archived.has(String(r.eventPointId))),
			);
			expect(mismatches(rows, want, from, Date.now())).toEqual([]);
		},
	);
});

describe.each([
	['rich', false],
	['spec-minimal GET /orders/{id}', true],
])('live poll (activation, then new sales and refunds), %s', (_label, minimal) => {
	it('new rows equal the ledger rows of the new records', async () => {
		const model = buildModel(Date.now());
		const api = await new Standin(model, {
			minimalWholeOrder: minimal,
			noEventInEventList: false,
			envelope: 'hydra',
			pageCap: 100,
			widgetInEventLists: true,
		}).start();
		try {
			const store = new CredentialStore([new PublicEventsApi()]);
			store.add(CREDENTIAL, {
				environment: 'staging',
				baseUrl: api.url,
				apiKey: 'key_standin_0123456789abcdef',
			});
			const session = new PollSession({
				nodeType: new PublicEventsPollTrigger(),
				type: 'CUSTOM.publicEventsPollTrigger',
				parameters: { options: { output: 'rows' } },
				credentials: store,
			});
			const first = await session.poll();
			if (first.error) throw first.error;
			const before = new Set(expectedLedger(model).map((r) => r.key));
			const at = Math.floor(Date.now() / 1000) * 1000 + 1000;
			await new Promise((r) => setTimeout(r, 2100));
			const tk = (ticketId: number, price: number, status = 'paid') => ({
				ticketId,
				price,
				asObject: true,
				status,
				priceCategory: 1,
			});
			model.widgetOrders.push({
				id: 600001,
				event: '101',
				payAt: at,
				offsetMin: 120,
				email: 'g@example.com',
				totalAsObject: true,
				tickets: [tk(6001, 10), tk(6002, 10)],
			});
			model.widgetRefunds.push({
				id: 9101,
				order: 600001,
				orderAsIri: false,
				tickets: [6001],
				ticketsAsObjects: false,
				amount: 10,
				amountShape: 'plainPositive',
				refundedAt: at,
				offsetMin: 0,
				withEvent: false,
			});
			model.apiOrders.push({
				id: '800001',
				event: '102',
				payAt: at,
				status: 'paid',
				totalAsObject: false,
				tickets: [tk(8001, 30, 'refund'), tk(8002, 30)],
			});
			const from = Date.now();
			const rows: IDataObject[] = [];
			for (let n = 0; n < 2; n++) {
				const r = await session.poll();
				if (r.error) throw r.error;
				rows.push(...r.items.map((i) => i.json));
			}
			const want = expectedLedger(model).filter((r) => !before.has(r.key));
			expect(mismatches(rows, want, from, Date.now())).toEqual([]);
		} finally {
			await api.stop();
		}
	});
});
