import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../../shared/commonFields';
import { requestSettings } from '../../../shared/readFields';
import { Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { apiRequest } from '../../../shared/transport';
import { orderId } from './ids';
import { orderIdField } from './orderFields';

export const option = {
	name: 'Get Payment Data',
	value: 'getPaymentData',
	description:
		'Get the payment provider data of a held order (only when payment goes through the service)',
	action: 'Get payment data of an order',
};

export const kind = 'read';

export const properties: INodeProperties[] = [
	orderIdField,
	{
		displayName:
			'Only when payment goes through the service. If you take payment ' +
			'yourself, skip this: report the result with Change Status > Paid.',
		name: 'paymentNotice',
		type: 'notice',
		default: '',
	},
	optionsCollection(),
];

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = requestSettings.call(this, i);
	const id = orderId.call(this, i, new Inputs(this.getNode(), i));
	return (await apiRequest.call(
		this,
		'GET',
		path`/orders/${id}/payment-data`,
		{},
		settings,
	)) as IDataObject;
}
