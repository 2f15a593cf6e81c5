import {
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { amountOf, moneyText, nameOf } from '../format';
import { numericId } from '../inputs';
import { apiRequestAllItems } from '../transport';

function label(record: IDataObject): string {
	const name = record.name ?? record.title ?? record.code ?? record.id;
	return String(name);
}

/**
 * A reference list as dropdown options; the API recommends caching these, n8n asks when the panel
 * opens.
 */
function referenceOptions(path: string, describe?: (record: IDataObject) => string | undefined) {
	return async function (this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
		const records = await apiRequestAllItems.call(this, path);
		return records
			.map((record) => ({
				name: label(record),
				value: String(record.id),
				description: describe?.(record),
			}))
			.sort((a, b) => a.name.localeCompare(b.name));
	};
}

/** An event as the editor lists it: `name · start · venue`. */
export function eventLabel(event: IDataObject): string {
	const start = String(event.dateStarted ?? '')
		.slice(0, 16)
		.replace('T', ' ');
	return [event.eventName ?? `Event ${String(event.id)}`, start, nameOf(event.venue)]
		.filter(Boolean)
		.join(' · ');
}

/**
 * The numeric id a resource locator (or plain parameter) of the open node holds; undefined when
 * empty or an expression.
 */
export function currentId(context: ILoadOptionsFunctions, name: string): string | undefined {
	const raw = context.getCurrentNodeParameter(name) as { value?: unknown } | string | undefined;
	return numericId(raw !== null && typeof raw === 'object' ? raw.value : raw);
}

/**
 * What a list shows until the field it hangs off is chosen: one entry that says so, its value
 * empty (nothing chosen). n8n shows a thrown error as "Error fetching options" with the reason
 * only on hover, and an empty list as an unsupported value.
 */
export function waitingFor(text: string): INodePropertyOptions[] {
	return [{ name: text, value: '' }];
}

/**
 * Whether the list's own parameter or the event is set by an expression (an AI tool's $fromAI):
 * chosen when the node runs, nothing to list now. The editor sends expressions resolved, $fromAI
 * as null.
 */
function setByExpression(context: ILoadOptionsFunctions, own: string): boolean {
	const current = context.getCurrentNodeParameters() ?? {};
	const byExpression = (value: unknown) =>
		value === null || (typeof value === 'string' && value.startsWith('='));
	return (
		byExpression(current[own]) ||
		byExpression((current.eventId as { value?: unknown } | undefined)?.value)
	);
}

export const CHOOSE_EVENT = 'Choose the event above first';
/**
 * Price categories of the first chosen place (name · price): the id an order names
 * (docs/architecture.md, "Identifiers and fields").
 */
async function getPriceCategories(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	if (setByExpression(this, 'priceCategory')) return [];
	const eventId = currentId(this, 'eventId');
	if (!eventId)
		return waitingFor(`${CHOOSE_EVENT}, then a place: its price categories are listed here`);
	const raw = this.getCurrentNodeParameter('places') as { value?: unknown } | undefined;
	const placeId = numericId(String(raw?.value ?? '').split(',')[0]);
	if (!placeId)
		return waitingFor('Choose a place above first: its price categories are listed here');
	const sectorId = currentId(this, 'sectorId');
	const path = sectorId
		? `/event-points/${eventId}/sectors/${sectorId}/places`
		: `/event-points/${eventId}/places`;
	// No endpoint reads one place: page through the hall plan until it turns up.
	const [place] = await apiRequestAllItems.call(
		this,
		path,
		{},
		{ limit: 1, keep: (p) => String(p.id) === placeId },
	);
	if (!place)
		throw new NodeOperationError(
			this.getNode(),
			`Place ${placeId} is not in the hall plan of event ${eventId}`,
		);
	return ((place.priceCategories ?? []) as IDataObject[]).map((category) => {
		const amount = moneyText(category.price);
		return {
			name: [label(category), amount].filter(Boolean).join(' · '),
			value: String(category.id),
		};
	});
}

/**
 * Price categories of the free places of the chosen event (or sector), cheapest first, each with
 * its price and how many places are free at it: Hold Best Available's price, before any place is
 * chosen.
 */
async function getFreePriceCategories(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	if (setByExpression(this, 'priceCategoryId')) return [];
	const eventId = currentId(this, 'eventId');
	if (!eventId)
		return waitingFor(`${CHOOSE_EVENT}: the price categories of its free places are listed here`);
	const sectorId = currentId(this, 'sectorId');
	const path = sectorId
		? `/event-points/${eventId}/sectors/${sectorId}/places`
		: `/event-points/${eventId}/places`;
	const free = await apiRequestAllItems.call(
		this,
		path,
		{},
		{
			keep: (place) => Number(place.availableCount) > 0,
		},
	);
	const byId = new Map<string, { category: IDataObject; places: number }>();
	for (const place of free)
		for (const category of (place.priceCategories ?? []) as IDataObject[]) {
			const id = String(category.id);
			byId.set(id, { category, places: (byId.get(id)?.places ?? 0) + 1 });
		}
	if (byId.size === 0) return waitingFor('No place of this event is free now');
	return [...byId.entries()]
		.sort(([, a], [, b]) => amountOf(a.category) - amountOf(b.category))
		.map(([id, { category, places }]) => ({
			name: [label(category), moneyText(category.price), `${places} free`]
				.filter(Boolean)
				.join(' · '),
			value: id,
		}));
}

/**
 * Promo codes available to the company now; the value is the code, which the order body carries.
 */
async function getPromoCodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const codes = await apiRequestAllItems.call(this, '/promocodes');
	return codes.map((record) => {
		const code = String(record.code ?? label(record));
		const off =
			record.discountPercent !== undefined ? `${String(record.discountPercent)}% off` : undefined;
		const until = record.validTo ? `valid until ${String(record.validTo).slice(0, 10)}` : undefined;
		return { name: code, value: code, description: [off, until].filter(Boolean).join(', ') };
	});
}

export const loadOptions = {
	getFreePriceCategories,
	getPriceCategories,
	getPromoCodes,
	getCategories: referenceOptions('/categories'),
	getCities: referenceOptions('/cities', (city) => nameOf(city.country)),
	getCountries: referenceOptions('/countries'),
	getGenres: referenceOptions('/genres'),
	getVenueHalls: referenceOptions('/venue-halls', (hall) => nameOf(hall.venue)),
};
