import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { eventLocator, pagesInFlightOption } from '../../../shared/commonFields';
import { Inputs, show } from '../../../shared/inputs';
import type { LedgerScope } from '../../../shared/ledger/read';
import type { Channel } from '../../../shared/ledger/rows';
import { idParameter } from '../../../shared/readFields';

// The parameters every ledger read shares: channels, events, and how far back API refunds are
// looked for.

const DAY = 24 * 3_600_000;

export const channelsField: INodeProperties = {
	displayName: 'Channels',
	name: 'channels',
	type: 'multiOptions',
	options: [
		{
			name: 'API',
			value: 'api',
			description: 'Orders made through the API: your shop, an AI desk, this node',
		},
		{
			name: 'Widget',
			value: 'widget',
			description: 'Orders placed in the sales widget on your site',
		},
	],
	default: ['api', 'widget'],
	description: 'Where the sales were made. Every row says its channel.',
};

export const eventScopeFields: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'eventScope',
		type: 'options',
		options: [
			{
				name: 'All Events',
				value: 'all',
				description: 'Every event of your company, ended ones too',
			},
			{ name: 'One Event', value: 'one' },
		],
		default: 'all',
	},
	{ ...eventLocator, displayOptions: { show: { eventScope: ['one'] } } },
];

export const refundLookBackOption: INodeProperties = {
	displayName: 'Refunds of API Orders Paid Up To (Days Before)',
	name: 'refundLookBackDays',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: 3660 },
	default: 30,
	description:
		'The API lists no refunds of orders made through it: they are found by reading the ' +
		'orders paid this many days before the period, one request each. A refund of an older ' +
		'order is not found.',
};

export const ledgerOptions = [refundLookBackOption, pagesInFlightOption];

const CHANNELS: Channel[] = ['api', 'widget'];

/** Channels, events and refund look-back of item `i`, checked; the times are the caller's. */
export function scopeOf(
	this: IExecuteFunctions,
	i: number,
	inputs: Inputs,
	options: { refundLookBackDays?: unknown },
): Omit<LedgerScope, 'from' | 'to' | 'now'> {
	const raw = this.getNodeParameter('channels', i, CHANNELS) as unknown;
	const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
	for (const channel of list)
		if (typeof channel !== 'string' || !CHANNELS.includes(channel.trim() as Channel))
			inputs.fail('Channels', `expected api or widget, got ${show(channel)}`);
	const channels = [...new Set(list.map((c) => String(c).trim()))];
	if (channels.length === 0) inputs.fail('Channels', 'choose at least one channel');
	const scope = this.getNodeParameter('eventScope', i, 'all') as string;
	if (scope !== 'all' && scope !== 'one')
		inputs.fail('Events', `expected "all" or "one", got ${show(scope)}`);
	const given = options.refundLookBackDays;
	const days = inputs.number(given === undefined ? 30 : given, refundLookBackOption.displayName, {
		min: 0,
		max: 3660,
		whole: true,
	});
	return {
		channels: channels as Channel[],
		eventIds: scope === 'one' ? [idParameter.call(this, i, inputs, eventLocator)] : undefined,
		refundLookBackMs: days * DAY,
	};
}
