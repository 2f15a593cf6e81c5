import { widgetList } from './getManyOrders';

export const { option, kind, properties, execute } = widgetList(
	{
		name: 'Get Many Refunds',
		value: 'getManyRefunds',
		description: 'List the refunds of widget orders',
		action: 'Get many widget refunds',
	},
	'/widget-orders-refunds',
	'refundedAt',
	'Refunds',
	'Refunded',
	'widgetRefunds',
);
