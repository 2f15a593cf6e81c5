import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { path } from '../../shared/path';
import { orderCall, orderId, orderIdField, orderOptions, ticketId, ticketIdField } from './fields';
import { orderCheck, ticketsOf } from './writeCheck';

const properties: INodeProperties[] = [orderIdField, ticketIdField, orderOptions(true)];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['removeTicket'] } },
	properties,
);

/** No body, unless the user adds fields. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		const ticket = ticketId.call(this, i, inputs);
		return {
			method: 'PUT',
			path: path`/orders/${order}/tickets/${ticket}/remove`,
			check: orderCheck(
				order,
				`Removing ticket ${ticket} from order ${order}`,
				(read) => !ticketsOf(read).some((t) => String(t.ticketId) === ticket),
			),
		};
	});
}
