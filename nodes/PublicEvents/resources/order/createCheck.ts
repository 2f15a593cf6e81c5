import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { path } from '../../../shared/path';
import {
	apiRequestAllItems,
	successOf,
	type PageSettings,
	type RequestSettings,
} from '../../../shared/transport';
import { plainId } from './ids';
import { orderIdOf, placeIdsOf, readOrder, samePlaces, stateOf } from './readBack';
import type { Answer } from './lostAnswer';
import type { ReadBack, WriteCheck } from './writeContract';

/** A place held or sold by anyone answers 409. */
export const TAKEN =
	`A place that is sold or held cannot be booked: pick other places from the ` +
	`event's place list (Hall Plan > Get Places, those with availableCount above 0)`;

const listed = (ids: string[]) => ids.join(', ');
/** The read of the order a Create answer names, to see its places. */
const VERIFY_RETRY = { maxRetries: 1, maxWaitMs: 1_000 };

/** Create answers without tickets: one item, as an answered Create gives. */
function asCreated(order: IDataObject): IDataObject {
	const created = { ...order };
	delete created.tickets;
	return created;
}

/**
 * The account's live orders on the event holding any of `places`, each read whole; `elsewhere`
 * remembers orders read before that hold none, so reading again reads only new ones.
 */
async function holdersOf(
	this: IExecuteFunctions,
	eventId: string,
	places: string[],
	settings: RequestSettings,
	elsewhere: Set<string>,
): Promise<IDataObject[]> {
	const live = await apiRequestAllItems.call(
		this,
		path`/event-points/${eventId}/orders`,
		{ status: 'reserved_to_time' },
		{ ...settings, limit: undefined, keep: undefined } as PageSettings,
	);
	const holders: IDataObject[] = [];
	const wanted = new Set(places);
	// Newest first: a new hold is the likeliest; the account's limit bounds how many there are. IDs
	// compared as digits: a 64-bit one is no safe number.
	const ids = live
		.map(orderIdOf)
		.filter((id): id is string => id !== undefined)
		.sort((a, b) => b.length - a.length || (b > a ? 1 : b < a ? -1 : 0));
	for (const id of ids.filter((id) => !elsewhere.has(id))) {
		const order = await readOrder.call(this, id, settings);
		if (order.status === 'reserved_to_time' && placeIdsOf(order).some((place) => wanted.has(place)))
			holders.push(order);
		else elsewhere.add(id);
	}
	return holders;
}

/** Which of `places` the hall plan (the sector's, when known) shows taken. */
async function takenOf(
	this: IExecuteFunctions,
	planPath: string,
	places: string[],
	settings: RequestSettings,
): Promise<string[]> {
	const wanted = new Set(places);
	const plan = await apiRequestAllItems.call(this, planPath, {}, {
		...settings,
		limit: undefined,
		keep: (place) => wanted.has(plainId(place, 'places') ?? ''),
	} as PageSettings);
	const free = new Set(
		plan
			.filter((place) => Number(place.availableCount) > 0)
			.map((place) => plainId(place, 'places')),
	);
	return places.filter((place) => !free.has(place));
}

/** The statuses of an order that holds its places; an answer may leave the status out. */
const LIVE = ['reserved_to_time', 'created'];
const live = (order: IDataObject) =>
	order.status === undefined || LIVE.includes(String(order.status));

/** What a Create asked for, as its check reads it back. */
interface Asked {
	eventId: string;
	places: string[];
	planPath: string;
	/** "places 5, 6", for the sentences. */
	these: string;
	/** Orders read before that hold none of the places. */
	elsewhere: Set<string>;
}

/**
 * Whether the order a 2xx answer names, read once, holds the places asked for (Create answers
 * without tickets, so the answer alone cannot show them).
 */
async function shownOnRead(
	this: IExecuteFunctions,
	{ places }: Asked,
	answer: IDataObject,
	settings: RequestSettings,
): Promise<boolean> {
	const id = orderIdOf(answer);
	if (id === undefined || !live(answer) || placeIdsOf(answer).length > 0) return false;
	// One retry at most: the buyer is waiting, and the hold is made either way.
	const once = { ...settings, retry: { ...VERIFY_RETRY, timeoutMs: settings.retry?.timeoutMs } };
	const order = await readOrder.call(this, id, once).catch(() => undefined);
	// Unreadable (the service failing its reads): a 201 Created with a live order stands as it
	// did; a 200 is read back.
	if (order === undefined) return successOf(answer)?.status === 201;
	return live(order) && samePlaces(placeIdsOf(order), places);
}

