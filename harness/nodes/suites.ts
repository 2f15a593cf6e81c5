import { publicEventsSuite } from './publicEvents';

/** 30 events with 3 archived; the suite's own token first, the request log emptied per test. */
export const eventsSuite = () =>
	publicEventsSuite(
		{ events: 30, placesPerEvent: 2, archivedEvents: 3 },
		{ tokens: ['partner'], clearLog: true },
	);

/**
 * 250 events: three pages of 100, so filters' page counts show. After each test the array
 * envelope again and no faults.
 */
export const manyEventsSuite = () =>
	publicEventsSuite(
		{ events: 250, placesPerEvent: 2, archivedEvents: 6 },
		{ tokens: ['partner'], resetConfig: true },
	);

/** 120 widget orders (two pages of 100); tokens of the partner and the organiser first. */
export const widgetSuite = () =>
	publicEventsSuite(
		{ events: 10, placesPerEvent: 60, archivedEvents: 2, widgetOrders: 120 },
		{ tokens: ['partner', 'organiser'] },
	);
