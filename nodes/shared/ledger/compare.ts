import type { IDataObject } from 'n8n-workflow';

import { changeTime } from '../changes';
import { LEDGER_COLUMNS, type Column, type LedgerRow } from './rows';

/**
 * The reconcile: the ledger as the API has it against the partner's table, as rows to write.
 * - A row the table lacks is written; one that differs in a column is written again, whole.
 * - What the API does not state (a null: an event name that could not be read; a refund time the
 *   service does not give, which the read dates when it first sees it) never replaces what the
 *   table holds: the table's value is kept.
 * - Nothing is ever deleted or emptied: a row the read did not bring back (an answer empty for a
 *   moment, a period that missed it) is left as it is, and a read that failed wrote nothing.
 * - Rows are facts that do not change (a sale row stays a sale after its refunds, which are rows
 *   of their own), so a row written from a read taken before a refund can undo nothing.
 * Run twice over the same API, the second run writes nothing.
 */
export interface Reconciled {
	/** Rows to upsert by key: missing from the table, or different there. */
	write: Array<{ row: LedgerRow; tableIndex?: number }>;
	missing: number;
	different: number;
	same: number;
	/** Table rows that repeat a key already seen (all but the first of each key). */
	extraCopies: number[];
	/** Table rows without a key (another table's rows, or the old one-row-per-order shape). */
	notKeyed: number;
}

const TEXT = (value: unknown) =>
	value === null || value === undefined || String(value).trim() === ''
		? null
		: String(value).trim();
const NUMBER = (value: unknown) => {
	if (value === null || value === undefined || value === '') return null;
	const n = Number(value);
	return Number.isFinite(n) ? Math.round(n * 100) : null;
};
/** A table's date cell: a Date, ISO text or a Luxon value; compared to the second. */
const TIME = (value: unknown) => {
	if (value === null || value === undefined || value === '') return null;
	const raw = value instanceof Date ? value.getTime() : (value as { toISO?: () => string }).toISO;
	const ms =
		typeof raw === 'number'
			? raw
			: typeof raw === 'function'
				? changeTime(raw.call(value))
				: changeTime(value);
	return ms === undefined ? null : Math.floor(ms / 1000);
};

const readers: Record<string, (value: unknown) => string | number | null> = {
	string: TEXT,
	number: NUMBER,
	date: TIME,
};

/** The columns where the ledger row and the table row disagree, the ledger's nulls aside. */
export function differences(row: LedgerRow, table: IDataObject): Column[] {
	return LEDGER_COLUMNS.filter(({ name, type }) => {
		const read = readers[type];
		const ours = read(row[name]);
		return ours !== null && ours !== read(table[name]);
	}).map(({ name }) => name);
}

/** The ledger row with the table's values where the ledger states none. */
function keptFromTable(row: LedgerRow, table: IDataObject): LedgerRow {
	const merged = { ...row };
	for (const { name } of LEDGER_COLUMNS) {
		if (merged[name] === null && table[name] !== undefined && table[name] !== '')
			(merged as IDataObject)[name] = table[name] as never;
	}
	return merged;
}

/**
 * `estimated`: keys of rows this read dated itself (a refund the service states no time for, dated
 * when first seen): their time is the table's once the table has one.
 */
export function reconcile(
	ledger: LedgerRow[],
	table: IDataObject[],
	estimated: Set<string> = new Set(),
): Reconciled {
	const byKey = new Map<string, number>();
	const extraCopies: number[] = [];
	let notKeyed = 0;
	table.forEach((row, index) => {
		const key = TEXT(row.key);
		if (key === null) notKeyed++;
		else if (byKey.has(key)) extraCopies.push(index);
		else byKey.set(key, index);
	});
	const result: Reconciled = {
		write: [],
		missing: 0,
		different: 0,
		same: 0,
		extraCopies,
		notKeyed,
	};
	for (const row of ledger) {
		const index = byKey.get(row.key);
		if (index === undefined) {
			result.missing++;
			result.write.push({ row });
			continue;
		}
		const kept = table[index];
		const ours = estimated.has(row.key) && TIME(kept.at) !== null ? { ...row, at: null } : row;
		if (differences(ours, kept).length > 0) {
			result.different++;
			result.write.push({ row: keptFromTable(ours, kept), tableIndex: index });
		} else result.same++;
	}
	return result;
}
