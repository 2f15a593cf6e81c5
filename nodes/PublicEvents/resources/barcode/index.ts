import type { ResourceModule } from '../operation';
import * as exportForEvent from './exportForEvent';

export const barcode: ResourceModule = {
	option: { name: 'Barcode', value: 'barcode' },
	defaultOperation: 'exportForEvent',
	operations: [exportForEvent],
};
