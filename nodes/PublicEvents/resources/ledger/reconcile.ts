import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { optionsCollection } from '../../../shared/commonFields';
import { Inputs, show } from '../../../shared/inputs';
import { reconcile } from '../../../shared/ledger/compare';
import { ledgerNow, readLedger } from '../../../shared/ledger/read';
import { listSettings } from '../../../shared/readFields';
import { channelsField, eventScopeFields, ledgerOptions, scopeOf } from './fields';

export const option = {
	name: 'Reconcile Table',
	value: 'reconcile',
	description:
		"Compare your table's rows (the input items) with the ledger and output the rows to " +
		'write: missing or different. Deletes nothing.',
	action: 'Reconcile a table with the sales ledger',
};

export const kind = 'read' as const;

/** Runs once for all input items: they are one table. */
export const once = true;

const DAY = 24 * 3_600_000;

export const properties: INodeProperties[] = [
	{
		displayName:
			"Feed this node every row of your table (a Data Table's Get Many Rows with Always Output " +
			'Data on, or a sheet read whole); upsert what it outputs by Key',
		name: 'reconcileNotice',
		type: 'notice',
		default: '',
	},
	channelsField,
	...eventScopeFields,
	{
		displayName: 'Look Back (Days)',
		name: 'lookBackDays',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 3660 },
		default: 7,
		description:
			'Sales paid and refunds made this many days back are compared. A first run over an ' +
			'empty table fills it with this much history.',
	},
	{
		displayName: 'Output',
		name: 'reconcileOutput',
		type: 'options',
		options: [
			{
				name: 'Rows to Write',
				value: 'rowsToWrite',
				description: 'The ledger rows the table lacks or has different: upsert them by Key',
			},
			{
				name: 'Extra Copies',
				value: 'extraCopies',
				description:
					"The table's rows that repeat a Key already there (two writes at once can make " +
					'them): delete them by their own row ID',
			},
		],
		default: 'rowsToWrite',
	},
	optionsCollection(ledgerOptions),
];

/** Only the ledger's columns of a table row (a Data Table adds id, createdAt, updatedAt). */
const isRow = (json: IDataObject) => Object.keys(json).length > 0;

export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const settings = listSettings.call(this, 0);
	const inputs = new Inputs(this.getNode(), 0);
	const scope = scopeOf.call(this, 0, inputs, settings.options);
	const days = inputs.number(this.getNodeParameter('lookBackDays', 0, 7), 'Look Back (Days)', {
		min: 1,
		max: 3660,
		whole: true,
	});
	const output = this.getNodeParameter('reconcileOutput', 0, 'rowsToWrite');
	if (output !== 'rowsToWrite' && output !== 'extraCopies')
		inputs.fail('Output', `expected "rowsToWrite" or "extraCopies", got ${show(output)}`);
	const table = items.map((item) => item.json).filter(isRow);
	const indexOf = items.map((item, index) => index).filter((index) => isRow(items[index].json));
	// Extra copies are the table's own: no read of the API.
	if (output === 'extraCopies')
		return reconcile([], table).extraCopies.map((index) => ({
			json: table[index],
			pairedItem: { item: indexOf[index] },
		}));
	const now = await ledgerNow(this, settings);
	const read = await readLedger(this, { ...scope, from: now - days * DAY, now }, settings);
	const result = reconcile(read.rows, table, read.estimated);
	this.addExecutionHints({
		message:
			`Reconcile: ${result.missing} missing, ${result.different} different, ${result.same} ` +
			`the same, ${result.extraCopies.length} extra copies` +
			(result.notKeyed > 0 ? `, ${result.notKeyed} rows without a key (not compared)` : '') +
			`; ${read.ordersRead} API orders read whole` +
			(read.unread > 0
				? `, ${read.unread} orders of events' lists not readable with this key`
				: '') +
			'.',
		location: 'outputPane',
	});
	return result.write.map(({ row, tableIndex }) => ({
		json: row,
		pairedItem: { item: tableIndex === undefined ? 0 : indexOf[tableIndex] },
	}));
}

/** The router runs executeAll instead; kept for the operation's shape. */
export async function execute(this: IExecuteFunctions): Promise<IDataObject[]> {
	return (await executeAll.call(this)).map((item) => item.json);
}
