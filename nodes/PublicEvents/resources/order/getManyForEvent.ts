import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	eventLocator,
	filtersCollection,
	optionsCollection,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../../shared/commonFields';
import { idParameter, pageSettings } from '../../../shared/readFields';
import { Inputs, show } from '../../../shared/inputs';
import { asRows, outputOption, wantsRows } from '../../../shared/ledger/output';
import { moment, periodOf } from '../../../shared/ledger/period';
import { ledgerNow } from '../../../shared/ledger/read';
import { path } from '../../../shared/path';
import { apiRequestAllItems, type PageSettings } from '../../../shared/transport';
import { changeTime } from '../../../shared/changes';
import { readWhole, withEvent } from '../../../shared/ledger/apiOrders';
import { afterParam } from '../../../shared/widgetFeeds';

export const option = {
	name: 'Get Many for Event',
	value: 'getManyForEvent',
	description: "List your company's orders for an event, without tickets",
	action: 'Get many orders for an event',
};

export const kind = 'read';

export const toolText =
	"List this account's orders for one event (event ID from the event search), without tickets.";

/** Paid in words; alphabetical, as n8n lists options. */
const PAID_CHOICES = [
	{ name: 'Any Time', value: 'anyTime', description: 'Every order, paid or not' },
	{
		name: 'Between Dates',
		value: 'between',
		description: 'From Paid After (included) to Paid Before (left out); either may stay empty',
	},
	{ name: 'Last 30 Days', value: 'last30Days', description: 'Today and the 29 days before' },
	{ name: 'Last 7 Days', value: 'last7Days', description: 'Today and the 6 days before' },
	{ name: 'Last Month', value: 'lastMonth', description: 'The whole of last month' },
	{ name: 'This Month', value: 'thisMonth', description: 'From the 1st of this month on' },
	{ name: 'Today', value: 'today', description: 'From midnight on' },
	{ name: 'Yesterday', value: 'yesterday', description: 'The whole of yesterday' },
];

/** The choices that are Sales Ledger periods (ledger/period.ts), counted back from now. */
const PERIODS = new Set([
	'today',
	'yesterday',
	'last7Days',
	'last30Days',
	'thisMonth',
	'lastMonth',
]);

/**
 * The Paid After filter of workflows saved before Paid: a filter entry named payAtAfter, sent as
 * given. n8n drops an entry the description no longer has, so it stays, shown with Any Time only.
 */
const OLD_PAID_AFTER = 'Paid After (Kept for Older Workflows)';

export const properties: INodeProperties[] = [
	{
		displayName:
			'Orders made through the API only: the widget sales of the event are in Widget > Get Many ' +
			'Orders (Filters > Event ID). Sales Ledger > Get Rows gives every channel.',
		name: 'apiChannelNotice',
		type: 'notice',
		default: '',
	},
	eventLocator,
	{
		displayName: 'Paid',
		name: 'paid',
		type: 'options',
		options: PAID_CHOICES,
		default: 'anyTime',
		description:
			"When the orders were paid, in the workflow's time zone (Settings > Timezone). Any " +
			'Time lists every order, paid or not; every other choice lists paid orders only.',
	},
	{
		displayName: 'Paid After',
		name: 'paidAfter',
		type: 'dateTime',
		default: '',
		displayOptions: { show: { paid: ['between'] } },
		description:
			'Orders paid at this moment or later. A day alone starts at midnight in the ' +
			"workflow's time zone. Empty: no earliest date.",
	},
	{
		displayName: 'Paid Before',
		name: 'paidBefore',
		type: 'dateTime',
		default: '',
		displayOptions: { show: { paid: ['between'] } },
		description:
			'Orders paid before this moment; one paid exactly then is left out. A day alone is ' +
			'its midnight, so that day is left out: for orders up to the end of 31 May, pick 1 June. ' +
			'Empty: no latest date.',
	},
	...returnAllAndLimit,
	filtersCollection([
		{
			displayName: OLD_PAID_AFTER,
			name: 'payAtAfter',
			type: 'dateTime',
			default: '',
			displayOptions: { show: { '/paid': ['anyTime'] } },
			description:
				'Orders paid at or after this moment, given to the service as written: without an ' +
				'offset the service reads it in its own time zone. Choose Paid above instead: ' +
				"Between Dates counts in the workflow's time zone.",
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'multiOptions',
			// Named by the API description; other values by expression.
			options: [
				{
					name: 'Created',
					value: 'created',
					description: 'Status created: being set up, no places held yet',
				},
				{
					name: 'Expired',
					value: 'expired',
					description:
						'Status expired: the hold ended unpaid or was released; the places are free again',
				},
				{
					name: 'Held (Reserved to Time)',
					value: 'reserved_to_time',
					description:
						'Status reserved_to_time: the places are held, ' +
						'waiting for payment until reservedToDate',
				},
				{
					name: 'Paid',
					value: 'paid',
					description: 'Status paid: sold, the tickets carry barcodes',
				},
				{ name: 'Refund', value: 'refund', description: 'Status refund: paid, then refunded' },
			],
			default: [],
			description:
				'Only orders in any of these statuses. By expression, other statuses the service ' +
				'knows too, several separated by commas.',
		},
	]),
	optionsCollection([outputOption, pagesInFlightOption]),
];

