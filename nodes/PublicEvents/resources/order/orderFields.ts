import type { INodeProperties } from 'n8n-workflow';

import { additionalBodyOption } from '../../../shared/body';
import {
	eventLocator,
	optionsCollection,
	sectorLocator,
	splitTicketsOption,
} from '../../../shared/commonFields';
import { idField } from '../../../shared/inputs';

// The fields the order operations share.

export const orderIdField: INodeProperties = idField(
	{
		displayName: 'Order ID',
		name: 'orderId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 700001',
		description: 'The ID from Create (or its API address, such as /api/v2/orders/700001)',
	},
	['orders'],
);

export const ticketIdField: INodeProperties = idField(
	{
		displayName: 'Ticket ID',
		name: 'ticketId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 900001',
		description: 'The ticketId of one ticket of the order (Order > Get lists them)',
	},
	['tickets'],
);

export const holdMinutesField: INodeProperties = {
	displayName: 'Hold Minutes',
	name: 'reservedMinutes',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 15,
	description: "How long the places stay reserved, in whole minutes (the service's default is 15)",
};

export const holdNotice: INodeProperties = {
	displayName:
		'The order comes back with status reserved_to_time: its places are held for ' +
		'you, waiting for payment until reservedToDate. Held places count against ' +
		"your account's limit of reserved tickets until the order is paid or the hold " +
		'ends. Release holds you no longer need: Order > Change Status > Release Hold.',
	name: 'holdNotice',
	type: 'notice',
	default: '',
};

/** The statuses in an order's `status`, said where an order is read. */
export const statusNotice: INodeProperties = {
	displayName:
		"An order's status: reserved_to_time = its places are held, waiting for " +
		'payment until reservedToDate; paid = sold, the tickets carry barcodes; ' +
		'refund = refunded; expired = the hold ended unpaid or was released.',
	name: 'statusNotice',
	type: 'notice',
	default: '',
};

/** Only for the editor's place and price category lists: Add Place's body names no event. */
export const listEventLocator: INodeProperties = {
	...eventLocator,
	required: false,
	description: "The order's event, to list its places and price categories here. Not sent.",
};

/** Narrows the place list of big halls; the order itself names places only. */
export const listSectorLocator: INodeProperties = {
	...sectorLocator,
	required: false,
	description: "Optional: list only this sector's places below. Not sent.",
};

/** The IRI collections of a price category; the API spells them both ways. */
export const PRICE_CATEGORY_COLLECTIONS = ['price-categories', 'price_categories'];

export const priceCategoryField: INodeProperties = idField(
	{
		displayName: 'Price Category Name or ID',
		name: 'priceCategory',
		type: 'options',
		typeOptions: {
			loadOptionsMethod: 'getPriceCategories',
			loadOptionsDependsOn: ['eventId.value', 'sectorId.value', 'places.value'],
		},
		default: '',
		required: true,
		// Set by an expression, the list stays empty (nothing to list until the run): without this n8n
		// marks the resolved id "not supported" once the workflow has run.
		allowArbitraryValues: true,
		hint: 'Listed from the first place chosen above, once the event and a place are chosen',
		description:
			'One of the chosen place\'s price categories (its priceCategories); every place must offer it. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	PRICE_CATEGORY_COLLECTIONS,
);

/** Options entry of every write: how long a lost answer is read back (writeCheck.ts). */
export const confirmWaitOption: INodeProperties = {
	displayName: 'Max Wait to Confirm a Lost Answer (Seconds)',
	name: 'confirmWaitSeconds',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: 300, numberPrecision: 0 },
	default: 10,
	description:
		'When the answer to this change is lost (no answer, a server error, an answer that cannot ' +
		'be read), how long to keep reading the order back to learn whether it applied before ' +
		'reporting it uncertain. The change is never sent twice. 0 reads it back once.',
};

/** Options entry of the writes that create orders: what a failed run does with earlier holds. */
export const keepHoldsOption: INodeProperties = {
	displayName: 'Keep Holds When a Later Item Fails',
	name: 'keepHolds',
	type: 'boolean',
	default: false,
	description:
		'Whether orders held by earlier input items stay held when a later item fails and stops ' +
		'the run. Off, the node releases them (Release Hold) so no place stays held unnamed; the ' +
		'error names them either way.',
};

/** Options entry of the writes that create orders: a buyer's key for one purchase. */
export const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	description:
		"A key the buyer's request carries for one purchase, such as a shop's Idempotency-Key " +
		'header. The first run with a key holds the places; a later run with the same key (a ' +
		'second click, a resent request) gets that order again, read afresh and marked ' +
		'idempotency.repeated, and holds nothing. With another event, number of places, price or ' +
		'hold length the key is refused. Kept for 24 hours per service (Base URL and environment), ' +
		'in the memory of the n8n process that ran it and in the static data n8n saves with the ' +
		'workflow after a run that is not manual: a repeat in that process, or after a restart ' +
		'outside queue mode, finds it. A key whose first request may have held is in doubt until ' +
		'that hold would have ended. In queue mode, while checkouts overlap on several workers, a ' +
		'repeat on another worker may not find it and holds again.',
};

/**
 * Options of operations that answer with an order; writes also take extra body fields and the
 * wait to confirm a lost answer, writes that create orders what to do with them when a run stops
 * and a buyer's key for the purchase.
 */
export function orderOptions(write: boolean, creates = false): INodeProperties {
	return optionsCollection(
		write
			? [
					additionalBodyOption,
					splitTicketsOption,
					confirmWaitOption,
					...(creates ? [keepHoldsOption, idempotencyKeyOption] : []),
				]
			: [splitTicketsOption],
	);
}
