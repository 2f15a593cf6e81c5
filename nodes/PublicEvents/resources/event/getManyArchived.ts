import { eventList } from './getMany';

export const { description, execute } = eventList('getManyArchived', '/event-points-archived', {
	filters: 'The spec names these filters for the live catalog; the archive may ignore some of them',
});
