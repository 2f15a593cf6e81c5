import type { ChangeType } from './changes';
import type { RecordSource } from './ledger/output';

// The widget's sales and refunds as lists read by time: the poll trigger reads them on its
// schedule, the push trigger looks a widget sale up in them.

export interface FeedSpec {
	key: string;
	source: RecordSource;
	type: ChangeType;
	path: string;
	/** The record's time field, also the name of the `[after]` filter and the sort. */
	time: string;
	/** How errors name the feed. */
	label: string;
}

export const WIDGET_SALES: FeedSpec = {
	key: 'widgetSales',
	source: 'widgetSales',
	type: 'sale',
	path: '/widget-orders',
	time: 'payAt',
	label: 'Widget Sales',
};
export const WIDGET_REFUNDS: FeedSpec = {
	key: 'widgetRefunds',
	source: 'widgetRefunds',
	type: 'refund',
	path: '/widget-orders-refunds',
	time: 'refundedAt',
	label: 'Widget Refunds',
};
/** `<time>[after]` value: whole seconds (the API's precision), UTC, e.g. 2026-05-01T10:00:00Z. */
export function afterParam(ms: number): string {
	return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