/** The order a lost answer named: this request's only when it is live and holds these places. */
async function namedOrder(
	this: IExecuteFunctions,
	{ places, these }: Asked,
	id: string,
	settings: RequestSettings,
): Promise<ReadBack> {
	const order = await readOrder.call(this, id, settings);
	const held = placeIdsOf(order);
	if (live(order) && (held.length === 0 || samePlaces(held, places)))
		return { applied: asCreated(order) };
	return {
		unclear: true,
		conclusive: true,
		candidates: [stateOf(order)],
		shown:
			`the answer named order ${id}, but that order is ` +
			`${String(order.status)} and holds places ${listed(held)}, not ${these}, so the ` +
			`node did not take it as this one`,
	};
}

/** With no order named: the live orders holding the places, then the hall plan. */
async function searchedOrders(
	this: IExecuteFunctions,
	asked: Asked,
	answer: Answer,
	settings: RequestSettings,
): Promise<ReadBack> {
	const { eventId, places, these } = asked;
	const holders = await holdersOf.call(this, eventId, places, settings, asked.elsewhere);
	const exact = holders.filter((order) => samePlaces(placeIdsOf(order), places));
	if (answer.vouches && exact.length === 1 && holders.length === 1)
		return { applied: asCreated(exact[0]) };
	if (holders.length > 0) {
		const named = holders
			.map((order) => `order ${orderIdOf(order)} (places ${listed(placeIdsOf(order))})`)
			.join(', ');
		return {
			unclear: true,
			// Vouched for, the order may yet show its places as asked; otherwise nothing will change.
			conclusive: !answer.vouches,
			candidates: holders.map(stateOf),
			shown:
				`live orders of your account hold ${these}: ${named}. Nothing the service ` +
				`answered ties ${holders.length === 1 ? 'it' : 'them'} to this request: it may be ` +
				`another buyer's on the same key, so the node did not take it as this one`,
		};
	}
	const taken = await takenOf.call(this, asked.planPath, places, settings);
	if (taken.length === 0)
		return {
			shown:
				`the node searched the live orders of event ${eventId}: none holds ${these}, ` +
				`and the hall plan shows them free`,
		};
	return {
		unclear: true,
		shown:
			`place${taken.length === 1 ? '' : 's'} ${listed(taken)} ` +
			`${taken.length === 1 ? 'is' : 'are'} no longer free, yet no live order of your ` +
			`account on event ${eventId} holds ${these} (its order list may not show a new ` +
			`order yet)`,
	};
}

/**
 * Create's check. Nothing the API shows ties an order to the request that made it except the
 * answer, so an order is this request's only when the answer names it (its body, even cut short,
 * or a Location) and it holds these places, or when the answer vouches that the request made one
 * (Answer.vouches: a 201 whose body is empty or was lost) and one live order of the account holds
 * exactly these places: no other order can hold them while it does. Any other answer vouches for
 * nothing, and any other order holding them may be another buyer's on the same key: it is named,
 * never taken. "Not applied" needs the service to have refused and the hall plan to show every
 * place free.
 */
export function createCheck(
	eventId: string,
	places: string[],
	planPath = path`/event-points/${eventId}/places`,
): WriteCheck {
	const these = `place${places.length === 1 ? '' : 's'} ${listed(places)}`;
	const asked: Asked = { eventId, places, planPath, these, elsewhere: new Set<string>() };
	return {
		change: `Creating an order on event ${eventId}`,
		// The answer shows the order made only when it holds these places: a service answering with
		// an order of the key's that exists already (a cached or replayed answer) would hand this
		// buyer another's.
		shownBy: (answer) =>
			orderIdOf(answer) !== undefined && live(answer) && samePlaces(placeIdsOf(answer), places),
		async shownOnRead(answer, settings) {
			return await shownOnRead.call(this, asked, answer, settings);
		},
		names: orderIdOf,
		async find(settings, _before, answer: Answer): Promise<ReadBack> {
			return answer.orderId !== undefined
				? await namedOrder.call(this, asked, answer.orderId, settings)
				: await searchedOrders.call(this, asked, answer, settings);
		},
		checkFirst:
			`Check the orders of event ${eventId} (Order > Get Many for Event, status Held) before ` +
			`running this again: a hold left behind counts against your reserved-tickets limit ` +
			`until it ends.`,
		onConflict: `${TAKEN} and create the order again with free ones.`,
	};
}
