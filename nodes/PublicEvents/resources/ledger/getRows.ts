import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../../shared/commonFields';
import { Inputs } from '../../../shared/inputs';
import { periodOf, periodProperties } from '../../../shared/ledger/period';
import { ledgerNow, readLedger } from '../../../shared/ledger/read';
import { listSettings } from '../../../shared/readFields';
import { channelsField, eventScopeFields, ledgerOptions, scopeOf } from './fields';

export const option = {
	name: 'Get Rows',
	value: 'getRows',
	description:
		'Every sale and refund of a period as ledger rows, every channel: the sum of Amount is ' +
		'the net takings',
	action: 'Get the sales ledger rows of a period',
};

export const kind = 'read' as const;

export const toolText =
	'List the sales and refunds of a period (e.g. yesterday) as rows: key, type (sale or ' +
	'refund), channel, orderId, eventPointId, eventName, at, tickets, amount (refunds negative), ' +
	'currency. Summing amount gives the net takings.';

export const properties: INodeProperties[] = [
	channelsField,
	...eventScopeFields,
	...periodProperties('yesterday'),
	optionsCollection(ledgerOptions),
];

/**
 * The ledger rows of the period: one per sale and one per refund, keyed by `key` (ledger/rows.ts),
 * oldest first. Upserted by key into a table they make the partner's ledger.
 */
export async function execute(this: IExecuteFunctions, i: number) {
	const settings = listSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const scope = scopeOf.call(this, i, inputs, settings.options);
	const values = {
		period: this.getNodeParameter('period', i, 'yesterday'),
		days: this.getNodeParameter('days', i, 7),
		since: this.getNodeParameter('since', i, ''),
		until: this.getNodeParameter('until', i, ''),
	};
	// Checked before any request; days are the workflow's, "now" the service's.
	periodOf(values, Date.now(), this.getTimezone(), inputs);
	const now = await ledgerNow(this, settings);
	const period = periodOf(values, now, this.getTimezone(), inputs);
	const { rows } = await readLedger(this, { ...scope, ...period, now }, settings);
	return rows;
}
