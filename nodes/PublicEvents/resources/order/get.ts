import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionsCollection, splitTicketsOption } from '../../../shared/commonFields';
import { Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { requestSettings } from '../../../shared/readFields';
import { orderOutput } from '../../../shared/tickets';
import { apiRequest } from '../../../shared/transport';
import { orderId, withOrderId } from './ids';
import { orderIdField, statusNotice } from './orderFields';

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

const withoutBarcodesOption: INodeProperties = {
	displayName: 'Leave Out Barcodes',
	name: 'withoutBarcodes',
	type: 'boolean',
	default: false,
	description:
		"Whether to remove the tickets' barcodes from the output: a barcode admits its holder, so " +
		'an AI agent or a shared log should not see them. Status, prices and places stay.',
};

export const properties: INodeProperties[] = [
	orderIdField,
	statusNotice,
	optionsCollection([splitTicketsOption, withoutBarcodesOption]),
];

/** The order (or its ticket rows) with every `barcode` field removed, at any depth. */
function withoutBarcodes<T>(value: T): T {
	if (Array.isArray(value)) return value.map(withoutBarcodes) as T;
	if (value === null || typeof value !== 'object') return value;
	return Object.fromEntries(
		Object.entries(value as IDataObject)
			.filter(([key]) => !/^barcodes?$/i.test(key))
			.map(([key, inner]) => [key, withoutBarcodes(inner)]),
	) as T;
}

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = requestSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const leaveOut = inputs.flag(
		settings.options.withoutBarcodes ?? false,
		withoutBarcodesOption.displayName,
	);
	const route = path`/orders/${orderId.call(this, i, inputs)}`;
	const order = withOrderId(
		(await apiRequest.call(this, 'GET', route, {}, settings)) as IDataObject,
	);
	const output = orderOutput(order, settings.options.splitTickets === true);
	return leaveOut ? withoutBarcodes(output) : output;
}
