import type { IDataObject, INodeProperties } from 'n8n-workflow';

/** Options entry of every operation that answers with an order. */
export const splitTicketsOption: INodeProperties = {
	displayName: 'Split Tickets Into Items',
	name: 'splitTickets',
	type: 'boolean',
	default: false,
	description:
		"Whether to output one item per ticket (order ID, order status and totals plus the ticket's fields: one spreadsheet row per ticket) instead of one item per order. An answer without tickets, such as Create's, stays one item.",
	// The output schema n8n previews before a run is the default's (one item per order).
	hint: 'On: each item is one ticket (its fields plus orderId, orderStatus, totalPrice, totalDiscount, reservedToDate), not the order the preview before a run shows',
};

/**
 * The order as the API gave it, or one item per ticket. The order's own fields get an `order`
 * prefix where a ticket has a field of the same kind (`status`); money stays `{ amount, currency }`.
 */
export function orderOutput(order: IDataObject, split: boolean): IDataObject | IDataObject[] {
	const tickets = order.tickets;
	if (!split || !Array.isArray(tickets) || tickets.length === 0) return order;
	const summary = Object.fromEntries(
		[
			['orderId', order.id],
			['orderStatus', order.status],
			['totalPrice', order.totalPrice],
			['totalDiscount', order.totalDiscount],
			['reservedToDate', order.reservedToDate],
		].filter(([, value]) => value !== undefined),
	) as IDataObject;
	return (tickets as IDataObject[]).map((ticket) => ({ ...summary, ...ticket }));
}
