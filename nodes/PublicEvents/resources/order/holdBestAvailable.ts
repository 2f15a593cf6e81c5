import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { additionalBodyOption } from '../../../shared/body';
import { eventLocator, optionsCollection, pagesInFlightOption } from '../../../shared/commonFields';
import { idField, Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { idParameter, pageSettings } from '../../../shared/readFields';
import { apiRequestAllItems, type PageSettings } from '../../../shared/transport';
import {
	confirmWaitOption,
	holdMinutesField,
	holdNotice,
	idempotencyKeyOption,
	keepHoldsOption,
	listSectorLocator,
	PRICE_CATEGORY_COLLECTIONS,
} from './orderFields';
import { absorb, knownPerOrderLimit, type Attempts, type Limits } from './holdRefusals';
import { notEnough, PlanInHand, type Pick, type Wish } from './bestPlaces';
import { createCheck } from './createCheck';
import { orderWriter } from './orderWrite';
import { oncePerKey } from './idempotency';
import { AFTER_A_WRITE, type OrderWrite } from './writeContract';

export const option = {
	name: 'Hold Best Available',
	value: 'holdBestAvailable',
	description:
		'Hold the best free places for a number of minutes: picks them, and picks others when ' +
		"someone else was faster or waits while your account's reserved-tickets limit is reached",
	action: 'Hold the best available places',
};

export const kind = 'write';

export const eachRun =
	'each item held its own places in a new order, which count against your reserved-tickets ' +
	'limit until paid or until the hold ends';

export const toolText =
	'Hold the best free places of an event for a customer, in one step: give the event ID (event ' +
	'search) and how many places; optionally a price (cheapest, any, or one price category ID), a ' +
	'sector ID and whether they must sit together in one row. Picks free places, holds them in a ' +
	'new order and picks others when they were taken meanwhile. Answers the order: id (the order ' +
	'ID), status reserved_to_time, totalPrice, reservedToDate (the hold deadline) and places ' +
	'(sector, row, place names). "Not enough places" says how many are left. Not a sale: payment ' +
	'is the partner\'s own step (Change Status "paid"); release holds that will not be paid.' +
	AFTER_A_WRITE;

export const properties: INodeProperties[] = [
	eventLocator,
	{
		displayName: 'Places',
		name: 'quantity',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1,
		required: true,
		description: 'How many places to hold, all in one order at one price category',
	},
	{
		displayName: 'Price',
		name: 'price',
		type: 'options',
		options: [
			{
				name: 'Cheapest Available',
				value: 'cheapest',
				description: 'The lowest price category that still has enough free places',
			},
			{
				name: 'Any Price',
				value: 'any',
				description: 'The price category with the most free places: the fastest to hold',
			},
			{ name: 'A Price Category', value: 'category', description: 'One price category by ID' },
		],
		default: 'cheapest',
	},
	idField(
		{
			displayName: 'Price Category Name or ID',
			name: 'priceCategoryId',
			type: 'options',
			typeOptions: {
				loadOptionsMethod: 'getFreePriceCategories',
				loadOptionsDependsOn: ['eventId.value', 'sectorId.value'],
			},
			default: '',
			required: true,
			// Set by an expression (an AI tool's $fromAI), the list has nothing to show until the run.
			allowArbitraryValues: true,
			hint: 'Listed from the free places of the event (and sector) chosen above',
			description:
				'The price category to hold places at, with its price and how many places are free at it. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			displayOptions: { show: { price: ['category'] } },
		},
		PRICE_CATEGORY_COLLECTIONS,
	),
	{ ...listSectorLocator, description: 'Optional: hold places in this sector only' },
	{
		displayName: 'Together in One Row',
		name: 'together',
		type: 'boolean',
		default: false,
		description:
			'Whether all places must be in the same row of one sector. Off, one row is still ' +
			'preferred when one has room.',
	},
	holdMinutesField,
	holdNotice,
	optionsCollection([
		{
			displayName: 'New Picks After a Conflict',
			name: 'conflictRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 20 },
			default: 5,
			description:
				'How often to pick other free places when the ones picked were taken by someone ' +
				'else in the meantime (409 Conflict)',
		},
		{
			displayName: 'Max Wait for the Reserved-Tickets Limit (Seconds)',
			name: 'limitWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 3600, numberPrecision: 0 },
			default: 30,
			description:
				"How long to wait, in all, while your account's limit of reserved tickets is reached " +
				'(422): holds of others end meanwhile. 0 fails at once.',
		},
		pagesInFlightOption,
		additionalBodyOption,
		confirmWaitOption,
		keepHoldsOption,
		idempotencyKeyOption,
	]),
];

/** What item `i` asks for; each parameter checked, naming it, before any request. */
function wishOf(this: IExecuteFunctions, i: number, inputs: Inputs, sector: boolean): Wish {
	const price = this.getNodeParameter('price', i, 'cheapest') as Wish['price'];
	if (!['cheapest', 'any', 'category'].includes(price))
		inputs.fail('Price', 'expected cheapest, any or category');
	return {
		quantity: inputs.positiveInt(this.getNodeParameter('quantity', i, 1), 'Places'),
		price,
		priceCategory:
			price === 'category'
				? inputs.id(this.getNodeParameter('priceCategoryId', i, ''), {
						name: 'priceCategoryId',
						displayName: 'Price Category Name or ID',
					})
				: undefined,
		together: inputs.flag(this.getNodeParameter('together', i, false), 'Together in One Row'),
		sector,
	};
}

/** The optional Sector: undefined when left empty. */
function sectorOf(this: IExecuteFunctions, i: number, inputs: Inputs): string | undefined {
	const raw = this.getNodeParameter('sectorId', i, '', { extractValue: true });
	return raw === '' || raw === null || raw === undefined
		? undefined
		: idParameter.call(this, i, inputs, listSectorLocator);
}

/** How far the node goes on after refusals (Options), and what a stated limit is kept by. */
function limitsOf(
	this: IExecuteFunctions,
	inputs: Inputs,
	options: IDataObject,
	eventId: string,
	quantity: number,
): Limits {
	const limits: Limits = {
		conflictRetries: inputs.number(options.conflictRetries ?? 5, 'New Picks After a Conflict', {
			min: 0,
			max: 20,
			whole: true,
		}),
		limitWaitMs:
			1000 *
			inputs.number(
				options.limitWaitSeconds ?? 30,
				'Max Wait for the Reserved-Tickets Limit (Seconds)',
				{ min: 0, max: 3600, whole: true },
			),
		eventId,
		quantity,
		// One execution runs on one credential; a later one asks the service again (it may have
		// raised the limit, or the credential may name another service now).
		limitKey: `${this.getExecutionId()}|${eventId}`,
	};
	const known = knownPerOrderLimit(limits.limitKey);
	if (known !== undefined && quantity > known.limit) {
		const when = known.minutesAgo < 1 ? 'less than a minute' : `${known.minutesAgo} min`;
		inputs.fail(
			'Places',
			`an order may hold at most ${known.limit} tickets (the service said so ${when} ago, ` +
				`when this run's hold on this event asked for more): ask for ${known.limit} or fewer, ` +
				'and hold the rest in another order',
		);
	}
	return limits;
}

/** What holding takes once the inputs are read: the plan, the wish, its limits, the sender. */
interface Picking {
	plan: PlanInHand;
	wish: Wish;
	limits: Limits;
	send: (write: OrderWrite) => Promise<IDataObject>;
	hold: { eventPoint: string; places: string[]; priceCategory: string; reservedMinutes: number };
	planPath: string;
}

/** The order held, with the places picked and what it took to hold them. */
function held(order: IDataObject, pick: Pick, attempts: Attempts): IDataObject {
	const { conflicts, limitWaits, waitedMs } = attempts;
	return {
		...order,
		places: pick.places.map(({ id, sectorName, rowName, placeName }) => ({
			id,
			sectorName,
			rowName,
			placeName,
		})),
		priceCategory: pick.priceCategory,
		holdAttempts: { conflicts, limitWaits, waitedMs },
	};
}

export async function execute(this: IExecuteFunctions, i: number) {
	const inputs = new Inputs(this.getNode(), i);
	const eventId = idParameter.call(this, i, inputs, eventLocator);
	const sectorId = sectorOf.call(this, i, inputs);
	const wish = wishOf.call(this, i, inputs, sectorId !== undefined);
	const reservedMinutes = inputs.positiveInt(
		this.getNodeParameter('reservedMinutes', i, 15),
		'Hold Minutes',
	);
	const settings = pageSettings.call(this, i);
	const hold = { eventPoint: eventId, places: [] as string[], priceCategory: '', reservedMinutes };
	// The limits first: a per-order limit stated earlier in this execution is the answer to give.
	const limits = limitsOf.call(this, inputs, settings.options, eventId, wish.quantity);
	const send = orderWriter.call(this, i, inputs, settings, { shape: hold, picks: true });
	const planPath = sectorId
		? path`/event-points/${eventId}/sectors/${sectorId}/places`
		: path`/event-points/${eventId}/places`;
	const reading: PageSettings = {
		...settings,
		limit: undefined,
		keep: (place) => Number(place.availableCount) > 0,
	};
	const plan = new PlanInHand(
		async () => await apiRequestAllItems.call(this, planPath, {}, reading),
	);
	// Under an Idempotency Key, what the buyer asked for is the purchase: the places are picked.
	const purchase = { eventId, sectorId: sectorId ?? null, ...wish, reservedMinutes };
	const answer = { note: (first: IDataObject) => String(first.priceCategory), shape: heldAgain };
	return await oncePerKey(
		this,
		i,
		inputs,
		{ purchase, minutes: reservedMinutes, settings, answer },
		() => holdPicked.call(this, i, { plan, wish, limits, send, hold, planPath }),
	);
}

/** A repeat's order as the first answer was: its places (from its tickets) and price category. */
function heldAgain(order: IDataObject, priceCategory?: string): IDataObject {
	const tickets = Array.isArray(order.tickets) ? (order.tickets as IDataObject[]) : [];
	return {
		...order,
		places: tickets.map(({ placeId, sectorName, rowName, placeName }) => ({
			id: placeId === undefined || placeId === null ? null : String(placeId),
			sectorName,
			rowName,
			placeName,
		})),
		priceCategory: priceCategory ?? null,
	};
}

/** Picks places, holds them, and picks again after a conflict, within the limits. */
async function holdPicked(
	this: IExecuteFunctions,
	i: number,
	{ plan, wish, limits, send, hold, planPath }: Picking,
): Promise<IDataObject> {
	const attempts: Attempts & { firstLimitAt?: number } = {
		conflicts: 0,
		limitWaits: 0,
		waitedMs: 0,
	};
	await plan.renew();
	for (;;) {
		const pick = await plan.pick(wish);
		if (!pick) throw notEnough(this.getNode(), i, plan.free(), wish);
		const places = pick.places.map((place) => place.id);
		const check = createCheck(hold.eventPoint, places, planPath);
		const body = { ...hold, places, priceCategory: pick.priceCategory };
		try {
			return held(await send({ method: 'POST', path: '/orders', body, check }), pick, attempts);
		} catch (error) {
			const { conflicts } = attempts;
			const refusal = await absorb.call(this, error, places, limits, attempts, plan.taken);
			if (refusal) throw refusal;
			await plan.after(attempts.conflicts > conflicts);
		}
	}
}
