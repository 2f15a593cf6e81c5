import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { placeLocator } from '../../../shared/commonFields';
import { idParameter, idsParameter } from '../../../shared/readFields';
import { path } from '../../../shared/path';
import { orderId } from './ids';
import { writeOrder } from './orderWrite';
import {
	listEventLocator,
	listSectorLocator,
	orderIdField,
	orderOptions,
	priceCategoryField,
} from './orderFields';
import { TAKEN } from './createCheck';
import { orderCheck, placeIdsOf } from './readBack';
import { AFTER_A_WRITE } from './writeContract';

export const option = {
	name: 'Add Place',
	value: 'addPlace',
	description: 'Add places to an order that is still held',
	action: 'Add places to an order',
};

export const kind = 'write';

export const eachRun = 'each item added its places to the order';

export const toolText =
	'Add places to an order that is still held. Needs the order ID (from creating the hold) and ' +
	'place IDs with a price category ID (from the place list).' +
	AFTER_A_WRITE;

export const properties: INodeProperties[] = [
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

/** Body `{ places, priceCategory }`: the API description does not show it. */
export async function execute(this: IExecuteFunctions, i: number) {
	return await writeOrder.call(this, i, (inputs) => {
		const order = orderId.call(this, i, inputs);
		const places = idsParameter.call(this, i, inputs, placeLocator);
		return {
			method: 'PUT',
			path: path`/orders/${order}/add-place`,
			body: {
				places,
				priceCategory: idParameter.call(this, i, inputs, priceCategoryField),
			},
			check: orderCheck(
				order,
				`Adding places to order ${order}`,
				(read) => {
					const held = new Set(placeIdsOf(read));
					return places.every((place) => held.has(place));
				},
				{
					onConflict:
						`${TAKEN} and add those, or read order ${order} ` +
						`(Order > Get): only a held order takes places.`,
				},
			),
		};
	});
}
