import { eventList } from './getMany';

export const { option, kind, toolText, properties, execute } = eventList(
	{
		name: 'Get Many Archived',
		value: 'getManyArchived',
		description: 'List the events whose sale has ended',
		action: 'Get many archived events',
	},
	'Search past events whose sale has ended (for questions about history; they cannot be sold). ' +
		'Answers the same fields as the event search.',
	'/event-points-archived',
	{
		filters:
			'The spec names these filters for the live catalog; the archive may ignore some of them',
	},
);
