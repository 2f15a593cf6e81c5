import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { path } from '../../../shared/path';
import { orderId } from './ids';
import { writeOrder } from './orderWrite';
import { orderIdField, orderOptions } from './orderFields';
import { canStillReach, orderCheck } from './readBack';
import { AFTER_A_WRITE } from './writeContract';

export const option = {
	name: 'Change Status',
	value: 'changeStatus',
	description: 'Report payment (Paid), refund a paid order, or release a hold',
	action: 'Report payment, refund or release an order',
};

export const kind = 'write';

export const eachRun = "each item changed an order's status";

export const toolText =
	'Change the status of an order by its order ID: "paid" reports the customer\'s payment and ' +
	'answers the tickets with barcodes, "expired" releases a hold at once, "refund" refunds a ' +
	'paid order.' +
	AFTER_A_WRITE;

export const properties: INodeProperties[] = [
	orderIdField,
	{
		displayName: 'New Status',
		name: 'toStatus',
		type: 'options',
		// The API description names only `paid`; the other two are what the service takes too. Any
		// value by expression.
		options: [
			{
				name: 'Paid',
				value: 'paid',
				description:
					'Report a successful payment. The answer carries the tickets with their barcodes.',
			},
			{ name: 'Refund', value: 'refund', description: 'Refund a paid order' },
			{
				name: 'Release Hold',
				value: 'expired',
				description:
					'End a hold you no longer need: its places are free again ' +
					'and stop counting against your reserved-tickets limit',
			},
		],
		default: 'paid',
		description:
			"The order's new status. Another status the service accepts can be given by expression.",
	},
	orderOptions(true),
];

export async function execute(this: IExecuteFunctions, i: number) {
	return await writeOrder.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		const toStatus = inputs.text(this.getNodeParameter('toStatus', i, ''), 'New Status');
		return {
			method: 'PUT',
			path: path`/orders/${order}/status`,
			body: { toStatus },
			check: orderCheck(
				order,
				`Changing the status of order ${order} to ${toStatus}`,
				(read) => read.status === toStatus,
				// Paid found not applied on a hold that has ended cannot land late: the outcome is known.
				{ settled: (read) => !canStillReach(toStatus, read.status) },
			),
		};
	});
}
