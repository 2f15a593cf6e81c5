import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { withAdditionalBody } from '../../../shared/body';
import { Inputs } from '../../../shared/inputs';
import { requestSettings } from '../../../shared/readFields';
import { orderOutput } from '../../../shared/tickets';
import type { RequestSettings } from '../../../shared/transport';
import { confirmWaitOption, keepHoldsOption } from './orderFields';
import { noteHeld, ownHoldConflict } from './holdLedger';
import { oncePerKey } from './idempotency';
import { checkedWrite } from './writeCheck';
import type { OrderWrite } from './writeContract';

// The one path of every order write, the order operations' and Hold Best Available's.

type WriteSettings = RequestSettings & { options: IDataObject };

/** The write options of item `i` (orderFields.ts). */
function checkWriteOptions(options: IDataObject, inputs: Inputs): void {
	if (options.confirmWaitSeconds !== undefined)
		options.confirmWaitSeconds = inputs.number(
			options.confirmWaitSeconds,
			confirmWaitOption.displayName,
			{ min: 0, max: 300, whole: true },
		);
	if (options.keepHolds !== undefined)
		options.keepHolds = inputs.flag(options.keepHolds, keepHoldsOption.displayName);
}

/**
 * Item `i`'s sender of order writes whose bodies have the fields of `shape`. Its write options and
 * extra body fields are checked here, before any request. Each write then goes through
 * checkedWrite (a lost answer is checked, never resent), and the places a write books are noted
 * for the run (holdLedger.ts): a later failed item releases them, and a later 409 on them is said
 * to be this run's own hold, unless the node `picks` the places itself (Hold Best Available picks
 * others after a 409, and says so).
 */
export function orderWriter(
	this: IExecuteFunctions,
	i: number,
	inputs: Inputs,
	settings: WriteSettings,
	{ shape, picks = false }: { shape?: IDataObject; picks?: boolean } = {},
): (write: OrderWrite) => Promise<IDataObject> {
	checkWriteOptions(settings.options, inputs);
	withAdditionalBody(settings.options, shape, inputs);
	return async (write) => {
		const body = withAdditionalBody(settings.options, write.body, inputs);
		const places = Array.isArray(write.body?.places) ? (write.body.places as string[]) : undefined;
		let order: IDataObject;
		try {
			order = await checkedWrite.call(this, { ...write, body }, settings);
		} catch (error) {
			throw places && !picks ? ownHoldConflict(this, i, error, places) : error;
		}
		if (places) {
			const verb = write.method === 'POST' ? 'created' : 'added them to';
			noteHeld(this, i, String(order.id), places, verb);
		}
		return order;
	};
}

/**
 * An order operation's write: `request` reads the item's inputs (all of them, before any request)
 * into one write; the answer is the order, or one item per ticket when asked. A write that makes
 * an order names its `purchase`: under an Idempotency Key it is made once (idempotency.ts).
 */
export async function writeOrder(
	this: IExecuteFunctions,
	i: number,
	request: (inputs: Inputs) => OrderWrite,
	purchase?: (write: OrderWrite) => IDataObject,
): Promise<IDataObject | IDataObject[]> {
	const settings = requestSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const write = request(inputs);
	const send = orderWriter.call(this, i, inputs, settings, { shape: write.body });
	const minutes = Number(write.body?.reservedMinutes ?? 15);
	const order = purchase
		? await oncePerKey(this, i, inputs, { purchase: purchase(write), minutes, settings }, () =>
				send(write),
			)
		: await send(write);
	const output = orderOutput(order, settings.options.splitTickets === true);
	if (!Array.isArray(output)) return output;
	// Split, each ticket row says how its order's change was confirmed, and that it is a repeat.
	const { writeCheck, idempotency } = order;
	const marks = Object.fromEntries(
		Object.entries({ writeCheck, idempotency }).filter(([, value]) => value !== undefined),
	);
	return output.map((item) => ({ ...item, ...marks }));
}
