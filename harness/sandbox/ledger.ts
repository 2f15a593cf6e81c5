/**
 * The API's own ledger, read from the sandbox's store (not through its wire format or the nodes):
 * what every test of the partner's table compares with. One row per sale (every ticket the buyer
 * paid for), one per widget refund record, one per ticket refunded of an API order; amounts in
 * cents, refunds negative.
 */
import type { SandboxClient } from './client';

export interface TruthRow {
	key: string;
	type: 'sale' | 'refund';
	channel: 'widget' | 'api';
	orderId: string;
	eventPointId: string;
	/** Epoch ms. */
	at: number;
	tickets: number;
	cents: number;
}

const cents = (amount: number) => Math.round(amount * 100);

export function apiLedger(sb: SandboxClient, company = 'partner'): Map<string, TruthRow> {
	const store = sb.app.store;
	const companyId = store.companies.find((c) => c.slug === company)!.id;
	const rows: TruthRow[] = [];
	for (const order of store.widgetOrders.filter((o) => o.companyId === companyId))
		rows.push({
			key: `sale:widget:${order.id}`,
			type: 'sale',
			channel: 'widget',
			orderId: String(order.id),
			eventPointId: String(order.eventPointId),
			at: order.payAt,
			tickets: order.tickets.length,
			cents: order.tickets.reduce((n, t) => n + cents(t.discountPrice), 0),
		});
	for (const refund of store.widgetRefunds.filter((r) => r.companyId === companyId))
		rows.push({
			key: `refund:widget:${refund.id}`,
			type: 'refund',
			channel: 'widget',
			orderId: String(refund.orderId),
			eventPointId: String(refund.eventPointId),
			at: refund.refundedAt,
			tickets: refund.ticketIds.length,
			cents: -cents(refund.amount),
		});
	for (const order of store.orders.values()) {
		if (order.companyId !== companyId || order.payAt === null) continue;
		rows.push({
			key: `sale:api:${order.id}`,
			type: 'sale',
			channel: 'api',
			orderId: String(order.id),
			eventPointId: String(order.eventPointId),
			at: order.payAt,
			tickets: order.tickets.length,
			cents: order.tickets.reduce((n, t) => n + cents(t.discountPrice), 0),
		});
		for (const ticket of order.tickets.filter((t) => t.status === 'refund'))
			rows.push({
				key: `refund:api:${order.id}:${ticket.ticketId}`,
				type: 'refund',
				channel: 'api',
				orderId: String(order.id),
				eventPointId: String(order.eventPointId),
				at: ticket.refundedAt ?? order.refundedAt ?? 0,
				tickets: 1,
				cents: -cents(ticket.discountPrice),
			});
	}
	return new Map(rows.map((row) => [row.key, row]));
}

/** A widget sale of `tickets` in the first event, one of its tickets refunded: its order. */
export async function partlyRefundedWidgetSale(sb: SandboxClient, tickets = 2) {
	const event = String((await sb.getAll('/event-points'))[0].id);
	const res = await sb.admin('POST', '/widget-orders', {
		company: 'partner',
		eventPoint: event,
		tickets,
	});
	await sb.admin('POST', `/widget-orders/${res.body.id}/refund`, { tickets: 1 });
	return { order: res.body as { id: number }, event };
}

type TableRow = Record<string, unknown>;

/**
 * How a table of ledger rows differs from the API's ledger (`keys`: the rows that should be there;
 * all of the truth by default): a row missing, extra or twice, a column that differs; then the
 * totals by event and channel. An empty list: the table equals the ledger row by row and in total.
 * `untimedApiRefunds`: the service states no refund times of API orders' tickets, so those rows'
 * times are when they were first seen (any time, but one).
 */
export function ledgerMismatches(
	table: TableRow[],
	truth: Map<string, TruthRow>,
	keys: Iterable<string> = truth.keys(),
	options: { untimedApiRefunds?: boolean } = {},
): string[] {
	const problems: string[] = [];
	const wanted = new Set(keys);
	const byKey = new Map<string, TableRow[]>();
	for (const row of table) byKey.set(String(row.key), [...(byKey.get(String(row.key)) ?? []), row]);
	for (const [key, rows] of byKey) {
		if (rows.length > 1) problems.push(`${key}: ${rows.length} rows`);
		if (!wanted.has(key)) problems.push(`${key}: in the table, not in the ledger`);
	}
	const sums = new Map<string, number>();
	const add = (key: string, n: number) => sums.set(key, (sums.get(key) ?? 0) + n);
	for (const key of wanted) {
		const want = truth.get(key)!;
		const row = byKey.get(key)?.[0];
		add(`event ${want.eventPointId} ${want.channel} expected`, want.cents);
		if (!row) {
			problems.push(`${key}: no row`);
			continue;
		}
		add(
			`event ${want.eventPointId} ${want.channel} expected`,
			-Math.round(Number(row.amount) * 100),
		);
		const seen = {
			type: row.type,
			channel: row.channel,
			orderId: String(row.orderId),
			eventPointId: String(row.eventPointId),
			tickets: Number(row.tickets),
			cents: Math.round(Number(row.amount) * 100),
			at: Math.floor(Date.parse(String(row.at)) / 1000),
		};
		const expected = { ...want, at: Math.floor(want.at / 1000) } as Record<string, unknown>;
		// A service that states no refund time: such a row is dated when first seen, not compared.
		const dated = !(options.untimedApiRefunds && key.startsWith('refund:api:'));
		if (!dated && !Number.isFinite(seen.at)) problems.push(`${key}: at ${String(row.at)}`);
		for (const [field, value] of Object.entries(seen))
			if (value !== expected[field] && (dated || field !== 'at'))
				problems.push(`${key}: ${field} ${String(value)}, the API ${String(expected[field])}`);
	}
	for (const [what, diff] of sums)
		if (diff !== 0) problems.push(`${what}: totals differ by ${diff}`);
	return problems;
}
