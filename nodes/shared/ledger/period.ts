import type { INodeProperties } from 'n8n-workflow';

import { Inputs, show } from '../inputs';
import { dayStart, zonedDay, zonedTime } from '../zonedTime';

/**
 * A period said in words ("Yesterday", "Last 7 Days"), in the workflow's time zone (Settings >
 * Timezone): no expression needed for the usual ones.
 */
export interface Period {
	from: number;
	/** Exclusive; undefined: up to now and on. */
	to?: number;
}

// Alphabetical, as n8n lists options.
const PERIODS = [
	{ name: 'Between Two Dates', value: 'between' },
	{ name: 'Last 30 Days', value: 'last30Days', description: 'Today and the 29 days before' },
	{ name: 'Last 7 Days', value: 'last7Days', description: 'Today and the 6 days before' },
	{ name: 'Last Month', value: 'lastMonth' },
	{ name: 'Last Number of Days', value: 'lastDays', description: 'Today and the days before' },
	{ name: 'Since a Date', value: 'since' },
	{ name: 'This Month', value: 'thisMonth' },
	{ name: 'Today', value: 'today' },
	{ name: 'Yesterday', value: 'yesterday' },
];

export function periodProperties(defaultPeriod = 'yesterday'): INodeProperties[] {
	return [
		{
			displayName: 'Period',
			name: 'period',
			type: 'options',
			options: PERIODS,
			default: defaultPeriod,
			description:
				"Sales paid and refunds made in this period, in the workflow's time zone " +
				'(Settings > Timezone)',
		},
		{
			displayName: 'Days',
			name: 'days',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 3660 },
			default: 7,
			displayOptions: { show: { period: ['lastDays'] } },
			description: 'How many days back, today included',
		},
		{
			displayName: 'From',
			name: 'since',
			type: 'dateTime',
			default: '',
			displayOptions: { show: { period: ['since', 'between'] } },
			description: "From this day or moment on (a day starts at midnight in the workflow's zone)",
		},
		{
			displayName: 'Until',
			name: 'until',
			type: 'dateTime',
			default: '',
			displayOptions: { show: { period: ['between'] } },
			description: 'Up to this day or moment, not included',
		},
	];
}

interface PeriodValues {
	period: unknown;
	days?: unknown;
	since?: unknown;
	until?: unknown;
}

/** A day or moment of a field, a wall time in `zone` unless it has an offset; else it fails. */
export function moment(value: unknown, field: string, zone: string, inputs: Inputs): number {
	const ms = zonedTime(value, zone);
	if (ms === undefined)
		return inputs.fail(field, `expected a date such as 2026-05-01, got ${show(value)}`);
	return ms;
}

/** The period as times; bad values fail naming the field, before any request. */
export function periodOf(values: PeriodValues, now: number, zone: string, inputs: Inputs): Period {
	const today = zonedDay(now, zone);
	const day = (offset: number) => dayStart(zonedDay(now, zone, offset), zone);
	const monthStart = (monthsBack: number) => {
		const [year, month] = today.split('-').map(Number);
		const first = new Date(Date.UTC(year, month - 1 - monthsBack, 1)).toISOString();
		return dayStart(first.slice(0, 10), zone);
	};
	// A field an expression leaves empty (null) names itself: it is not the default.
	switch (values.period === undefined ? 'yesterday' : values.period) {
		case 'today':
			return { from: day(0) };
		case 'yesterday':
			return { from: day(-1), to: day(0) };
		case 'last7Days':
			return { from: day(-6) };
		case 'last30Days':
			return { from: day(-29) };
		case 'thisMonth':
			return { from: monthStart(0) };
		case 'lastMonth':
			return { from: monthStart(1), to: monthStart(0) };
		case 'lastDays': {
			const days = inputs.number(values.days === undefined ? 7 : values.days, 'Days', {
				min: 1,
				max: 3660,
				whole: true,
			});
			return { from: day(1 - days) };
		}
		case 'since':
			return { from: moment(values.since, 'From', zone, inputs) };
		case 'between': {
			const from = moment(values.since, 'From', zone, inputs);
			const to = moment(values.until, 'Until', zone, inputs);
			if (to <= from) inputs.fail('Until', 'must come after From');
			return { from, to };
		}
		default:
			return inputs.fail(
				'Period',
				`expected one of ${PERIODS.map((p) => p.value).join(', ')}, got ${show(values.period)}`,
			);
	}
}
