import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { Inputs } from '../../shared/inputs';
import { wantsRows } from '../../shared/tableRows';
import { readSale, recordFields, type SaleRead } from './fullOrder';
import type { Notification } from './normalize';
import { pushRow } from './pushRow';

/** The item to start the run with, or why the sender should deliver it again later. */
export type Completed = { item: IDataObject } | { later: string };

/**
 * The item a delivery starts its run with. With Fetch Full Order (always on under Security None) a
 * sale or refund carries its record as the API lists it, as the poll trigger's item does: the
 * order with tickets, barcodes, amount and status (also a widget order, found in its list), or a
 * widget refund; with Output Rows for a Table it is the poll trigger's row for that record. A
 * record a later read may find (the API failing, not listed yet) starts nothing: the sender is
 * asked to deliver it again, since a run started without it would carry a sale with no amount for
 * good. One that can never be read still starts the run: the item says what is missing and why.
 * `read` is a record read already (Security None checks the delivery against it).
 */
export async function completeItem(
	this: IWebhookFunctions,
	notification: Notification,
	read?: SaleRead,
): Promise<Completed> {
	if (notification.type !== 'sale' && notification.type !== 'refund') return { item: notification };
	if (!(this.getNodeParameter('fetchFullOrder', false) as boolean)) return { item: notification };
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const rows = wantsRows(options, new Inputs(this.getNode()));
	const got = read ?? (await readSale.call(this, notification));
	if (got.later) return { later: got.missing ?? 'the record could not be read' };
	if (rows) return { item: await pushRow.call(this, notification, got) };
	return { item: { ...notification, ...recordFields(got) } };
}
