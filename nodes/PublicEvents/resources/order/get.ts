import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { path } from '../../../shared/path';
import { orderCall, orderId } from './call';
import { orderIdField, orderOptions, statusNotice } from './fields';

export const option = {
	name: 'Get',
	value: 'get',
	description: 'Get an order: totals, hold deadline and, once paid, the tickets with barcodes',
	action: 'Get an order',
};

export const kind = 'read';

export const toolText =
	'Get an order by its order ID (the id answered when the hold was created): status, ' +
	'totalPrice, hold deadline (reservedToDate) and, once paid, its tickets with barcodes.';

export const properties: INodeProperties[] = [orderIdField, statusNotice, orderOptions(false)];

export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => ({
		method: 'GET',
		path: path`/orders/${orderId.call(this, i, inputs)}`,
	}));
}
