import fc from 'fast-check';

import type { ApiResponse } from '../sandbox/client';
import { MINUTE } from '../time';

/**
 * The cases of test/sandbox/contention.test.ts: what a case is, and the judge of one wave of
 * concurrent holds: whether some serial order of its requests gives exactly what was answered.
 */

/** Who sends a request: two tokens of the partner, one of the organiser. */
export const SENDERS = ['partner', 'partner', 'organiser'] as const;
const HOLD_MINUTES = [5, 20] as const;
/** Moved after the fates: 5-minute holds expire, 20-minute ones are left behind. */
export const EXPIRY_STEP = 10 * MINUTE;

export interface Req {
	/** Add-place to an order of an earlier wave rather than a new order. */
	add: boolean;
	sender: number;
	/** Blocks of places asked for (modulo the blocks there are): overlapping sets. */
	blocks: number[];
	minutes: (typeof HOLD_MINUTES)[number];
	/** Which earlier order an add-place grows (modulo the orders there are). */
	target: number;
}
export type Fate = 'pay' | 'release' | 'race' | 'payTwice' | 'keep';
export interface Case {
	blockSizes: number[];
	limit: number;
	wave1: Req[];
	wave2: Req[];
	/** What becomes of each hold, cycled over them. */
	fates: Fate[];
	/** Whether a lost hold (released or expired) is paid anyway, cycled over them. */
	payLost: boolean[];
}

const reqArb = (mayAdd: boolean): fc.Arbitrary<Req> =>
	fc.record({
		add: mayAdd ? fc.boolean() : fc.constant(false),
		sender: fc.integer({ min: 0, max: SENDERS.length - 1 }),
		blocks: fc.uniqueArray(fc.nat(99), { minLength: 1, maxLength: 2 }),
		minutes: fc.constantFrom(...HOLD_MINUTES),
		target: fc.nat(99),
	});

/** At most 12 places in blocks of 1 or 2, up to 22 requests for them in two waves. */
export const caseArb: fc.Arbitrary<Case> = fc.record({
	blockSizes: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 3, maxLength: 6 }),
	limit: fc.integer({ min: 2, max: 8 }),
	wave1: fc.array(reqArb(false), { minLength: 4, maxLength: 12 }),
	wave2: fc.array(reqArb(true), { minLength: 2, maxLength: 10 }),
	fates: fc.array(fc.constantFrom<Fate>('pay', 'release', 'race', 'payTwice', 'keep', 'keep'), {
		minLength: 1,
		maxLength: 8,
	}),
	payLost: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
});

export interface HeldOrder {
	id: number;
	companyId: number;
	minutes: number;
	places: string[];
	token: string;
}
export interface Outcome {
	kind: 'create' | 'add';
	companyId: number;
	places: string[];
	res: ApiResponse;
	/** The order created or grown (winners only). */
	order?: HeldOrder;
	/** Smallest ticket id this request made: its place in the sandbox's serial order. */
	position?: number;
}
/** What is taken before a wave, or after a prefix of its winners. */
export interface Taken {
	places: Set<string>;
	/** Tickets held per company id. */
	held: Map<number, number>;
}

export const won = (o: Outcome) => o.res.status === 200 || o.res.status === 201;
const describeOutcome = (o: Outcome) =>
	`${o.kind} [${o.places.join(',')}] by company ${o.companyId}: ${o.res.status} ${o.res.text}`;

/**
 * Throws unless the wave fits a serial order: the winners one after the other by position, each
 * on free places within the limit; each refusal answered as at some point of that order (a 409
 * naming exactly the places then taken, the limit then passed; a 422 with the count then).
 * Nothing is freed within a wave, so the points between winners are all there are.
 */
export function checkSerial(before: Taken, outcomes: Outcome[], limit: number): void {
	const winners = outcomes.filter(won).sort((a, b) => a.position! - b.position!);
	const states: Taken[] = [before];
	for (const w of winners) {
		const last = states[states.length - 1];
		const twice = w.places.filter((p) => last.places.has(p));
		if (twice.length > 0) throw new Error(`taken twice: ${twice} by ${describeOutcome(w)}`);
		const held = (last.held.get(w.companyId) ?? 0) + w.places.length;
		if (held > limit) throw new Error(`limit ${limit} passed by ${describeOutcome(w)}`);
		states.push({
			places: new Set([...last.places, ...w.places]),
			held: new Map(last.held).set(w.companyId, held),
		});
	}
	for (const o of outcomes.filter((x) => !won(x))) {
		const explained = states.some((s) => {
			const held = s.held.get(o.companyId) ?? 0;
			if (o.res.status === 422)
				return (
					o.res.body.code === 'reserved_tickets_limit' &&
					o.res.body.current === held &&
					held + o.places.length > limit
				);
			const takenNow = o.places.filter((p) => s.places.has(p));
			return (
				o.res.status === 409 &&
				o.res.body.code === 'places_unavailable' &&
				held + o.places.length <= limit &&
				takenNow.length > 0 &&
				[...o.res.body.places].sort().join() === takenNow.sort().join()
			);
		});
		if (!explained) throw new Error(`no serial order explains ${describeOutcome(o)}`);
	}
	// The same, place by place: one winner at most; a place nobody won is named by no 409.
	for (const p of new Set(outcomes.flatMap((o) => o.places))) {
		const askers = outcomes.filter((o) => o.places.includes(p));
		const winners = askers.filter(won);
		if (winners.length > (before.places.has(p) ? 0 : 1))
			throw new Error(`place ${p} won by ${winners.map(describeOutcome).join(' and ')}`);
		for (const o of askers.filter((x) => !won(x))) {
			const named = (o.res.body?.places ?? []) as string[];
			if (winners.length === 0 && !before.places.has(p) && named.includes(p))
				throw new Error(`free place ${p} refused: ${describeOutcome(o)}`);
		}
	}
}
