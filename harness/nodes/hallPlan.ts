import type { IDataObject } from 'n8n-workflow';

import { byId, publicEventsSuite } from './publicEvents';
import { onlyEvents } from '../sandbox/suite';

/** Event 1001 has 30 places in two sectors, some sold; 1003 is sold out (sandbox seed). */
export const EVENT = 1001;
export const SOLD_OUT = 1003;

/** A sandbox of four small events, and the node's Hall Plan operations run on event 1001. */
export function hallPlanSuite() {
	const suite = publicEventsSuite(onlyEvents(4, 30));
	const hallPlan = (operation: string, parameters: IDataObject = {}) =>
		suite.run('hallPlan', operation, { eventId: byId(EVENT), returnAll: true, ...parameters });
	return { ...suite, hallPlan };
}
