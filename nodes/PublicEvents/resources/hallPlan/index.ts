import type { ResourceModule } from '../operation';
import * as getPlaces from './getPlaces';
import * as getSectorPlaces from './getSectorPlaces';
import * as getSectors from './getSectors';

export const hallPlan: ResourceModule = {
	option: { name: 'Hall Plan', value: 'hallPlan' },
	defaultOperation: 'getPlaces',
	operations: [getPlaces, getSectorPlaces, getSectors],
};
