import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime } from '../../shared/changes';
import type { Change } from './items';

/**
 * A service may list widget orders among an event's orders too. Such a record (same number, event
 * and payment time as a widget sale: its total may be the one paid, or what is left after a
 * refund) is the widget sale again: it is not emitted a second time as an API sale. The widget
 * sales paid in the last `keepMs` (at least an hour: twice the Settlement Lag and the Overlap
 * Window) are remembered by those three, so a copy listed a poll later than its widget record is
 * known too; one listed before it is read whole (Ledger Rows), which a widget order is not, and
 * left out then. Each is an 11-character digest.
 */
export const MAX_REMEMBERED = 5_000;
const HOUR = 3_600_000;

export function rememberFor(lagMs: number, overlapMs: number): number {
	return Math.max(HOUR, 2 * (lagMs + overlapMs));
}

const fingerprint = (json: IDataObject) =>
	createHash('sha256')
		.update(
			[
				changeId(json.id) ?? '',
				changeId(json.eventPoint ?? json.eventPointId) ?? '',
				changeTime(json.payAt ?? json.paidAt) ?? '',
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
			widget.set(fingerprint(change.json), Math.floor(change.time / 1000));
	const kept = changes.filter(
		(change) => change.source !== 'eventOrders' || !widget.has(fingerprint(change.json)),
	);
	// The newest MAX_REMEMBERED of those paid within keepMs.
	const since = Math.floor((now - keepMs) / 1000);
	const recent = [...widget]
		.filter(([, at]) => at >= since)
		.sort(([, a], [, b]) => b - a)
		.slice(0, MAX_REMEMBERED);
	return { changes: kept, remembered: Object.fromEntries(recent) };
}
