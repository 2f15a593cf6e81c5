import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { withAdditionalBody } from '../../../shared/body';
import { Inputs } from '../../../shared/inputs';
import { idParameter, requestSettings } from '../../../shared/readFields';
import { orderOutput } from '../../../shared/tickets';
import { apiRequest } from '../../../shared/transport';
import { confirmWaitOption, keepHoldsOption, orderIdField, ticketIdField } from './orderFields';
import { withOrderId } from './ids';
import { noteHeld, ownHoldConflict } from './holdLedger';
import { checkedWrite, type OrderWrite } from './writeCheck';

// How an order operation reads its IDs and makes its one call (one order out).

export function orderId(this: IExecuteFunctions, i: number, inputs: Inputs): string {
	return idParameter.call(this, i, inputs, orderIdField);
}

export function ticketId(this: IExecuteFunctions, i: number, inputs: Inputs): string {
	return idParameter.call(this, i, inputs, ticketIdField);
}

/**
 * One call about an order: inputs are read and the body (with the user's extra fields) is built
 * before any request; writes go through checkedWrite (a lost answer is checked, never resent).
 * The answer is the order, or one item per ticket when asked.
 */
/** The write options of item `i` (orderFields.ts), checked before any request. */
export function checkWriteOptions(options: IDataObject, inputs: Inputs): void {
	if (options.confirmWaitSeconds !== undefined)
		options.confirmWaitSeconds = inputs.number(
			options.confirmWaitSeconds,
			confirmWaitOption.displayName,
			{ min: 0, max: 300, whole: true },
		);
	if (options.keepHolds !== undefined)
		options.keepHolds = inputs.flag(options.keepHolds, keepHoldsOption.displayName);
}

export async function orderCall(
	this: IExecuteFunctions,
	i: number,
	request: (inputs: Inputs) => OrderWrite | { method: 'GET'; path: string },
): Promise<IDataObject | IDataObject[]> {
	const settings = requestSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const call = request(inputs);
	if ('check' in call) checkWriteOptions(settings.options, inputs);
	// Create and Add Place book places: a later item's 409 on them may be this run's own hold.
	const places =
		'check' in call && Array.isArray(call.body?.places)
			? (call.body.places as string[])
			: undefined;
	let order: IDataObject;
	try {
		order =
			'check' in call
				? await checkedWrite.call(
						this,
						{ ...call, body: withAdditionalBody(settings.options, call.body, inputs) },
						settings,
					)
				: withOrderId(
						(await apiRequest.call(this, call.method, call.path, {}, settings)) as IDataObject,
					);
	} catch (error) {
		throw places ? ownHoldConflict(this, i, error, places) : error;
	}
	if (places)
		noteHeld(
			this,
			i,
			String(order.id),
			places,
			call.method === 'POST' ? 'created' : 'added them to',
		);
	const output = orderOutput(order, settings.options.splitTickets === true);
	// Split, each ticket row says how its order's change was confirmed.
	return Array.isArray(output) && order.writeCheck
		? output.map((item) => ({ ...item, writeCheck: order.writeCheck }))
		: output;
}
