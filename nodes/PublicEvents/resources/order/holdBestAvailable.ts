import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { additionalBodyOption, withAdditionalBody } from '../../../shared/body';
import { eventLocator, optionsCollection, pagesInFlightOption } from '../../../shared/commonFields';
import { Inputs } from '../../../shared/inputs';
import { path } from '../../../shared/path';
import { idParameter, pageSettings } from '../../../shared/readFields';
import { apiRequestAllItems, type PageSettings } from '../../../shared/transport';
import { checkWriteOptions } from './call';
import {
	confirmWaitOption,
	holdMinutesField,
	holdNotice,
	keepHoldsOption,
	listSectorLocator,
} from './orderFields';
import { absorb, knownPerOrderLimit, type Attempts, type Limits } from './holdRefusals';
import { noteHeld } from './holdLedger';
import { bestPlaces, notEnough, type Wish } from './bestPlaces';
import { createCheck } from './createCheck';
import { plainId } from './ids';
import { AFTER_A_WRITE, checkedWrite } from './writeCheck';

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
	]),
];

export async function execute(this: IExecuteFunctions, i: number) {
	const inputs = new Inputs(this.getNode(), i);
	const eventId = idParameter.call(this, i, inputs, eventLocator);
	const raw = this.getNodeParameter('sectorId', i, '', { extractValue: true });
	const sectorId =
		raw === '' || raw === null || raw === undefined
			? undefined
			: idParameter.call(this, i, inputs, listSectorLocator);
	const price = this.getNodeParameter('price', i, 'cheapest') as Wish['price'];
	if (!['cheapest', 'any', 'category'].includes(price))
		inputs.fail('Price', 'expected cheapest, any or category');
	const wish: Wish = {
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
		sector: sectorId !== undefined,
	};
	const reservedMinutes = inputs.positiveInt(
		this.getNodeParameter('reservedMinutes', i, 15),
		'Hold Minutes',
	);
	const settings = pageSettings.call(this, i);
	const { options } = settings;
	checkWriteOptions(options, inputs);
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
		quantity: wish.quantity,
		// One execution runs on one credential; a later one asks the service again (it may have
		// raised the limit, or the credential may name another service now).
		limitKey: `${this.getExecutionId()}|${eventId}`,
	};
	const known = knownPerOrderLimit(limits.limitKey);
	if (known !== undefined && wish.quantity > known.limit) {
		const when = known.minutesAgo < 1 ? 'less than a minute' : `${known.minutesAgo} min`;
		inputs.fail(
			'Places',
			`an order may hold at most ${known.limit} tickets (the service said so ${when} ago, ` +
				`when this run's hold on this event asked for more): ask for ${known.limit} or fewer, ` +
				'and hold the rest in another order',
		);
	}
	const bodyOf = (places: string[], priceCategory: string) =>
		withAdditionalBody(
			options,
			{ eventPoint: eventId, places, priceCategory, reservedMinutes },
			inputs,
		);
	// Extra body fields are checked before any request.
	bodyOf([], '');
	// The whole hall plan (or sector) is read each time: a Limit would cut it.
	const reading: PageSettings = {
		...settings,
		limit: undefined,
		keep: (place) => Number(place.availableCount) > 0,
	};
	const planPath = sectorId
		? path`/event-points/${eventId}/sectors/${sectorId}/places`
		: path`/event-points/${eventId}/places`;

	const attempts: Attempts & { firstLimitAt?: number } = {
		conflicts: 0,
		limitWaits: 0,
		waitedMs: 0,
	};
	const taken = new Set<string>();
	const read = async () => await apiRequestAllItems.call(this, planPath, {}, reading);
	// After a 409 the plan just read is used again without the places taken: a read costs a few
	// round trips, a pick none. Read anew after a wait, after two conflicts in a row, or before
	// saying "Not enough places".
	let plan = await read();
	let fresh = true;
	let conflictsOnPlan = 0;
	for (;;) {
		const free = plan.filter((place) => !taken.has(plainId(place, 'places') ?? ''));
		const pick = bestPlaces(free, wish);
		if (!pick && !fresh) {
			[plan, fresh, conflictsOnPlan] = [await read(), true, 0];
			continue;
		}
		if (!pick) throw notEnough(this.getNode(), i, free, wish);
		const places = pick.places.map((place) => place.id);
		try {
			const order = await checkedWrite.call(
				this,
				{
					method: 'POST',
					path: '/orders',
					body: bodyOf(places, pick.priceCategory),
					check: createCheck(eventId, places, planPath),
				},
				settings,
			);
			noteHeld(this, i, String(order.id), places, 'created');
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
		} catch (error) {
			const { conflicts } = attempts;
			const refusal = await absorb.call(this, error, places, limits, attempts, taken);
			if (refusal) throw refusal;
			// A 409 (places set aside) or a wait on the limit (the plan has aged).
			const conflict = attempts.conflicts > conflicts;
			conflictsOnPlan = conflict ? conflictsOnPlan + 1 : 0;
			if (!conflict || conflictsOnPlan >= 2)
				[plan, fresh, conflictsOnPlan] = [await read(), true, 0];
			else fresh = false;
		}
	}
}
