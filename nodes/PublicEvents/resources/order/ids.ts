import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { numericId, type Inputs } from '../../../shared/inputs';
import { idParameter } from '../../../shared/readFields';
import { orderIdField, ticketIdField } from './orderFields';

export function orderId(this: IExecuteFunctions, i: number, inputs: Inputs): string {
	return idParameter.call(this, i, inputs, orderIdField);
}

export function ticketId(this: IExecuteFunctions, i: number, inputs: Inputs): string {
	return idParameter.call(this, i, inputs, ticketIdField);
}

/**
 * A record's plain ID from a number, a numeric string, an IRI of `collection` (`/api/v2/places/7`)
 * or an object carrying one as `id` or `@id`: every form the API gives IDs in. Undefined when there
 * is none.
 */
export function plainId(value: unknown, collection: string): string | undefined {
	if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
		const record = value as IDataObject;
		return plainId(record.id ?? record['@id'], collection);
	}
	return numericId(value, [collection]);
}

/**
 * The order with its plain `id`, also when the answer gave only its IRI (`@id`): every order the
 * node hands on names itself the same way.
 */
export function withOrderId(order: IDataObject): IDataObject {
	if (order.id !== undefined && order.id !== null) return order;
	const id = plainId(order['@id'], 'orders');
	return id === undefined ? order : { ...order, id };
}
