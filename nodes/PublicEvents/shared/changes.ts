import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * The four kinds of change the spec names (section 6). Both triggers emit items whose `type` is
 * one of these values, so a workflow can switch from polling to push without changing.
 */
export const CHANGE_TYPES = ['newEvent', 'eventUpdated', 'sale', 'refund'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export const changeTypeOptions: INodePropertyOptions[] = [
	{ name: 'New Event', value: 'newEvent', description: 'An event session was opened to your company' },
	{ name: 'Event Updated', value: 'eventUpdated', description: 'An event session changed (name, dates, venue…)' },
	{ name: 'Sale', value: 'sale', description: 'An order was paid' },
	{ name: 'Refund', value: 'refund', description: 'An order, or some of its tickets, was refunded' },
];
