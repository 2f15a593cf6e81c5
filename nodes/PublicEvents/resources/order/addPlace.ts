import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { placeLocator } from '../../shared/descriptions';
import { listEventLocator, listSectorLocator, orderCall, orderId, orderIdField, orderOptions, priceCategoryField } from './fields';
import { orderCheck, TAKEN, ticketsOf } from './writeCheck';

const properties: INodeProperties[] = [
	orderIdField,
	listEventLocator,
	listSectorLocator,
	{ ...placeLocator, description: `${placeLocator.description} The order must still be held (not paid).` },
	priceCategoryField,
	orderOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['order'], operation: ['addPlace'] } }, properties);

/** Body not shown by the spec; DESIGN section 4: `{ places, priceCategory }`. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await orderCall.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		return {
			method: 'PUT',
			path: `/orders/${order}/add-place`,
			body: {
				places: inputs.someIds(this.getNodeParameter('places', i, '', { extractValue: true }), 'Places'),
				priceCategory: inputs.id(this.getNodeParameter('priceCategory', i, ''), 'Price Category Name or ID'),
			},
			check: orderCheck(order, `Adding places to order ${order}`, (read, sent) => {
				const held = new Set(ticketsOf(read).map((t) => String(t.placeId)));
				return Array.isArray(sent.places) && sent.places.every((place) => held.has(String(place)));
			}, { onConflict: `${TAKEN} and add those, or read order ${order} (Order > Get): only a held order takes places.` }),
		};
	});
}
