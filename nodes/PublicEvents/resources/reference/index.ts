import type { ResourceModule } from '../operation';
import { operations } from './getMany';

export const reference: ResourceModule = {
	option: { name: 'Reference', value: 'reference' },
	defaultOperation: 'getManyCountries',
	operations,
};
