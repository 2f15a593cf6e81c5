import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	optionsCollection,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../../shared/commonFields';
import { pageSettings } from '../../../shared/readFields';
import { Inputs, show } from '../../../shared/inputs';
import { runsAsTool, simpleEvent, simplified, simplifyProperty } from '../../../shared/tool';
import { apiRequestAllItems, type PageSettings } from '../../../shared/transport';
import type { OperationModule } from '../operation';
import { countryFilter, eventFilters, eventQuery, eventSort, searchFilters } from './filters';
import { citiesNamed, noCityWords } from './search';

// An expected event that is absent is an access setting, not a fault. Shown in
// the output pane when a list comes back empty, once per run.
const NOTHING_VISIBLE =
	'No events came back. An API key sees only the events linked to its company: ' +
	'a missing event is an access setting on the service side, not a fault.';
/** The hints a run showed already: each once per run. */
const hinted = new WeakMap<object, Set<string>>();

function hintOnce(context: IExecuteFunctions, message: string) {
	const shown = hinted.get(context) ?? new Set<string>();
	hinted.set(context, shown);
	if (shown.has(message)) return;
	shown.add(message);
	context.addExecutionHints({ message, location: 'outputPane' });
}

/** One event list: Get Many and Get Many Archived differ only in these. */
interface EventList {
	option: OperationModule['option'];
	toolText: string;
	path: string;
	/** A word on the filters, in place of their own description. */
	filtersNote?: string;
	/** Added to the hint shown when the list comes back empty. */
	emptyNote?: string;
}

type Keep = ((event: IDataObject) => boolean) | undefined;
const both = (a: Keep, b: Keep): Keep => (a && b ? (event) => a(event) && b(event) : (a ?? b));

/**
 * No events, and why: the plain node outputs none and shows the words as a hint; the tool answers
 * the words (an agent reads `[]` as "nothing on", not as "no city of that name").
 */
function noEvents(context: IExecuteFunctions, words: string): IDataObject[] {
	if (runsAsTool(context)) return [{ message: words }];
	hintOnce(context, words);
	return [];
}

/**
 * The City filter as `city.id[]`: the cities of that name, within City Names or IDs when both are
 * given; a sentence when none is left.
 */
async function cityQuery(
	context: IExecuteFunctions,
	qs: IDataObject,
	city: string,
	settings: PageSettings,
): Promise<{ ids: string[]; where: string } | string> {
	const found = await citiesNamed.call(context, city, settings);
	if (found.cities.length === 0) return noCityWords(city, found.known);
	const chosen = qs['city.id[]'] as string[] | undefined;
	const cities = found.cities.filter(({ id }) => !chosen || chosen.includes(id));
	if (cities.length === 0)
		return (
			`No city chosen in City Names or IDs is named ${show(city)}, ` + 'so no events were searched.'
		);
	const labels = cities.map(({ label }) => label);
	if (cities.length > 1)
		hintOnce(
			context,
			`${show(city)} names ${cities.length} cities: ${labels.join(', ')}. ` +
				'The events of any of them are listed.',
		);
	return { ids: cities.map(({ id }) => id), where: `in ${labels.join(' or ')}` };
}

/** What an empty search asked, in words; undefined when it asked no words. */
function nothingFound(name: string | undefined, where: string | undefined): string | undefined {
	const asked = [name === undefined ? '' : `whose name contains ${show(name)}`, where ?? '']
		.filter(Boolean)
		.join(' ');
	return asked ? `No event was found ${asked}.` : undefined;
}

function eventList({ option, toolText, path, filtersNote, emptyNote }: EventList): OperationModule {
	const properties: INodeProperties[] = [
		...returnAllAndLimit,
		simplifyProperty,
		filtersNote ? { ...eventFilters, description: filtersNote } : eventFilters,
		optionsCollection([pagesInFlightOption, eventSort]),
	];
	return {
		option,
		kind: 'read',
		toolText,
		properties,
		async execute(this: IExecuteFunctions, i: number) {
			const settings = pageSettings.call(this, i);
			const filters = this.getNodeParameter('filters', i, {});
			const inputs = new Inputs(this.getNode(), i);
			const qs = eventQuery(filters, settings.options, inputs);
			const search = searchFilters(filters, inputs);
			const keep = both(countryFilter(filters, inputs), search.keep);
			let where: string | undefined;
			if (search.city !== undefined) {
				const cities = await cityQuery(this, qs, search.city, settings);
				if (typeof cities === 'string') return noEvents(this, cities);
				qs['city.id[]'] = cities.ids;
				where = cities.where;
			}
			const events = await apiRequestAllItems.call(this, path, qs, { ...settings, keep });
			if (events.length > 0) return simplified.call(this, i, events, simpleEvent);
			const found = nothingFound(search.name, where);
			if (found && runsAsTool(this)) return noEvents(this, found);
			hintOnce(this, [found, NOTHING_VISIBLE, emptyNote].filter(Boolean).join(' '));
			return [];
		},
	};
}

export const eventLists: OperationModule[] = [
	{
		option: {
			name: 'Get Many',
			value: 'getMany',
			description: 'List the events open to your company whose sale has not ended',
			action: 'Get many events',
		},
		toolText:
			'Search the events (sessions) on sale to this account. Answers a list of events: id (the ' +
			'event ID every other tool takes), eventName, dateStarted, venue, city, categories, ' +
			'minPrice/maxPrice and countAvailableTickets. Dates are filtered by day (YYYY-MM-DD). An ' +
			'event that is missing is not sold through this account.',
		path: '/event-points',
		emptyNote: 'Events whose sale has ended are listed by Get Many Archived.',
	},
	{
		option: {
			name: 'Get Many Archived',
			value: 'getManyArchived',
			description: 'List the events whose sale has ended',
			action: 'Get many archived events',
		},
		toolText:
			'Search past events whose sale has ended (for questions about history; they cannot be ' +
			'sold). Answers the same fields as the event search.',
		path: '/event-points-archived',
		filtersNote:
			'The spec names these filters for the live catalog; the archive may ignore some of them',
	},
].map(eventList);
