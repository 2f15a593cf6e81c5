import {
	NodeOperationError,
	type IDataObject,
	type INode,
	type IPollFunctions,
} from 'n8n-workflow';

import { EVENT_COLLECTIONS } from '../../shared/commonFields';
import { checkedOptions } from '../../shared/readFields';
import { Inputs, isoMoment, numericId, show } from '../../shared/inputs';
import { wantsRows } from '../../shared/tableRows';
import type { RequestSettings } from '../../shared/transport';

export type Source = 'salesAndRefunds' | 'catalog';
export type Feed = 'widgetSales' | 'widgetRefunds' | 'eventOrders';
export const FEEDS: Feed[] = ['widgetSales', 'widgetRefunds', 'eventOrders'];

export interface PollSettings {
	source: Source;
	include: Feed[];
	/** undefined: all visible events. */
	eventIds?: string[];
	overlapMs: number;
	/** Settlement Lag: how long after its time a record may first be listed. */
	lagMs: number;
	startFrom?: number;
	/**
	 * Start From as written (an expression stays its text), so a changed date is noticed, a moving
	 * `$now` is not.
	 */
	startFromKey: string;
	ignoreFields: string[];
	/** Output: Rows for a Table (Sales and Refunds only). */
	rows: boolean;
	request: RequestSettings;
}

const MINUTE = 60_000;
/**
 * The service's default hold: a payment completes within it, so a sale is usually listed within it.
 */
export const DEFAULT_LAG_MINUTES = 15;

/** A parameter that fails its check: the error names the field. */
function invalid(node: INode, field: string, problem: string): never {
	throw new NodeOperationError(node, `${field}: ${problem}`, {
		description: `Fix the "${field}" parameter.`,
	});
}

/** Overlap Window and Settlement Lag, in ms. */
function overlapAndLag(options: IDataObject, inputs: Inputs) {
	const overlap = inputs.number(options.overlapMinutes ?? 5, 'Overlap Window (Minutes)', {
		min: 0,
		max: 1440,
	});
	const lag = inputs.number(
		options.settlementLagMinutes ?? DEFAULT_LAG_MINUTES,
		'Settlement Lag (Minutes)',
		{ min: 0, max: 1440, whole: true },
	);
	return { overlapMs: overlap * MINUTE, lagMs: lag * MINUTE };
}

/** Catalog: Fields to Ignore, a list or comma-separated text. */
function ignoredFields(this: IPollFunctions): string[] {
	const ignore = this.getNodeParameter('fieldsToIgnore', 'countAvailableTickets');
	return (Array.isArray(ignore) ? ignore : String(ignore ?? '').split(','))
		.map((name) => String(name).trim())
		.filter(Boolean);
}

/** Include: the feeds to read, at least one. */
function includedFeeds(this: IPollFunctions): Feed[] {
	const include = this.getNodeParameter('include', FEEDS) as unknown;
	const feeds = (Array.isArray(include) ? include : [include]).filter((feed): feed is Feed =>
		FEEDS.includes(feed as Feed),
	);
	if (feeds.length === 0)
		invalid(
			this.getNode(),
			'Include',
			'choose at least one of Widget Sales, Widget Refunds, Event Orders',
		);
	return feeds;
}

/** Event Names or IDs: numeric event ids, each once, at least one. */
function chosenEventIds(this: IPollFunctions): string[] {
	const field = 'Event Names or IDs';
	const raw = this.getNodeParameter('eventIds', []) as unknown;
	const list = Array.isArray(raw)
		? raw
		: typeof raw === 'string'
			? raw.split(',').filter((part) => part.trim() !== '')
			: raw === undefined || raw === null
				? []
				: [raw];
	const ids = [
		...new Set(
			list.map(
				(value) =>
					numericId(value, EVENT_COLLECTIONS) ??
					invalid(this.getNode(), field, `expected numeric event IDs, got ${show(value)}`),
			),
		),
	];
	if (ids.length === 0)
		invalid(this.getNode(), field, 'choose at least one event, or watch All Visible Events');
	return ids;
}

/** Start From as a time, and as written; nothing when it is empty. */
function startFromOption(
	this: IPollFunctions,
	options: IDataObject,
): Partial<Pick<PollSettings, 'startFromKey' | 'startFrom'>> {
	const rawStart = (this.getNodeParameter('options.startFrom', '', { rawExpressions: true }) ??
		'') as unknown;
	if (rawStart === '' || rawStart === null) return {};
	return {
		startFromKey: String(rawStart),
		startFrom:
			startTime(options.startFrom, this.getTimezone()) ??
			invalid(
				this.getNode(),
				'Start From',
				`expected a date and time, got ${show(options.startFrom)}`,
			),
	};
}

/** Reads and checks the parameters before any request; a failure names the field. */
export function pollSettings(this: IPollFunctions): PollSettings {
	const source = this.getNodeParameter('source', 'salesAndRefunds') as Source;
	if (source !== 'salesAndRefunds' && source !== 'catalog')
		invalid(this.getNode(), 'Source', 'expected "salesAndRefunds" or "catalog"');
	const options = this.getNodeParameter('options', {}) as IDataObject;
	// The checks the action node makes: retry bounds, a language code (a header), numbers that are
	// numbers.
	const inputs = new Inputs(this.getNode());
	const { retry, language } = checkedOptions(options, inputs);
	const request: RequestSettings = { retry, language };
	const settings: PollSettings = {
		source,
		include: [],
		...overlapAndLag(options, inputs),
		startFromKey: '',
		ignoreFields: [],
		rows: false,
		request,
	};
	if (source === 'catalog') {
		settings.ignoreFields = ignoredFields.call(this);
		return settings;
	}
	settings.rows = wantsRows(options, inputs);
	settings.include = includedFeeds.call(this);
	if (
		settings.include.includes('eventOrders') &&
		this.getNodeParameter('eventScope', 'all') === 'chosen'
	)
		settings.eventIds = chosenEventIds.call(this);
	return { ...settings, ...startFromOption.call(this, options) };
}

/**
 * Start From as epoch ms: a Date, a Luxon DateTime, or ISO text; text without an offset is in the
 * workflow's time zone.
 */
/** A day or date-time in parts: year, month, day, hour, minute, second, offset. */
const START_PARTS = new RegExp(
	'^(\\d{4})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.\\d+)?)?)?' +
		'(Z|[+-]\\d{2}:?\\d{2})?$',
	'i',
);

export function startTime(value: unknown, timeZone: string): number | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
	const text =
		typeof (value as { toISO?: unknown })?.toISO === 'function'
			? String((value as { toISO: () => string }).toISO())
			: value;
	if (typeof text !== 'string') return undefined;
	const match = START_PARTS.exec(text.trim());
	// 2026-13-01, 10:99 and offsets past ±14:59 are no times
	if (!match || !isoMoment(text.trim())) return undefined;
	if (match[7]) {
		const ms = Date.parse(text.trim().replace(' ', 'T'));
		return Number.isNaN(ms) ? undefined : ms;
	}
	const [year, month, day, hour, minute, second] = match
		.slice(1, 7)
		.map((part) => Number(part ?? 0));
	const wall = Date.UTC(year, month - 1, day, hour, minute, second);
	if (new Date(wall).getUTCDate() !== day) return undefined; // 2026-02-31 and the like
	// The zone's offset at that moment: guess with the wall time, then correct once (DST edges).
	const first = wall - zoneOffsetMs(wall, timeZone);
	return wall - zoneOffsetMs(first, timeZone);
}

function zoneOffsetMs(at: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(at));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
	const local = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return local - Math.floor(at / 1000) * 1000;
}
