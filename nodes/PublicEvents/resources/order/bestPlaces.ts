import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { amountOf } from '../../../shared/format';
import { plainId } from './ids';

// Hold Best Available's choice of places from the free ones of a hall plan.

interface Place {
	id: string;
	sectorName?: unknown;
	rowName?: unknown;
	placeName?: unknown;
	row: string;
	seat: number;
}

export interface Pick {
	places: Place[];
	priceCategory: string;
}

export interface Wish {
	quantity: number;
	price: 'cheapest' | 'any' | 'category';
	priceCategory?: string;
	together: boolean;
	/** Only the places of one sector were read (for the words of "Not enough places"). */
	sector?: boolean;
}

/** A random few of `list` in place order: buyers in a rush spread out instead of colliding. */
function someOf<T>(list: T[], count: number): T[] {
	const start = Math.floor(Math.random() * (list.length - count + 1));
	return list.slice(start, start + count);
}

/**
 * The best free places for a wish: by price category (cheapest first, or the one with the most
 * free places), then one row with room, chosen at random among those that have it, then (not
 * together) places from rows with the most room. Undefined when no category has enough.
 */
export function bestPlaces(free: IDataObject[], wish: Wish): Pick | undefined {
	const byCategory = new Map<string, { amount: number; places: Place[] }>();
	for (const raw of free) {
		const place: Place = {
			// Bodies take plain IDs: a plan may give IRIs.
			id: plainId(raw, 'places') ?? String(raw.id),
			sectorName: raw.sectorName,
			rowName: raw.rowName,
			placeName: raw.placeName,
			row: `${String(raw.sectorId ?? raw.sectorName)}/${String(raw.rowName)}`,
			seat: Number.parseFloat(String(raw.placeName)),
		};
		for (const category of (raw.priceCategories ?? []) as IDataObject[]) {
			const id = String(category.id);
			if (wish.price === 'category' && id !== wish.priceCategory) continue;
			const entry = byCategory.get(id) ?? { amount: amountOf(category), places: [] };
			entry.amount = Math.min(entry.amount, amountOf(category));
			entry.places.push(place);
			byCategory.set(id, entry);
		}
	}
	const categories = [...byCategory].sort(([, a], [, b]) =>
		wish.price === 'cheapest' ? a.amount - b.amount : b.places.length - a.places.length,
	);
	for (const [priceCategory, { places }] of categories) {
		const rows = new Map<string, Place[]>();
		for (const place of places) rows.set(place.row, [...(rows.get(place.row) ?? []), place]);
		const roomy = [...rows.values()].filter((row) => row.length >= wish.quantity);
		if (roomy.length > 0) {
			const row = roomy[Math.floor(Math.random() * roomy.length)].sort((a, b) => a.seat - b.seat);
			return { places: someOf(row, wish.quantity), priceCategory };
		}
		if (wish.together || places.length < wish.quantity) continue;
		const fullest = [...rows.values()].sort((a, b) => b.length - a.length).flat();
		return { places: fullest.slice(0, wish.quantity), priceCategory };
	}
	return undefined;
}

/** What is left, for "Not enough places": the most one order could hold, and all that is free. */
export function notEnough(node: INode, i: number, free: IDataObject[], wish: Wish) {
	let most = 0;
	for (let n = wish.quantity - 1; n >= 1 && most === 0; n--)
		if (bestPlaces(free, { ...wish, quantity: n })) most = n;
	const how = [
		wish.together && 'together in one row',
		wish.price === 'category' && `at price category ${wish.priceCategory}`,
	].filter(Boolean);
	// "at most N" stays: the shop example reads N from it.
	const fit = most === 0 ? 'none is' : `at most ${most} ${most === 1 ? 'is' : 'are'}`;
	const left =
		free.length === 0
			? 'none is free (sold out, or all held)'
			: `${fit} free that way; ${free.length} place${free.length === 1 ? ' is' : 's are'} ` +
				'free in all';
	// Sold out: fewer would not help. Otherwise the service may still refuse a number that is
	// free (its tickets-per-order limit is not published, and is said only in a refusal).
	const advice =
		free.length === 0
			? ['Places held by others may come free again when their holds end: try again later']
			: [
					'Places held by others may come free again when their holds end. Ask for fewer',
					wish.together && 'turn off Together in One Row',
					wish.price === 'category' && 'choose another price',
					wish.sector && 'leave Sector empty',
				];
	return new NodeOperationError(
		node,
		`Not enough places: ${wish.quantity} asked${how.length ? ` ${how.join(', ')}` : ''}, ` +
			`${left}`,
		{
			itemIndex: i,
			description:
				advice.filter(Boolean).join(', or ').concat('.') +
				(free.length === 0
					? ''
					: ' The service may also limit the tickets in one order: its refusal names that limit.'),
		},
	);
}

/**
 * The hall plan a hold picks from, and the places set aside since it was read. After a 409 the
 * plan in hand is used again without the places taken: a read costs a few round trips, a pick
 * none. It is read anew after a wait, after two conflicts in a row, or before "Not enough places".
 */
export class PlanInHand {
	readonly taken = new Set<string>();
	private places: IDataObject[] = [];
	private fresh = false;
	private conflicts = 0;

	constructor(private readonly read: () => Promise<IDataObject[]>) {}

	async renew(): Promise<void> {
		this.places = await this.read();
		this.fresh = true;
		this.conflicts = 0;
	}

	free(): IDataObject[] {
		return this.places.filter((place) => !this.taken.has(plainId(place, 'places') ?? ''));
	}

	/** The best pick, from a plan read anew when the one in hand has none; undefined: none left. */
	async pick(wish: Wish): Promise<Pick | undefined> {
		const pick = bestPlaces(this.free(), wish);
		if (pick || this.fresh) return pick;
		await this.renew();
		return bestPlaces(this.free(), wish);
	}

	/** After a refusal that is tried again: a 409 (its places set aside) or a wait on the limit. */
	async after(conflict: boolean): Promise<void> {
		this.conflicts = conflict ? this.conflicts + 1 : 0;
		if (!conflict || this.conflicts >= 2) await this.renew();
		else this.fresh = false;
	}
}
