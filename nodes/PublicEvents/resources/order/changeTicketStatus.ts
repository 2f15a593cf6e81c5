import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { path } from '../../shared/path';
import { orderCall, orderId, orderIdField, orderOptions, ticketId, ticketIdField } from './fields';
import { orderCheck, ticketsOf } from './writeCheck';

const properties: INodeProperties[] = [
	orderIdField,
	ticketIdField,
	{
		displayName: 'New Status',
		name: 'toStatus',
		type: 'string',
		default: 'refund',
		required: true,
		description:
			'Sent as toStatus. The spec does not list ticket statuses; "refund" refunds one ticket of a paid order.',
	},
	orderOptions(true),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['changeTicketStatus'] } },
	properties,
);

/** Body `{ toStatus }`: the API description does not show it. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => {
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
					ticketsOf(read).some((t) => String(t.ticketId) === ticket && t.status === toStatus),
			),
		};
	});
}
