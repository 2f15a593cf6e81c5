import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { path } from '../../shared/path';
import {
	holdMinutesField,
	holdNotice,
	orderCall,
	orderId,
	orderIdField,
	orderOptions,
} from './fields';
import { orderCheck } from './writeCheck';

const properties: INodeProperties[] = [
	orderIdField,
	{
		...holdMinutesField,
		description: 'The new hold length, in whole minutes from now (sent as reservedMinutes)',
	},
	holdNotice,
	orderOptions(true),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['extendHold'] } },
	properties,
);

/** Body `{ reservedMinutes }`: the API description does not show it. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => {
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
			// The new deadline counts from the service's clock: only a change from the deadline read first shows it applied.
			check: orderCheck(
				order,
				`Extending the hold of order ${order}`,
				(read, before) => read.reservedToDate !== before?.reservedToDate,
				{
					compareWithBefore: true,
				},
			),
		};
	});
}
