import type { ServerResponse } from 'node:http';

import { z } from 'zod';

import { Random } from './random';

/**
 * Quirks a write's read-back must understand (all off by default): tickets naming their place in
 * another ID form, an event's order list that shows a new order late, writes answered 204 No
 * Content, and answers to writes lost at random after the service acted (a proxy reset), whatever
 * the service answered: 201, 409, 422.
 */
export const readBackQuirkShape = {
	/** Tickets give `placeId` as a numeric string, or as the place's IRI (`/api/v2/places/7`). */
	ticketPlaceIds: z.enum(['string', 'iri']),
	/** A new order reaches its event's order list this long (sandbox clock) after it was made. */
	orderListLagMs: z.number().int().min(0),
	/** A write that succeeds answers 204 No Content: applied, the order not in the answer. */
	emptyWriteAnswers: z.boolean(),
	/** Each answer to a write is lost with this probability, once the service has acted. */
	loseWriteAnswersRate: z.number().min(0).max(1),
	/** Seed of the draws of loseWriteAnswersRate (the sandbox's seed when absent). */
	loseWriteAnswersSeed: z.number().int(),
};

/** These quirks as a quirks object holds them (quirks.ts spreads the shape into its own). */
type Quirks = Partial<z.infer<z.ZodObject<typeof readBackQuirkShape>>>;

function duration(name: string, value: string | undefined): number {
	const match = /^(\d+)(ms|s)$/.exec(value ?? '');
	if (!match) throw new Error(`quirk "${name}" needs a duration such as 800ms or 2s`);
	return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
}

function rate(name: string, value: string | undefined): number {
	const n = Number(value);
	if (value === undefined || value === '' || !(n >= 0 && n <= 1))
		throw new Error(`quirk "${name}" needs a number from 0 to 1, got "${value ?? ''}"`);
	return n;
}

/** The string forms (`ticket-place-ids=iri,order-list-lag=1s,lose-write-answers=0.3`). */
export const READ_BACK_PARSERS: Record<string, (value: string | undefined, q: Quirks) => void> = {
	'ticket-place-ids': (v, q) => {
		if (v !== 'string' && v !== 'iri')
			throw new Error(`quirk "ticket-place-ids" must be one of string, iri, got "${v ?? ''}"`);
		q.ticketPlaceIds = v;
	},
	'order-list-lag': (v, q) => (q.orderListLagMs = duration('order-list-lag', v)),
	'empty-write-answers': (v, q) => {
		if (v !== undefined) throw new Error(`quirk "empty-write-answers" takes no value, got "${v}"`);
		q.emptyWriteAnswers = true;
	},
	'lose-write-answers': (v, q) => (q.loseWriteAnswersRate = rate('lose-write-answers', v)),
	'lose-write-answers-seed': (v, q) => {
		if (!/^-?\d+$/.test(v ?? ''))
			throw new Error('quirk "lose-write-answers-seed" needs a whole number');
		q.loseWriteAnswersSeed = Number(v);
	},
};

/** The string form of these quirks, for formatQuirks. */
export function formatReadBackQuirks(q: Quirks): string[] {
	const parts: string[] = [];
	if (q.ticketPlaceIds) parts.push(`ticket-place-ids=${q.ticketPlaceIds}`);
	if (q.orderListLagMs) parts.push(`order-list-lag=${q.orderListLagMs}ms`);
	if (q.emptyWriteAnswers) parts.push('empty-write-answers');
	if (q.loseWriteAnswersRate !== undefined)
		parts.push(`lose-write-answers=${q.loseWriteAnswersRate}`);
	if (q.loseWriteAnswersSeed !== undefined)
		parts.push(`lose-write-answers-seed=${q.loseWriteAnswersSeed}`);
	return parts;
}

/** An order's JSON with its tickets' place IDs in the form ticketPlaceIds asks. */
export function withTicketPlaceIds(q: Quirks, order: Record<string, unknown>) {
	if (!q.ticketPlaceIds || !Array.isArray(order.tickets)) return order;
	const form = (id: unknown) =>
		q.ticketPlaceIds === 'iri' ? `/api/v2/places/${String(id)}` : String(id);
	return {
		...order,
		tickets: (order.tickets as Array<Record<string, unknown>>).map((ticket) => ({
			...ticket,
			placeId: form(ticket.placeId),
		})),
	};
}

/** Whether an order made at `createdAt` shows in its event's order list yet (orderListLagMs). */
export const listedYet = (q: Quirks, createdAt: number, now: number) =>
	!q.orderListLagMs || createdAt + q.orderListLagMs <= now;

// One sequence of draws per quirks setting (a new setting starts it again).
const draws = new WeakMap<Quirks, Random>();

/**
 * What becomes of the answer to a write the service has acted on (status `status`): lost (the
 * connection dropped), 204 No Content, or sent as it is (undefined).
 */
export function writeAnswerFate(
	q: Quirks,
	seed: number,
	status: number,
): 'lose' | 'empty' | undefined {
	if (q.loseWriteAnswersRate) {
		let random = draws.get(q);
		if (!random) draws.set(q, (random = new Random((q.loseWriteAnswersSeed ?? seed) ^ 0x10a5e)));
		if (random.chance(q.loseWriteAnswersRate)) return 'lose';
	}
	return q.emptyWriteAnswers && status >= 200 && status < 300 ? 'empty' : undefined;
}

/** Carries out a fate: drops the connection, or answers 204 with no body. */
export function sendFate(res: ServerResponse, fate: 'lose' | 'empty'): void {
	if (fate === 'lose') {
		res.socket?.destroy();
		return;
	}
	res.writeHead(204);
	res.end();
}
