import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime } from '../../shared/changes';
import { moneyOf } from '../../shared/ledger/rows';
import type { Change } from './items';

/**
 * A service may list widget orders among an event's orders too. Such a record (same number, event,
 * total and payment time as a widget sale) is the widget sale again: it is not emitted a second
 * time as an API sale. The widget sales of the last days are remembered by those four, so a copy
 * listed a poll later than its widget record is known too; one listed before it is emitted as an
 * API sale, which the reconcile (Sales Ledger > Reconcile Table) reports.
 */
export const COPIES_KEEP_MS = 2 * 24 * 3_600_000;
export const MAX_REMEMBERED = 20_000;

const fingerprint = (json: IDataObject) =>
	[
		changeId(json.eventPoint ?? json.eventPointId) ?? '',
		changeTime(json.payAt ?? json.paidAt) ?? '',
		moneyOf(json.totalPrice).amount ?? '',
	].join('|');

export function withoutWidgetCopies(
	changes: Change[],
	remembered: Record<string, string>,
	now: number,
): { changes: Change[]; remembered: Record<string, string> } {
	const widget = new Map(Object.entries(remembered));
	for (const change of changes)
		if (change.source === 'widgetSales')
			widget.set(changeId(change.json.id) ?? '', fingerprint(change.json));
	const kept = changes.filter(
		(change) =>
			change.source !== 'eventOrders' ||
			widget.get(changeId(change.json.id) ?? '') !== fingerprint(change.json),
	);
	// The last days' sales only, the newest MAX_REMEMBERED of them.
	const recent = [...widget]
		.filter(([, print]) => Number(print.split('|')[1]) >= now - COPIES_KEEP_MS)
		.sort(([, a], [, b]) => Number(b.split('|')[1]) - Number(a.split('|')[1]))
		.slice(0, MAX_REMEMBERED);
	return { changes: kept, remembered: Object.fromEntries(recent) };
}
