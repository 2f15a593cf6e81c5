import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { changeId, eventOf } from '../../../shared/changes';
import { eventLocator, optionsCollection, pagesInFlightOption } from '../../../shared/commonFields';
import { eventNamesOf } from '../../../shared/eventNames';
import { Inputs, show } from '../../../shared/inputs';
import { ledgerNow, readLedger } from '../../../shared/ledger/read';
import { summarize } from '../../../shared/ledger/summary';
import { path } from '../../../shared/path';
import { idParameter, listSettings } from '../../../shared/readFields';
import { apiRequest, apiRequestAllItems, type PageSettings } from '../../../shared/transport';

export const option = {
	name: 'Get Sales Summary',
	value: 'getSalesSummary',
	description:
		'Places sold, refunded, held and free per price category and channel; gross, refunds ' +
		'and net per currency',
	action: 'Get the sales summary of an event',
};

export const kind = 'read' as const;

type Named = { eventPointId: string | null; eventName: string | null };

export const toolText =
	'Sales summary of one event (event ID from the event search): places sold, refunded, held ' +
	'and free per price category and per channel, and gross, refunds and net per currency.';

export const properties: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'summaryScope',
		type: 'options',
		options: [
			{ name: 'One Event', value: 'one' },
			{
				name: 'Events Starting in a Date Range',
				value: 'range',
				description: 'Every event of your company starting in the range, ended ones too',
			},
		],
		default: 'one',
	},
	{ ...eventLocator, displayOptions: { show: { summaryScope: ['one'] } } },
	{
		displayName: 'Starting From',
		name: 'startsFrom',
		type: 'dateTime',
		default: '',
		displayOptions: { show: { summaryScope: ['range'] } },
		description: 'Events starting on or after this day',
	},
	{
		displayName: 'Starting Until',
		name: 'startsUntil',
		type: 'dateTime',
		default: '',
		displayOptions: { show: { summaryScope: ['range'] } },
		description: 'Events starting on or before this day',
	},
	optionsCollection([
		{
			displayName: 'Count Free Places',
			name: 'freePlaces',
			type: 'boolean',
			default: true,
			description:
				"Whether to read each event's hall plan to count its free places per price category " +
				'(the heaviest read: one page per 100 places)',
		},
		pagesInFlightOption,
	]),
];

/** The events of the range, listed and archived, with their names. */
async function eventsOf(
	context: IExecuteFunctions,
	i: number,
	inputs: Inputs,
	settings: PageSettings,
): Promise<IDataObject[]> {
	const scope = context.getNodeParameter('summaryScope', i, 'one');
	if (scope === 'one') return [{ id: idParameter.call(context, i, inputs, eventLocator) }];
	if (scope !== 'range') inputs.fail('Events', `expected "one" or "range", got ${show(scope)}`);
	const qs = {
		'dateStarted[after]': inputs.day(
			context.getNodeParameter('startsFrom', i, ''),
			'Starting From',
		),
		'dateStarted[before]': inputs.day(
			context.getNodeParameter('startsUntil', i, ''),
			'Starting Until',
		),
	};
	const live = await apiRequestAllItems.call(context, '/event-points', qs, settings);
	const archived = await apiRequestAllItems.call(context, '/event-points-archived', qs, settings);
	return [...live, ...archived];
}

/** An event's live holds, each read whole for its tickets. */
async function holdsOf(
	context: IExecuteFunctions,
	eventId: string,
	settings: PageSettings,
): Promise<IDataObject[]> {
	const listed = await apiRequestAllItems.call(
		context,
		path`/event-points/${eventId}/orders`,
		{ status: 'reserved_to_time' },
		settings,
	);
	const holds: IDataObject[] = [];
	for (const order of listed.filter((o) => o.status === 'reserved_to_time'))
		holds.push(
			(await apiRequest.call(
				context,
				'GET',
				path`/orders/${changeId(order.id) ?? ''}`,
				{},
				settings,
			)) as IDataObject,
		);
	return holds.filter((hold) => hold.status === 'reserved_to_time');
}

export async function execute(this: IExecuteFunctions, i: number) {
	const settings = listSettings.call(this, i);
	const inputs = new Inputs(this.getNode(), i);
	const free = settings.options.freePlaces === undefined ? true : settings.options.freePlaces;
	const counted = inputs.flag(free, 'Count Free Places');
	const events = await eventsOf(this, i, inputs, settings);
	const ids = [...new Set(events.map((e) => changeId(e.id)).filter((id) => id !== null))];
	if (ids.length === 0) return [];
	const now = await ledgerNow(this, settings);
	const read = await readLedger(
		this,
		{ channels: ['api', 'widget'], eventIds: ids, from: 0, now, refundLookBackMs: 0 },
		settings,
	);
	const refundedTickets = new Set(
		read.records.widgetRefunds.flatMap((r) =>
			(Array.isArray(r.tickets) ? r.tickets : []).map((t) => String(changeId(t))),
		),
	);
	const summaries: IDataObject[] = [];
	for (const id of ids) {
		const ofEvent = (json: IDataObject) => eventOf(json) === id;
		const rows = read.rows.filter((row) => row.eventPointId === id);
		summaries.push(
			summarize({
				eventPointId: id,
				eventName: null,
				rows,
				orders: [...read.records.widgetOrders, ...read.records.apiOrders].filter(ofEvent),
				refundedTickets,
				holds: await holdsOf(this, id, settings),
				places: counted
					? await apiRequestAllItems.call(this, path`/event-points/${id}/places`, {}, settings)
					: undefined,
			}),
		);
	}
	return await eventNamesOf(this, settings).fill(summaries as Array<IDataObject & Named>);
}
