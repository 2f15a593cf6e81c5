import type { ResourceModule } from '../operation';
import * as get from './get';
import * as getSalesSummary from './getSalesSummary';
import { eventLists } from './eventLists';

export const event: ResourceModule = {
	option: { name: 'Event', value: 'event' },
	defaultOperation: 'getMany',
	operations: [get, ...eventLists, getSalesSummary],
};
