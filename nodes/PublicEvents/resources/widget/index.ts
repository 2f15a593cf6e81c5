import type { ResourceModule } from '../operation';
import * as getManyOrders from './getManyOrders';
import * as getManyRefunds from './getManyRefunds';

export const widget: ResourceModule = {
	option: { name: 'Widget', value: 'widget' },
	defaultOperation: 'getManyOrders',
	operations: [getManyOrders, getManyRefunds],
};
