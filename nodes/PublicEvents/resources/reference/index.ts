import type { ResourceModule } from '../operation';
import { referenceLists } from './referenceLists';

export const reference: ResourceModule = {
	option: { name: 'Reference', value: 'reference' },
	defaultOperation: 'getManyCountries',
	operations: [...referenceLists],
};
