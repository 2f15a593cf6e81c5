import type { ResourceModule } from '../operation';
import * as addPlace from './addPlace';
import * as changeStatus from './changeStatus';
import * as changeTicketStatus from './changeTicketStatus';
import * as create from './create';
import * as extendHold from './extendHold';
import * as get from './get';
import * as getManyForEvent from './getManyForEvent';
import * as getPaymentData from './getPaymentData';
import * as holdBestAvailable from './holdBestAvailable';
import * as removeTicket from './removeTicket';

export const order: ResourceModule = {
	option: { name: 'Order', value: 'order' },
	defaultOperation: 'create',
	operations: [
		addPlace,
		changeStatus,
		changeTicketStatus,
		create,
		extendHold,
		get,
		getManyForEvent,
		getPaymentData,
		holdBestAvailable,
		removeTicket,
	],
};
