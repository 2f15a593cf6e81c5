import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { Inputs } from '../../shared/inputs';
import { wantsRows } from '../../shared/rows';
import { readSale, recordFields, sourceOf, type SaleRead } from './fullOrder';
import type { Notification } from './normalize';
import { pushRow } from './rows';

/**
 * The item a delivery starts its run with. With Fetch Full Order (always on under Security None) a
 * sale or refund carries its record as the API lists it, as the poll trigger's item does: the
 * order with tickets, barcodes, amount and status (also a widget order, found in its list), or a
 * widget refund; with Output Rows for a Table it is the poll trigger's row for that record. A
 * record that cannot be read in time still starts the run: the item says what is missing and why.
 * `checked` is a record read already (Security None checks the delivery against it).
 */
export async function completeItem(
	this: IWebhookFunctions,
	notification: Notification,
	checked?: IDataObject,
): Promise<IDataObject> {
	if (notification.type !== 'sale' && notification.type !== 'refund') return notification;
	if (!(this.getNodeParameter('fetchFullOrder', false) as boolean)) return notification;
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const rows = wantsRows(options, new Inputs(this.getNode()));
	const read: SaleRead = checked
		? { source: sourceOf(notification), record: checked }
		: await readSale.call(this, notification);
	if (rows) return await pushRow.call(this, notification, read);
	return { ...notification, ...recordFields(read) };
}
