import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { changeId, changeTime } from './changes';
import { Inputs, show } from './inputs';

/**
 * "Rows for a Table": one flat row per sale or refund, the same keys from every source, so a
 * spreadsheet or Data Table can upsert them by `orderId` with no mapping node. A refund row has
 * its own time and amount columns (`refundedAt`, `refundedAmount`): upserted over its sale, it
 * changes the status and fills the refund columns, and leaves the sale's `paidAt` and `amount`.
 * Every key is always there; a value the record lacks is null. The shipped JSON Schema of a row
 * is `__schema__/rows.json`.
 */
export type RowSource = 'widgetSales' | 'widgetRefunds' | 'eventOrders';

export interface SaleRow extends IDataObject {
	orderId: string | null;
	type: 'sale';
	status: string | null;
	eventPointId: string | null;
	eventName: string | null;
	paidAt: string | null;
	tickets: number | null;
	amount: number | null;
	currency: string | null;
	email: string | null;
	source: 'widgetSales' | 'eventOrders';
}

export interface RefundRow extends IDataObject {
	orderId: string | null;
	type: 'refund';
	/** `refund`, or for an order made through the API its status (`paid` while tickets stand). */
	status: string;
	eventPointId: string | null;
	eventName: string | null;
	refundId: string | null;
	refundedAt: string | null;
	refundedTickets: number | null;
	refundedAmount: number | null;
	currency: string | null;
	/** eventOrders: a refund of an order made through the API (push only: no list has them). */
	source: 'widgetRefunds' | 'eventOrders';
}

export type Row = SaleRow | RefundRow;

/**
 * Options entry of the sources that list sales or refunds (and the poll trigger's Sales and
 * Refunds).
 */
export const outputOption: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	options: [
		{ name: 'Full Records', value: 'records', description: 'Each record as the API gives it' },
		{
			name: 'Rows for a Table',
			value: 'rows',
			description:
				'One flat row per sale or refund, ready for a spreadsheet or Data Table keyed by Order ID',
		},
	],
	default: 'records',
	description: 'Rows for a Table looks up event names with one more list read per run',
	// The output schema n8n previews before a run is the default's (full records).
	hint:
		'Rows: each item has orderId, type, status, eventPointId, eventName and the ' +
		'sale columns (paidAt, tickets, amount, currency, email) or the refund columns ' +
		'(refundId, refundedAt, refundedTickets, refundedAmount, currency), plus source',
};

/** Whether the Options collection asks for rows; any value but the two offered names the field. */
export function wantsRows(options: IDataObject, inputs: Inputs): boolean {
	const output = options.output ?? 'records';
	if (output !== 'records' && output !== 'rows')
		inputs.fail('Output', `expected "records" or "rows", got ${show(output)}`);
	return output === 'rows';
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
const iso = (value: unknown) => {
	const ms = changeTime(value);
	return ms === undefined ? null : new Date(ms).toISOString();
};
const number = (value: unknown) => {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof n === 'number' && Number.isFinite(n) ? n : null;
};
/** A count: an array's length, or a number the record states. */
const count = (value: unknown) => (Array.isArray(value) ? value.length : number(value));
const money = (value: unknown) =>
	value && typeof value === 'object' ? (value as IDataObject) : {};
const eventOf = (json: IDataObject) => changeId(json.eventPoint ?? json.eventPointId);

const ticketsOf = (order: IDataObject) =>
	(Array.isArray(order.tickets) ? (order.tickets as unknown[]) : []).map(money);
const priceOf = (ticket: IDataObject) => money(ticket.discountPrice ?? ticket.price);
/** What the tickets cost together; null when one has no price. */
const sumOf = (tickets: IDataObject[]) => {
	const amounts = tickets.map((ticket) => number(priceOf(ticket).amount));
	return amounts.some((amount) => amount === null)
		? null
		: amounts.reduce<number>((sum, amount) => sum + (amount ?? 0), 0);
};

/**
 * A paid order (widget or API) as a row; eventName is filled in later (withEventNames). An order
 * made through the API totals its live tickets only, so one read after a refund would show less
 * than was sold: read with its tickets (push), its row sums every ticket's price, the sale's own
 * amount, whenever it is read. A list gives no tickets (poll): an order first listed after a
 * partial refund shows the total left.
 */
export function saleRow(json: IDataObject, source: SaleRow['source']): SaleRow {
	const total = money(json.totalPrice);
	const tickets = ticketsOf(json);
	const amount =
		source === 'eventOrders' && tickets.length > 0 ? sumOf(tickets) : number(total.amount);
	return {
		orderId: changeId(json.id),
		type: 'sale',
		status: text(json.status),
		eventPointId: eventOf(json),
		eventName: null,
		paidAt: iso(json.payAt),
		tickets: count(json.ticketsCount ?? json.tickets),
		amount,
		currency: text(total.currency),
		// Only widget orders carry the buyer's address.
		email: text(json.email),
		source,
	};
}

/** A widget refund as a row; eventName is filled in later (withEventNames). */
export function refundRow(json: IDataObject): RefundRow {
	const amount = money(json.amount);
	return {
		orderId: changeId(json.order ?? json.orderId),
		type: 'refund',
		status: 'refund',
		eventPointId: eventOf(json),
		eventName: null,
		refundId: changeId(json.id),
		refundedAt: iso(json.refundedAt),
		refundedTickets: count(json.tickets),
		refundedAmount: number(amount.amount),
		currency: text(amount.currency),
		source: 'widgetRefunds',
	};
}

/**
 * A refund of an order made through the API, read from the order: the service lists no refund of
 * its own for these (no id, no time, one ticket at a time), so the row states what the order shows
 * refunded so far (every refunded ticket, their price), and `at` (the notification's time) when
 * the order gives no time. Upserted by orderId, the row read last is right whichever refund it was
 * read for. Its status is the order's: `paid` while some tickets stand.
 */
export function orderRefundRow(order: IDataObject, at: string | null): RefundRow {
	const tickets = ticketsOf(order);
	const refunded = tickets.filter((ticket) => ticket.status === 'refund');
	return {
		orderId: changeId(order.id),
		type: 'refund',
		status: text(order.status) ?? 'refund',
		eventPointId: eventOf(order),
		eventName: null,
		refundId: null,
		refundedAt: iso(order.refundedAt ?? at),
		refundedTickets: tickets.length > 0 ? refunded.length : null,
		refundedAmount: tickets.length > 0 ? sumOf(refunded) : null,
		currency: text(priceOf(refunded[0] ?? {}).currency) ?? text(money(order.totalPrice).currency),
		source: 'eventOrders',
	};
}

/** The row of a record from `source`. */
export function toRow(json: IDataObject, source: RowSource): Row {
	return source === 'widgetRefunds' ? refundRow(json) : saleRow(json, source);
}
