import {
	NodeOperationError,
	type IDataObject,
	type INode,
	type IPollFunctions,
} from 'n8n-workflow';

import { EVENT_COLLECTIONS } from '../../shared/commonFields';
import { checkedOptions } from '../../shared/readFields';
import { Inputs, numericId, show } from '../../shared/inputs';
import { zonedTime } from '../../shared/zonedTime';
import { wantsRows } from '../../shared/ledger/output';
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
			zonedTime(options.startFrom, this.getTimezone()) ??
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
