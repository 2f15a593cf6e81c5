import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { path } from '../../../shared/path';
import { orderId } from './ids';
import { writeOrder } from './orderWrite';
import { holdMinutesField, holdNotice, orderIdField, orderOptions } from './orderFields';
import { orderCheck } from './readBack';
import { AFTER_A_WRITE } from './writeContract';

export const option = {
	name: 'Extend Hold',
	value: 'extendHold',
	description: 'Hold the places of an order longer',
	action: 'Extend the hold of an order',
};

export const kind = 'write';

export const eachRun = 'each item extended a hold';

export const toolText =
	'Hold the places of an order longer. Needs the order ID (from creating the hold).' +
	AFTER_A_WRITE;

export const properties: INodeProperties[] = [
	orderIdField,
	{
		...holdMinutesField,
		description: 'The new hold length, in whole minutes from now',
	},
	holdNotice,
	orderOptions(true),
];

/** Body `{ reservedMinutes }`: the API description does not show it. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await writeOrder.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		return {
			method: 'PUT',
			path: path`/orders/${order}/reserve`,
			body: {
				reservedMinutes: inputs.positiveInt(
					this.getNodeParameter('reservedMinutes', i, 15),
					'Hold Minutes',
				),
			},
			// The new deadline counts from the service's clock: only a change from the deadline read
			// first shows it applied.
			check: orderCheck(
				order,
				`Extending the hold of order ${order}`,
				(read, before) =>
					read.reservedToDate !== undefined && read.reservedToDate !== before?.reservedToDate,
				{
					compareWithBefore: true,
				},
			),
		};
	});
}
