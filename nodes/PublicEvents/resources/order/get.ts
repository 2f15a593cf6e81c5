import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { path } from '../../shared/path';
import { orderCall, orderId, orderIdField, orderOptions, statusNotice } from './fields';

const properties: INodeProperties[] = [orderIdField, statusNotice, orderOptions(false)];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => ({
		method: 'GET',
		path: path`/orders/${orderId.call(this, i, inputs)}`,
	}));
}
