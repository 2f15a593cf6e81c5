import type { ResourceModule } from '../operation';
import { widgetLists } from './widgetLists';

export const widget: ResourceModule = {
	option: { name: 'Widget', value: 'widget' },
	defaultOperation: 'getManyOrders',
	operations: [...widgetLists],
};