/** The Status filter as the query gives it: one status plain, several in the array form. */
function statusQuery(filters: IDataObject, inputs: Inputs): IDataObject {
	// Several statuses by expression: an array, or text separated by commas.
	const status = Array.isArray(filters.status)
		? filters.status
		: typeof filters.status === 'string'
			? filters.status.split(',')
			: [filters.status ?? ''];
	const statuses = status
		.filter((s) => String(s).trim() !== '')
		.map((s) => inputs.text(s, 'Status'));
	// One status as the spec shows it; several in API Platform's array form, since a PHP service
	// keeps only the last of repeated plain keys.
	if (statuses.length === 1) return { status: statuses[0] };
	if (statuses.length > 1) return { 'status[]': statuses };
	return {};
}

interface PaidValues {
	paid: unknown;
	paidAfter: unknown;
	paidBefore: unknown;
}

/** Orders paid from `from` (included) up to `to` (left out); either end may be open. */
interface PaidRange {
	from?: number;
	to?: number;
}

/** The Paid choice as times; undefined for every order. Bad values fail naming the field. */
function paidRange(
	values: PaidValues,
	now: number,
	zone: string,
	inputs: Inputs,
): PaidRange | undefined {
	// An expression that gives nothing (null) names the field: it is not the default.
	const paid = values.paid === undefined ? 'anyTime' : values.paid;
	if (paid === 'anyTime') return undefined;
	if (typeof paid === 'string' && PERIODS.has(paid))
		return periodOf({ period: paid }, now, zone, inputs);
	if (paid !== 'between') {
		const choices = PAID_CHOICES.map((choice) => choice.value).join(', ');
		inputs.fail('Paid', `expected one of ${choices}, got ${show(paid)}`);
	}
	const bound = (value: unknown, field: string) =>
		value === undefined || value === '' ? undefined : moment(value, field, zone, inputs);
	const from = bound(values.paidAfter, 'Paid After');
	const to = bound(values.paidBefore, 'Paid Before');
	if (from !== undefined && to !== undefined && to <= from) {
		const after = show(values.paidAfter);
		inputs.fail(
			'Paid Before',
			`must come after Paid After (${after}), got ${show(values.paidBefore)}`,
		);
	}
	return from === undefined && to === undefined ? undefined : { from, to };
}

/**
 * The query and the check of the Paid choice: the range's start is sent, its end is kept here
 * (the service filters only from a time on); both ends are checked here, against a service that
 * ignores the filter. Everything is checked before any request; "today" is the service's (its
 * clock stamps payAt), in the workflow's time zone.
 */
async function paidQuery(
	this: IExecuteFunctions,
	i: number,
	inputs: Inputs,
	filters: IDataObject,
	settings: PageSettings,
): Promise<{ qs: IDataObject; keep?: (order: IDataObject) => boolean }> {
	const values = {
		paid: this.getNodeParameter('paid', i, 'anyTime'),
		paidAfter: this.getNodeParameter('paidAfter', i, ''),
		paidBefore: this.getNodeParameter('paidBefore', i, ''),
	};
	const zone = this.getTimezone();
	let range = paidRange(values, Date.now(), zone, inputs);
	const old = filters.payAtAfter;
	if (old !== undefined && old !== '') {
		// Shown with Any Time only; Paid by expression can still meet it.
		if (values.paid !== undefined && values.paid !== 'anyTime')
			inputs.fail(OLD_PAID_AFTER, 'applies only when Paid is Any Time: give the date in Paid');
		return { qs: { 'payAt[after]': inputs.time(old, OLD_PAID_AFTER) } };
	}
	if (range === undefined) return { qs: {} };
	if (PERIODS.has(values.paid as string))
		range = paidRange(values, await ledgerNow(this, settings), zone, inputs)!;
	const { from, to } = range;
	const keep = (order: IDataObject) => {
		const at = changeTime(order.payAt);
		return at !== undefined && (from === undefined || at >= from) && (to === undefined || at < to);
	};
	return { qs: from === undefined ? {} : { 'payAt[after]': afterParam(from) }, keep };
}

/**
 * The company's orders for one event, without tickets; as ledger rows, each sold order read whole
 * (one request each): its sale and its refunds.
 */
export async function execute(this: IExecuteFunctions, i: number) {
	const settings = pageSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const rows = wantsRows(settings.options, inputs);
	const eventId = idParameter.call(this, i, inputs, eventLocator);
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const status = statusQuery(filters, inputs);
	const { qs, keep } = await paidQuery.call(this, i, inputs, filters, settings);
	const orders = await apiRequestAllItems.call(
		this,
		path`/event-points/${eventId}/orders`,
		{ ...status, ...qs },
		{ ...settings, keep },
	);
	if (!rows) return orders;
	// The ledger's rows: sold orders only, each read whole (its list total may already be less its
	// refunds, and its refunds are rows of their own).
	const sold = orders
		.filter((order) => changeTime(order.payAt) !== undefined)
		.map((order) => withEvent(order, eventId));
	const { orders: whole } = await readWhole(this, sold, settings);
	return await asRows(this, settings, whole, 'eventOrders');
}
