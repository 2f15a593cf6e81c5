import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	optionsCollection,
	returnAllAndLimit,
	pagesInFlightOption,
} from '../../../shared/commonFields';
import { pageSettings } from '../../../shared/readFields';
import { Inputs } from '../../../shared/inputs';
import { simpleEvent, simplified, simplifyProperty } from '../../../shared/tool';
import { apiRequestAllItems } from '../../../shared/transport';
import type { OperationModule } from '../operation';
import { countryFilter, eventFilters, eventQuery, eventSort } from './filters';

// An expected event that is absent is an access setting, not a fault. Shown in
// the output pane when a list comes back empty, once per run.
const NOTHING_VISIBLE =
	'No events came back. An API key sees only the events linked to its company: ' +
	'a missing event is an access setting on the service side, not a fault.';
const hinted = new WeakSet<object>();

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
			const events = await apiRequestAllItems.call(this, path, qs, {
				...settings,
				keep: countryFilter(filters, inputs),
			});
			if (events.length === 0 && !hinted.has(this)) {
				hinted.add(this);
				this.addExecutionHints({
					message: [NOTHING_VISIBLE, emptyNote].filter(Boolean).join(' '),
					location: 'outputPane',
				});
			}
			return simplified.call(this, i, events, simpleEvent);
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
