import type { ResourceModule } from '../operation';
import * as getRows from './getRows';
import * as reconcile from './reconcile';

export const ledger: ResourceModule = {
	option: { name: 'Sales Ledger', value: 'ledger' },
	defaultOperation: 'getRows',
	operations: [getRows, reconcile],
};
