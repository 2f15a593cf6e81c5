import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { holdMinutesField, holdNotice, orderCall, orderId, orderIdField, orderOptions } from './fields';

const properties: INodeProperties[] = [
	orderIdField,
	{ ...holdMinutesField, description: 'The new hold length, in whole minutes from now (sent as reservedMinutes)' },
	holdNotice,
	orderOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['order'], operation: ['extendHold'] } }, properties);

/** Body not shown by the spec; DESIGN section 4: `{ reservedMinutes }`. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => ({
		method: 'PUT',
		path: `/orders/${orderId.call(this, i, inputs)}/reserve`,
		body: { reservedMinutes: inputs.positiveInt(this.getNodeParameter('reservedMinutes', i, 15), 'Hold Minutes') },
	}));
}
