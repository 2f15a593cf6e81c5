import type { IDataObject } from 'n8n-workflow';

/**
 * The order as the API gave it, or one item per ticket. The order's own fields get an `order`
 * prefix where a ticket has a field of the same kind (`status`); money stays
 * `{ amount, currency }`.
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
