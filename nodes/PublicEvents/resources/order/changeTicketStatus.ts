import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { path } from '../../../shared/path';
import { writeOrder } from './orderWrite';
import { orderIdField, orderOptions, ticketIdField } from './orderFields';
import { orderId, plainId, ticketId } from './ids';
import { orderCheck, ticketsOf } from './readBack';
import { AFTER_A_WRITE } from './writeContract';

export const option = {
	name: 'Change Ticket Status',
	value: 'changeTicketStatus',
	description: 'Change the status of one ticket, e.g. refund it',
	action: 'Change the status of a ticket',
};

export const kind = 'write';

export const eachRun = "each item changed a ticket's status";

export const toolText =
	'Change the status of one ticket of an order (the order ID, and a ticketId from getting the ' +
	'order), e.g. "refund" for one ticket of a paid order.' +
	AFTER_A_WRITE;

export const properties: INodeProperties[] = [
	orderIdField,
	ticketIdField,
	{
		displayName: 'New Status',
		name: 'toStatus',
		type: 'string',
		default: 'refund',
		required: true,
		description:
			"The ticket's new status. The API description lists no ticket " +
			'statuses; "refund" refunds one ticket of a paid order.',
	},
	orderOptions(true),
];

/** Body `{ toStatus }`: the API description does not show it. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await writeOrder.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		const ticket = ticketId.call(this, i, inputs);
		const toStatus = inputs.text(this.getNodeParameter('toStatus', i, ''), 'New Status');
		return {
			method: 'PUT',
			path: path`/orders/${order}/tickets/${ticket}/status`,
			body: { toStatus },
			check: orderCheck(
				order,
				`Changing the status of ticket ${ticket} of order ${order} to ${toStatus}`,
				(read) =>
					ticketsOf(read).some(
						(t) => plainId(t.ticketId, 'tickets') === ticket && t.status === toStatus,
					),
			),
		};
	});
}
