import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { changeId, type ChangeType } from '../../shared/changes';
import { dedupeKey, eventFingerprint } from '../../shared/dedupeKey';
import { EventNames } from '../../shared/eventNames';
import { readWholeOrder } from '../../shared/ledger/apiOrders';
import { rowsOf, type RecordSource } from '../../shared/ledger/output';
import { inOrder, MAX_PAGES_IN_FLIGHT, type RequestSettings } from '../../shared/transport';

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

/** The newest item shape; the node passes its own version. */
const LATEST = 1.1;
/** Record fields whose id the header holds (from version 1.1). */
const HEADER_HOLDS = new Set(['id', 'order', 'eventPoint']);

/**
 * One flat item per change: a header that is the same for every source (type, source, channel,
 * occurredAt, orderId, eventPointId, changedFields, dedupeKey) and agrees with the push trigger's
 * items (ids as numeric strings, null when absent; occurredAt as ISO text; the same dedupeKey for
 * the same change), then the record's own fields (money stays { amount, currency }). The header
 * wins over a record field of the same name.
 *
 * From version 1.1 each id is one field: the record's own id fields the header already holds
 * (a sale's `id`, a refund's `order`, `eventPoint`, a catalog event's `id`) are left out, and a
 * refund's own `id` is `refundId`, so a spreadsheet gets no text and number copies of one id.
 * Version 1 keeps them, for saved workflows that read `$json.id`.
 */
export function toItem(change: Change, typeVersion = LATEST): INodeExecutionData {
	const { json } = change;
	const orderId =
		change.type === 'sale'
			? json.id
			: change.type === 'refund'
				? (json.order ?? json.orderId)
				: null;
	const eventPointId = changeId(
		change.source === 'catalog' ? json.id : (json.eventPoint ?? json.eventPointId),
	);
	const channel =
		change.source === 'catalog' ? undefined : change.source === 'eventOrders' ? 'api' : 'widget';
	const header: IDataObject = {
		type: change.type,
		source: change.source,
		...(channel ? { channel } : {}),
		occurredAt: new Date(change.time).toISOString(),
		orderId: changeId(orderId),
		eventPointId,
	};
	if (change.type === 'refund' && typeVersion >= 1.1) header.refundId = changeId(json.id);
	if (change.changedFields) header.changedFields = change.changedFields;
	header.dedupeKey = dedupeKey({
		type: change.type,
		channel,
		orderId: changeId(orderId),
		refundId: changeId(json.id),
		eventPointId,
		fingerprint: change.type === 'eventUpdated' ? eventFingerprint(json) : undefined,
	});
	if (typeVersion < 1.1) return { json: { ...header, ...json, ...header } };
	const own = Object.fromEntries(Object.entries(json).filter(([key]) => !HEADER_HOLDS.has(key)));
	return { json: { ...header, ...own, ...header } };
}
const oldestFirst = (changes: Change[]) => [...changes].sort((a, b) => a.time - b.time);

/** Oldest first across all feeds, so a sale comes before its refund. */
export function toItems(changes: Change[], typeVersion = LATEST): INodeExecutionData[] {
	return oldestFirst(changes).map((change) => toItem(change, typeVersion));
}

/**
 * An event's order as the ledger needs it: a list gives no tickets, and its total may already be
 * less the refunds made before it was first listed, so each is read whole (one request; at most
 * WHOLE_READS_PER_FEED of an event a poll): its sale row is then the one every path writes, its
 * refunds so far come with it.
 */
async function whole(
	context: IPollFunctions,
	change: Change & { source: RecordSource },
	settings: RequestSettings,
): Promise<IDataObject | undefined> {
	const { json } = change;
	if (change.source !== 'eventOrders' || Array.isArray(json.tickets)) return json;
	const id = changeId(json.id);
	if (id === null || !/^\d+$/.test(id)) return json;
	// Not this key's API order (a widget order an event's list shows too): no row of its own.
	return await readWholeOrder(context, json, settings);
}

/**
 * Output Ledger Rows: the ledger's rows of each record (shared/ledger/rows.ts), oldest first; event
 * names read once for the poll. Names never hold sales back: when they cannot be read, the rows go
 * with eventName null (what a table shows as an empty cell, and what a reconcile against the API
 * fills in later) and n8n's log says why; failing the poll would keep every sale it read waiting.
 */
export async function toRowItems(
	this: IPollFunctions,
	changes: Change[],
	settings: RequestSettings,
): Promise<INodeExecutionData[]> {
	const sales = oldestFirst(changes).filter(
		(change): change is Change & { source: RecordSource } => change.source !== 'catalog',
	);
	const records: Array<IDataObject | undefined> = [];
	await inOrder(
		async (i) => await whole(this, sales[i], settings),
		0,
		sales.length - 1,
		MAX_PAGES_IN_FLIGHT,
		(i, json) => {
			records[i] = json;
			return true;
		},
		{ ahead: Infinity },
	);
	// A refund the service gives no time for is timed by this poll, which noticed it.
	const noticed = new Date().toISOString();
	// A widget refund whose order this poll brought too is priced and placed by it.
	const widgetOrders = new Map(
		sales.flatMap((sale) =>
			sale.source === 'widgetSales' ? [[changeId(sale.json.id), sale.json] as const] : [],
		),
	);
	const { rows, unreadable } = await new EventNames(this, settings).fillWhatCanBeRead(
		sales.flatMap(({ source }, i) => {
			const record = records[i];
			if (!record) return [];
			const order = widgetOrders.get(changeId(record.order ?? record.orderId));
			return rowsOf(record, source, noticed, source === 'widgetRefunds' ? order : undefined);
		}),
	);
	const unread = records.filter((record) => record === undefined).length;
	if (unread > 0)
		this.logger.warn(
			`Public Events Poll Trigger: ${unread} orders of events' lists are no orders this key can ` +
				'read (widget orders listed there too): they have no API sale rows',
		);
	if (unreadable) {
		const unnamed = rows.filter((row) => row.eventPointId !== null && row.eventName === null);
		this.logger.warn(
			`Public Events Poll Trigger: the event names of ${unnamed.length} of ${rows.length} rows ` +
				`could not be read (they have eventName null): ${unreadable.message}`,
		);
	}
	return rows.map((json) => ({ json }));
}
