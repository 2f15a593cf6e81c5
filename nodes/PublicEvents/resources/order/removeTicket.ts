import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { path } from '../../../shared/path';
import { writeOrder } from './orderWrite';
import { orderIdField, orderOptions, ticketIdField } from './orderFields';
import { orderId, plainId, ticketId } from './ids';
import { orderCheck, ticketsOf } from './readBack';
import { AFTER_A_WRITE } from './writeContract';

export const option = {
	name: 'Remove Ticket',
	value: 'removeTicket',
	description: 'Remove a ticket from an order that is still held, freeing its place',
	action: 'Remove a ticket from an order',
};

export const kind = 'write';

export const eachRun = 'each item removed a ticket';

export const toolText =
	'Remove a ticket from an order that is still held, freeing its place. Needs the order ID and ' +
	'a ticketId (from getting the order).' +
	AFTER_A_WRITE;

export const properties: INodeProperties[] = [orderIdField, ticketIdField, orderOptions(true)];

/** No body, unless the user adds fields. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await writeOrder.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		const ticket = ticketId.call(this, i, inputs);
		return {
			method: 'PUT',
			path: path`/orders/${order}/tickets/${ticket}/remove`,
			check: orderCheck(
				order,
				`Removing ticket ${ticket} from order ${order}`,
				// An answer without its tickets does not show the ticket gone.
				(read) =>
					Array.isArray(read.tickets) &&
					!ticketsOf(read).some((t) => plainId(t.ticketId, 'tickets') === ticket),
			),
		};
	});
}
