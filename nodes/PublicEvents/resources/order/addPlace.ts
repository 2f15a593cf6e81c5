import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { placeLocator } from '../../shared/descriptions';
import { path } from '../../shared/path';
import {
	listEventLocator,
	listSectorLocator,
	orderCall,
	orderId,
	orderIdField,
	orderOptions,
	priceCategoryField,
} from './fields';
import { orderCheck, TAKEN, ticketsOf } from './writeCheck';

const properties: INodeProperties[] = [
	orderIdField,
	listEventLocator,
	listSectorLocator,
	{
		...placeLocator,
		description: `${placeLocator.description} The order must still be held (not paid).`,
	},
	priceCategoryField,
	orderOptions(true),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['addPlace'] } },
	properties,
);

/** Body `{ places, priceCategory }`: the API description does not show it. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		const places = inputs.someIds(
			this.getNodeParameter('places', i, '', { extractValue: true }),
			'Places',
		);
		return {
			method: 'PUT',
			path: path`/orders/${order}/add-place`,
			body: {
				places,
				priceCategory: inputs.id(
					this.getNodeParameter('priceCategory', i, ''),
					'Price Category Name or ID',
				),
			},
			check: orderCheck(
				order,
				`Adding places to order ${order}`,
				(read) => {
					const held = new Set(ticketsOf(read).map((t) => String(t.placeId)));
					return places.every((place) => held.has(place));
				},
				{
					onConflict: `${TAKEN} and add those, or read order ${order} (Order > Get): only a held order takes places.`,
				},
			),
		};
	});
}
