/**
 * The partner's table of ledger rows as the node tests see it (nodes/shared/ledger/rows.ts): a Data
 * Table or sheet upserted by `key`, what a row written again under its key changes (nothing, when
 * the ledger holds), and an order's status as the table tells it. Compared with the API's own
 * ledger by harness/sandbox/ledger.ts.
 */
import { isDeepStrictEqual } from 'node:util';

import type { IDataObject } from 'n8n-workflow';

import type { TruthRow } from '../sandbox/ledger';

export type Table = Map<string, IDataObject>;
export type Channel = 'widget' | 'api';

/** A Data Table upsert by `key`: the row's columns overwrite, any others stay. */
export function upsertByKey(rows: IDataObject[], table: Table = new Map()): Table {
	for (const row of rows) table.set(String(row.key), { ...table.get(String(row.key)), ...row });
	return table;
}

/** The keys the API's ledger has for these orders (a channel and an order id each). */
export function ledgerKeysOf(
	truth: Map<string, TruthRow>,
	orders: Array<[Channel, unknown]>,
): string[] {
	const wanted = new Set(orders.map(([channel, id]) => `${channel}:${String(id)}`));
	return [...truth.values()]
		.filter((row) => wanted.has(`${row.channel}:${row.orderId}`))
		.map((row) => row.key);
}

/**
 * Where a row written again under its key differs from the first row written under it. A ledger
 * row never changes, so whichever copy a destination takes last it holds the same: an empty list.
 */
export function rowsChanged(rows: IDataObject[]): string[] {
	const first = new Map<string, IDataObject>();
	const changed: string[] = [];
	for (const row of rows) {
		const key = String(row.key);
		const earlier = first.get(key);
		if (!earlier) first.set(key, row);
		else if (!isDeepStrictEqual(earlier, row))
			changed.push(`${key}: ${JSON.stringify(earlier)} then ${JSON.stringify(row)}`);
	}
	return changed;
}

/**
 * An order's status as its rows tell it (the ledger keeps none): refunded when its refund rows
 * take back all the tickets of its sale row, else paid; undefined without a sale row.
 */
export function statusOf(table: Table, channel: Channel, orderId: unknown): string | undefined {
	const rows = [...table.values()].filter(
		(row) => row.channel === channel && row.orderId === String(orderId),
	);
	const sale = rows.find((row) => row.type === 'sale');
	if (!sale) return undefined;
	const back = rows
		.filter((row) => row.type === 'refund')
		.reduce((sum, row) => sum + Number(row.tickets), 0);
	return back >= Number(sale.tickets) ? 'refund' : 'paid';
}
