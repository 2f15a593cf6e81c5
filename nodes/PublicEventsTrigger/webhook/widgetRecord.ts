import { sleep, type IDataObject } from 'n8n-workflow';

import { afterParam } from '../../PublicEventsPollTrigger/poll/feed';
import { WIDGET_REFUNDS, WIDGET_SALES } from '../../PublicEventsPollTrigger/poll/specs';
import { changeId, changeTime } from '../../shared/changes';
import {
	apiRequest,
	MAX_PAGE_SIZE,
	type ApiContext,
	type RequestSettings,
} from '../../shared/transport';
import { readListPage } from '../../shared/transport/listEnvelope';

/**
 * There is no GET /widget-orders/{id}: a widget sale or refund named by a notification is found
 * in its list, by the time filter and sort the poll trigger reads that list with, newest first
 * from a little before the notification's time. A push comes moments after the sale, so the
 * record is near the top of the first page: one request in the common case. The answer to the
 * sender waits for this, so the read is bounded: WIDGET_PAGES pages at most, and a record not
 * listed yet (a service lists a payment a moment late) is looked for again only after
 * LISTING_WAITS_MS.
 */
export interface WidgetClaim {
	type: 'sale' | 'refund';
	orderId: string;
	/** The refund's own id, when the notification gives one. */
	refundId: string | null;
	/** The notification's time (ISO), where the search starts; null: the newest pages. */
	occurredAt: string | null;
}

export type WidgetLookup = { record: IDataObject } | { missing: string };

/** Pages read at most per look, newest first. */
export const WIDGET_PAGES = 3;
/**
 * How far before the notification's time the record's own may lie: the sender's clock, a
 * notification sent a while after the payment.
 */
export const WIDGET_SLACK_MS = 5 * 60_000;
/** Waits before looking again for a record that is not listed yet. */
export const LISTING_WAITS_MS = [250, 750];
/** Requests one lookup sends at most, all looks together. */
export const WIDGET_READS = WIDGET_PAGES + LISTING_WAITS_MS.length;

const orderOf = (item: IDataObject) => changeId(item.order ?? item.orderId);

/**
 * One look, newest first: the record, the end of the list without it, or WIDGET_PAGES pages (or
 * the last of WIDGET_READS) without it.
 */
type Look = WidgetLookup | { ended: true };

/**
 * The widget order of a sale, or the widget refund of a refund (the newest of the order's when the
 * claim names no refund id); `missing` says why it was not found.
 */
export async function findWidgetRecord(
	this: ApiContext,
	claim: WidgetClaim,
	settings: RequestSettings,
	listingWaitsMs = LISTING_WAITS_MS,
): Promise<WidgetLookup> {
	const spec = claim.type === 'sale' ? WIDGET_SALES : WIDGET_REFUNDS;
	const time = changeTime(claim.occurredAt ?? undefined);
	const from = time === undefined ? undefined : afterParam(time - WIDGET_SLACK_MS);
	const qs: IDataObject = {
		...(from === undefined ? {} : { [`${spec.time}[after]`]: from }),
		[`order[${spec.time}]`]: 'desc',
		itemsPerPage: MAX_PAGE_SIZE,
	};
	const matches = (item: IDataObject) =>
		claim.type === 'sale'
			? changeId(item.id) === claim.orderId
			: orderOf(item) === claim.orderId &&
				(claim.refundId === null || changeId(item.id) === claim.refundId);
	const newest = (records: IDataObject[]) =>
		records.reduce((a, b) =>
			(changeTime(b[spec.time]) ?? 0) > (changeTime(a[spec.time]) ?? 0) ? b : a,
		);
	const what =
		claim.type === 'sale'
			? `widget order ${claim.orderId}`
			: `the refund${claim.refundId === null ? '' : ` ${claim.refundId}`} of widget order ` +
				claim.orderId;

	let reads = 0;
	const look = async (): Promise<Look> => {
		for (let page = 1; page <= WIDGET_PAGES && reads < WIDGET_READS; page++) {
			reads++;
			const list = readListPage(
				await apiRequest.call(this, 'GET', spec.path, { qs: { ...qs, page } }, settings),
			);
			if (!list) return { missing: `GET ${spec.path} answered something that is not a list` };
			const found = list.items.filter(matches);
			if (found.length > 0) return { record: newest(found) };
			if (
				list.items.length < MAX_PAGE_SIZE ||
				(list.total !== undefined && page * MAX_PAGE_SIZE >= list.total)
			)
				return { ended: true };
		}
		return {
			missing:
				`${what} is not among the newest records of GET ${spec.path} that one delivery ` +
				`reads (${WIDGET_PAGES} pages of ${MAX_PAGE_SIZE} a look, ${WIDGET_READS} pages in all)`,
		};
	};

	for (const wait of [...listingWaitsMs, undefined]) {
		const seen = await look();
		if (!('ended' in seen)) return seen;
		if (wait !== undefined) await sleep(wait);
	}
	const waited = listingWaitsMs.reduce((sum, ms) => sum + ms, 0);
	return {
		missing:
			`${what} is not listed in GET ${spec.path}${from === undefined ? '' : ` from ${from} on`} ` +
			`(looked ${listingWaitsMs.length + 1} times in ${waited} ms): not listed yet, or not ` +
			"this key's",
	};
}
