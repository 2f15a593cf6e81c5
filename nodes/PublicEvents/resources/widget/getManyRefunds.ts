import { widgetList } from './getManyOrders';

export const { description, execute } = widgetList(
	'getManyRefunds',
	'/widget-orders-refunds',
	'refundedAt',
	'Refunds',
	'Refunded',
	'widgetRefunds',
);
