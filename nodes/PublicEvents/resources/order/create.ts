import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { eventLocator, placeLocator } from '../../shared/descriptions';
import {
	holdMinutesField,
	holdNotice,
	listSectorLocator,
	orderCall,
	orderOptions,
	priceCategoryField,
} from './fields';
import { createCheck } from './writeCheck';

const properties: INodeProperties[] = [
	eventLocator,
	listSectorLocator,
	placeLocator,
	priceCategoryField,
	holdMinutesField,
	holdNotice,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Promo Code Name or ID',
				name: 'promoCode',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getPromoCodes' },
				default: '',
				description:
					'A promo code available to your company. The spec does not name its body field: it is sent as "promocode", as the staging service takes it; if yours differs, use Additional Body Fields (JSON). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
	},
	orderOptions(true),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['create'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => {
		const promoCode = (this.getNodeParameter('additionalFields', i, {}) as IDataObject).promoCode;
		const eventPoint = inputs.id(
			this.getNodeParameter('eventId', i, '', { extractValue: true }),
			'Event',
		);
		const places = inputs.someIds(
			this.getNodeParameter('places', i, '', { extractValue: true }),
			'Places',
		);
		const body: IDataObject = {
			eventPoint,
			places,
			priceCategory: inputs.id(
				this.getNodeParameter('priceCategory', i, ''),
				'Price Category Name or ID',
			),
			reservedMinutes: inputs.positiveInt(
				this.getNodeParameter('reservedMinutes', i, 15),
				'Hold Minutes',
			),
		};
		if (promoCode !== undefined && promoCode !== '')
			body.promocode = inputs.text(promoCode, 'Promo Code Name or ID');
		return { method: 'POST', path: '/orders', body, check: createCheck(eventPoint, places) };
	});
}
