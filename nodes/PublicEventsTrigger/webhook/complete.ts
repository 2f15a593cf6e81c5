import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { Inputs } from '../../shared/inputs';
import { wantsRows } from '../../shared/ledger/output';
import { channelOf, readSale, recordFields, sourceOf, type SaleRead } from './fullOrder';
import type { Notification } from './normalize';
import { pushRows } from './pushRow';

/** A sale or refund not read: its channel as the notification says it. */
const channelField = (notification: Notification) => ({
	channel: channelOf(sourceOf(notification)),
});

/** The items to start the run with, or why the sender should deliver it again later. */
export type Completed = { items: IDataObject[] } | { later: string };

/**
 * The item a delivery starts its run with. With Fetch Full Order (always on under Security None) a
 * sale or refund carries its record as the API lists it, as the poll trigger's item does: the
 * order with tickets, barcodes, amount and status (also a widget order, found in its list), or a
 * widget refund; with Output Ledger Rows they are the ledger's rows of that record. A
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
	const alone = { items: [{ ...notification, ...channelField(notification) }] };
	if (notification.type !== 'sale' && notification.type !== 'refund')
		return { items: [notification] };
	if (!(this.getNodeParameter('fetchFullOrder', false) as boolean)) return alone;
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const rows = wantsRows(options, new Inputs(this.getNode()));
	const got = read ?? (await readSale.call(this, notification));
	if (got.later) return { later: got.missing ?? 'the record could not be read' };
	if (rows) return { items: await pushRows.call(this, notification, got) };
	return { items: [{ ...notification, ...recordFields(got) }] };
}
