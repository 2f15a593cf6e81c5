import type { ResourceModule } from '../operation';
import * as get from './get';
import * as getMany from './getMany';
import * as getManyArchived from './getManyArchived';

export const event: ResourceModule = {
	option: { name: 'Event', value: 'event' },
	defaultOperation: 'getMany',
	operations: [get, getMany, getManyArchived],
};
