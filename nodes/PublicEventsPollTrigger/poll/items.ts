import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { changeId, type ChangeType } from '../../PublicEvents/shared/changes';
import { EventNames } from '../../PublicEvents/shared/eventNames';
import { toRow, type RowSource } from '../../PublicEvents/shared/rows';
import type { RequestSettings } from '../../PublicEvents/transport';

/** Where an item came from: the Include option's value, or the catalog. */
export type ItemSource = 'widgetSales' | 'widgetRefunds' | 'eventOrders' | 'catalog';

export interface Change {
	type: ChangeType;
	source: ItemSource;
	/** The record's own time (payAt, refundedAt), or when the poll noticed a catalog change. */
	time: number;
	json: IDataObject;
	changedFields?: string[];
}

/**
 * One flat item per change: a header that is the same for every source (type, source,
 * occurredAt, orderId, eventPointId, changedFields) and agrees with the push trigger's items
 * (ids as numeric strings, null when absent; occurredAt as ISO text), then the record's own
 * fields unchanged (money stays { amount, currency }). The header wins over a record field of
 * the same name.
 */
export function toItem(change: Change): INodeExecutionData {
	const { json } = change;
	const orderId = change.type === 'sale' ? json.id : change.type === 'refund' ? (json.order ?? json.orderId) : null;
	const header: IDataObject = {
		type: change.type,
		source: change.source,
		occurredAt: new Date(change.time).toISOString(),
		orderId: changeId(orderId),
		eventPointId: changeId(change.source === 'catalog' ? json.id : (json.eventPoint ?? json.eventPointId)),
	};
	if (change.changedFields) header.changedFields = change.changedFields;
	return { json: { ...header, ...json, ...header } };
}

const oldestFirst = (changes: Change[]) => [...changes].sort((a, b) => a.time - b.time);

/** Oldest first across all feeds, so a sale comes before its refund. */
export function toItems(changes: Change[]): INodeExecutionData[] {
	return oldestFirst(changes).map(toItem);
}

/** Output Rows for a Table: one flat row per sale or refund, oldest first; event names read once for the poll. */
export async function toRowItems(this: IPollFunctions, changes: Change[], settings: RequestSettings): Promise<INodeExecutionData[]> {
	const sales = oldestFirst(changes).filter((change): change is Change & { source: RowSource } => change.source !== 'catalog');
	const rows = await new EventNames(this, settings).fill(sales.map((change) => toRow(change.json, change.source)));
	return rows.map((json) => ({ json }));
}
