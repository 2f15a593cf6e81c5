import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { eventNamesOf } from '../eventNames';
import { Inputs, show } from '../inputs';
import type { ApiContext, PageSettings } from '../transport';
import { apiOrderRows, saleRow, ticketsOf, widgetRefundRow, type LedgerRow } from './rows';

/** The list a record comes from: the widget's sales or refunds, or an event's orders. */
export type RecordSource = 'widgetSales' | 'widgetRefunds' | 'eventOrders';

/**
 * Options entry of the sources that list sales or refunds (and of both triggers): Full Records, or
 * the ledger's rows (ledger/rows.ts), the same from every source.
 */
export const outputOption: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	options: [
		{ name: 'Full Records', value: 'records', description: 'Each record as the API gives it' },
		{
			name: 'Ledger Rows',
			value: 'rows',
			description:
				'One flat row per sale and per refund, ready for a spreadsheet or Data Table ' +
				'upserted by Key; the sum of Amount is the net takings',
		},
	],
	default: 'records',
	description:
		'Ledger Rows looks up event names with one more list read per run; an order of an ' +
		"event's list is read whole for its rows (one request each)",
	// The output schema n8n previews before a run is the default's (full records).
	hint:
		'Full Records (the default): each record as the API gives it. Ledger Rows: key, type ' +
		'(sale or refund), channel (api or widget), orderId, eventPointId, eventName, at, ' +
		'tickets, amount (a refund negative), currency, email, refundId, ticketIds. A Data Table ' +
		'needs all these columns: "A new table in one step" in the docs makes it',
};

/** Whether the Options collection asks for rows; any value but the two offered names the field. */
export function wantsRows(options: IDataObject, inputs: Inputs): boolean {
	const output = options.output ?? 'records';
	if (output !== 'records' && output !== 'rows')
		inputs.fail('Output', `expected "records" or "rows", got ${show(output)}`);
	return output === 'rows';
}

/**
 * A listed record as ledger rows: a widget sale, a widget refund (with its order when known), or an
 * event's order (its sale, and its refunds when the record carries its tickets, timed `noticedAt`
 * when the service states no time; an event's list carries no tickets).
 */
export function rowsOf(
	json: IDataObject,
	source: RecordSource,
	noticedAt: string | null = null,
	order?: IDataObject,
): LedgerRow[] {
	if (source === 'widgetSales') return [saleRow(json, 'widget')];
	if (source === 'widgetRefunds') return [widgetRefundRow(json, order)];
	return ticketsOf(json).length > 0 ? apiOrderRows(json, noticedAt) : [saleRow(json, 'api')];
}

/** Records of one source as ledger rows, with their event names. */
export async function asRows(
	context: ApiContext,
	settings: PageSettings,
	records: IDataObject[],
	source: RecordSource,
): Promise<LedgerRow[]> {
	const rows = records.flatMap((json) => rowsOf(json, source));
	return await eventNamesOf(context, settings).fill(rows);
}
