import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection, requestSettings } from '../../shared/descriptions';
import { Inputs } from '../../shared/inputs';
import { path } from '../../shared/path';
import { apiRequest } from '../../transport';
import { orderId, orderIdField } from './fields';

const properties: INodeProperties[] = [
	orderIdField,
	{
		displayName:
			'Only when payment goes through the service. If you take payment yourself, skip this: report the result with Change Status > Paid.',
		name: 'paymentNotice',
		type: 'notice',
		default: '',
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['getPaymentData'] } },
	properties,
);

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
