import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime, eventOf } from '../../shared/changes';
import { moneyOf, widgetTotals } from '../../shared/ledger/rows';
import type { Change } from './items';

/**
 * A service may list widget orders among an event's orders too. Such a record (same number,
 * event, payment time and total as a widget sale: the total paid, or what is left after a partial
 * refund) is the widget sale again: it is not emitted a second time as an API sale. The widget
 * sales paid in the last `keepMs` (at least an hour: twice the Settlement Lag and the Overlap
 * Window) are remembered by those four (one 11-character digest per total), so a copy listed a
 * poll later than its widget record is known too; one listed before it is read whole (Ledger
 * Rows), which a widget order is not, and left out then.
 */
export const MAX_REMEMBERED = 5_000;
const HOUR = 3_600_000;

export function rememberFor(lagMs: number, overlapMs: number): number {
	return Math.max(HOUR, 2 * (lagMs + overlapMs));
}

const fingerprint = (json: IDataObject, total: number | null) =>
	createHash('sha256')
		.update(
			[
				changeId(json.id) ?? '',
				eventOf(json) ?? '',
				changeTime(json.payAt ?? json.paidAt) ?? '',
				total ?? '',
			].join('|'),
		)
		.digest('base64url')
		.slice(0, 11);

/** The remembered: digest to payment time (epoch seconds, for their age). */
export function withoutWidgetCopies(
	changes: Change[],
	remembered: Record<string, number>,
	now: number,
	keepMs: number,
): { changes: Change[]; remembered: Record<string, number> } {
	const widget = new Map(Object.entries(remembered));
	for (const change of changes)
		if (change.source === 'widgetSales')
			for (const total of widgetTotals(change.json))
				widget.set(fingerprint(change.json, total), Math.floor(change.time / 1000));
	const listedAs = (json: IDataObject) => fingerprint(json, moneyOf(json.totalPrice).amount);
	const kept = changes.filter(
		(change) => change.source !== 'eventOrders' || !widget.has(listedAs(change.json)),
	);
	// The newest MAX_REMEMBERED of those paid within keepMs.
	const since = Math.floor((now - keepMs) / 1000);
	const recent = [...widget]
		.filter(([, at]) => at >= since)
		.sort(([, a], [, b]) => b - a)
		.slice(0, MAX_REMEMBERED);
	return { changes: kept, remembered: Object.fromEntries(recent) };
}
