import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { moneyText, nameOf } from './format';
import { Inputs } from './inputs';

// What changes when the node runs as an AI agent's tool (`publicEventsTool`): n8n shows a
// property with `'@tool': [true]` on the tool only, so the plain node keeps its output.

/** Whether the node runs as an AI agent's tool: n8n names the tool variant `<type>Tool`. */
export const runsAsTool = (context: IExecuteFunctions): boolean =>
	context.getNode().type.endsWith('Tool');

/** The Limit of a list when the node is a tool: a few results fit an agent's context. */
export const TOOL_LIMIT = 10;

/**
 * Only on the tool, on by default: events and places reduced to the fields an agent decides with.
 */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
	displayOptions: { show: { '@tool': [true] } },
};

const name = (value: unknown) =>
	(value && typeof value === 'object' ? nameOf(value) : value) as IDataObject['name'];
const names = (value: unknown) => (Array.isArray(value) ? value.map(name).join(', ') : undefined);

/** Drops what is undefined, so an absent field costs nothing. */
const defined = (record: IDataObject) =>
	Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as IDataObject;

export function simpleEvent(event: IDataObject): IDataObject {
	return defined({
		id: event.id,
		eventName: event.eventName,
		dateStarted: event.dateStarted,
		dateEndOfSale: event.dateEndOfSale,
		venue: name(event.venue),
		venueHall: name(event.venueHall),
		city: name(event.city),
		categories: names(event.categories),
		minPrice: moneyText(event.minPrice),
		maxPrice: moneyText(event.maxPrice),
		countAvailableTickets: event.countAvailableTickets,
		minAgeLimit: event.minAgeLimit ?? undefined,
	});
}

export function simplePlace(place: IDataObject): IDataObject {
	const categories = Array.isArray(place.priceCategories)
		? (place.priceCategories as IDataObject[])
		: [];
	return defined({
		id: place.id,
		sectorName: place.sectorName,
		rowName: place.rowName,
		placeName: place.placeName,
		availableCount: place.availableCount,
		// Price category ID -> "name, price": the ID is what an order takes.
		priceCategories: Object.fromEntries(
			categories.map((c) => [
				String(c.id),
				[c.name, moneyText(c.price)].filter(Boolean).join(', '),
			]),
		),
	});
}

/**
 * The records as they are, or simplified when the tool's Simplify is on (the plain node has none).
 */
export function simplified(
	this: IExecuteFunctions,
	i: number,
	records: IDataObject[],
	simple: (record: IDataObject) => IDataObject,
): IDataObject[] {
	const simplify = new Inputs(this.getNode(), i).flag(
		this.getNodeParameter('simplify', i, false),
		simplifyProperty.displayName,
	);
	return simplify ? records.map(simple) : records;
}
