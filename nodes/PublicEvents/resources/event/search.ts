import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { nameOf } from '../../../shared/format';
import { numericId, show, type Inputs } from '../../../shared/inputs';
import { apiRequestAllItems, type PageSettings } from '../../../shared/transport';

// The two searches by words of the event lists: City (a name, resolved through GET /cities to
// `city.id[]`) and Name Contains (applied here: the API has no name search).

/** The words a search compares: no case, no accents, punctuation as spaces. */
export function searchWords(text: string): string {
	return (
		text
			.normalize('NFKD')
			.replace(/\p{M}/gu, '')
			// Upper then lower: ß becomes ss, as a person typing without it would write.
			.toUpperCase()
			.toLowerCase()
			.replace(/[^\p{L}\p{N}]+/gu, ' ')
			.trim()
	);
}

/**
 * Optional search text: nothing when empty (what an agent leaves out); else text with a letter or
 * a digit (spaces alone are a slip, not a search).
 */
export function searchText(value: unknown, field: string, inputs: Inputs): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string' && typeof value !== 'number')
		inputs.fail(field, `expected text, got ${show(value)}`);
	const text = inputs.text(value, field);
	if (searchWords(text) === '') inputs.fail(field, `expected letters or digits, got ${show(text)}`);
	return text;
}

/** Keeps the events whose name holds `text` as searchWords compares them. */
export function nameContains(text: string): (event: IDataObject) => boolean {
	const wanted = searchWords(text);
	return (event) => {
		const name = event.eventName ?? event.name;
		return typeof name === 'string' && searchWords(name).includes(wanted);
	};
}

/** The cities a City filter named, and the list it was looked up in. */
export interface CityMatch {
	/** The cities of that name (none when no city has it), told apart: "Frankfurt (Germany)". */
	cities: Array<{ id: string; label: string }>;
	/** Every city name of the list, for the words of a name that matches none. */
	known: string[];
}

/** A city's names a City filter is compared with: its own, and with its country's name or code. */
function cityKeys(city: IDataObject): { own: string; all: string[] } {
	const own = searchWords(String(city.name ?? ''));
	const country = city.country as IDataObject | undefined;
	const extra = [nameOf(country), country?.code].filter((v) => typeof v === 'string');
	return { own, all: [own, ...extra.map((v) => `${own} ${searchWords(String(v))}`)] };
}

/**
 * The cities named `name`: those whose name is it (or, written after the name, their country's
 * name or code: "Valencia, Spain"); when none is, those whose name starts with it as whole words
 * ("Frankfurt" for "Frankfurt am Main" and "Frankfurt (Oder)"). Several: all of them.
 */
export async function citiesNamed(
	this: IExecuteFunctions,
	name: string,
	settings: PageSettings,
): Promise<CityMatch> {
	const list = await cityList(this, settings);
	const wanted = searchWords(name);
	const exact = list.filter((city) => cityKeys(city).all.includes(wanted));
	const chosen = exact.length
		? exact
		: list.filter((city) => cityKeys(city).own.startsWith(`${wanted} `));
	const cities = new Map<string, string>();
	for (const city of chosen) {
		const id = numericId(city.id ?? city['@id'], ['cities']);
		const country = nameOf(city.country);
		const label = country ? `${String(city.name)} (${country})` : String(city.name);
		if (id !== undefined && !cities.has(id)) cities.set(id, label);
	}
	return {
		cities: [...cities].map(([id, label]) => ({ id, label })),
		known: list.map((city) => String(city.name ?? '')).filter((n) => n !== ''),
	};
}

/** The reference list of cities, read once per node run and language (the items share it). */
const perRun = new WeakMap<object, Map<string, Promise<IDataObject[]>>>();

async function cityList(context: IExecuteFunctions, settings: PageSettings) {
	const byLanguage = perRun.get(context) ?? new Map<string, Promise<IDataObject[]>>();
	perRun.set(context, byLanguage);
	const key = settings.language ?? '';
	let list = byLanguage.get(key);
	if (!list) {
		const { retry, language, itemIndex, maxPagesInFlight } = settings;
		list = apiRequestAllItems.call(
			context,
			'/cities',
			{},
			{ retry, language, itemIndex, maxPagesInFlight },
		);
		// A failed read is not kept: the next item asks again.
		list.catch(() => byLanguage.delete(key));
		byLanguage.set(key, list);
	}
	return await list;
}

/** Words for a City that names no city: which names there are (all, or those of its letter). */
export function noCityWords(name: string, known: string[]): string {
	const names = [...new Set(known)].sort((a, b) => a.localeCompare(b));
	const initial = searchWords(name).charAt(0);
	const near = names.length <= 50 ? names : names.filter((n) => searchWords(n).startsWith(initial));
	const listed = near.slice(0, 50);
	const more = near.length > listed.length ? ', …' : '';
	const which =
		names.length <= 50 ? 'The cities are' : `Cities beginning with "${initial.toUpperCase()}"`;
	return (
		`No city is named ${show(name)} in the service's list of cities, so no events were ` +
		`searched.${listed.length ? ` ${which}: ${listed.join(', ')}${more}.` : ''}`
	);
}
