import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { idParameter, idsParameter } from '../../../shared/readFields';
import { eventLocator, placeLocator } from '../../../shared/commonFields';
import { writeOrder } from './orderWrite';
import {
	holdMinutesField,
	holdNotice,
	listSectorLocator,
	orderOptions,
	priceCategoryField,
} from './orderFields';
import { createCheck } from './createCheck';
import { AFTER_A_WRITE, type OrderWrite } from './writeContract';

export const option = {
	name: 'Create',
	value: 'create',
	description: 'Create an order that holds places for a number of minutes',
	action: 'Create an order',
};

export const kind = 'write';

export const eachRun =
	'each item created its own order, whose places stay held (and count against your ' +
	'reserved-tickets limit) until paid or until the hold ends';

export const toolText =
	'Hold places for a customer: creates an order that reserves them for some minutes. Needs the ' +
	'event ID (event search), the place IDs and one price category ID every place offers (both ' +
	'from the place list). Answers the order: id (the order ID), status reserved_to_time, ' +
	"totalPrice and reservedToDate (the hold deadline). Not a sale: payment is the partner's own " +
	'step, after which the order has tickets. A taken place answers a conflict: pick other ' +
	"places. Holds count against the account's limit of reserved tickets." +
	AFTER_A_WRITE;

export const properties: INodeProperties[] = [
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
					'A promo code available to your company, given to the service the way its staging service takes it (the API description does not say how). If your service does not apply it, ask its staff how it wants the code and add it in Additional Body Fields (JSON). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
	},
	orderOptions(true, true),
];

export async function execute(this: IExecuteFunctions, i: number) {
	return await writeOrder.call(
		this,
		i,
		(inputs) => {
			const promoCode = (this.getNodeParameter('additionalFields', i, {}) as IDataObject).promoCode;
			const eventPoint = idParameter.call(this, i, inputs, eventLocator);
			const places = idsParameter.call(this, i, inputs, placeLocator);
			const body: IDataObject = {
				eventPoint,
				places,
				priceCategory: idParameter.call(this, i, inputs, priceCategoryField),
				reservedMinutes: inputs.positiveInt(
					this.getNodeParameter('reservedMinutes', i, 15),
					'Hold Minutes',
				),
			};
			if (promoCode !== undefined && promoCode !== '')
				body.promocode = inputs.text(promoCode, 'Promo Code Name or ID');
			return { method: 'POST', path: '/orders', body, check: createCheck(eventPoint, places) };
		},
		purchaseOf,
	);
}

/**
 * What an Idempotency Key stands for: the event, how many places, at what price category, for how
 * long; not which places (a repeat may have found other ones free, as Get Places lists them).
 */
function purchaseOf({ body = {} }: OrderWrite): IDataObject {
	const { eventPoint, places, priceCategory, reservedMinutes, promocode } = body;
	return {
		eventPoint,
		places: Array.isArray(places) ? places.length : 0,
		priceCategory,
		reservedMinutes,
		promocode: promocode ?? null,
	};
}
