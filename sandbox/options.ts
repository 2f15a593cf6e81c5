import { toQuirks, type Quirks } from './quirks';

export type Environment = 'staging' | 'production';
export type Envelope = 'array' | 'hydra' | 'member' | 'items' | 'data';
export const ENVELOPES: readonly Envelope[] = ['array', 'hydra', 'member', 'items', 'data'];

export interface Limits {
	/** Tickets in one order. */
	ticketsPerOrder: number;
	/** Tickets held at once (live holds) across the whole account. */
	reservedPerAccount: number;
}

export interface RateLimit {
	/** Requests per key per window; 0 turns the limit off. */
	limit: number;
	windowMs: number;
}

/**
 * A sender that is not perfect, on purpose (docs/sandbox.md, "Push chaos"): each share is a
 * probability per delivery, drawn from `seed`, so one seed and one sequence of notifications
 * always meet the same fate. All zero (the default): every delivery is sent once, at once.
 */
export interface PushChaos {
	/** Deliveries never sent (as a sender that lost them). */
	drop: number;
	/** Deliveries sent twice: a copy with the same delivery id and body, after its own hold. */
	duplicate: number;
	/** Deliveries held back before their first attempt, so later ones overtake them. */
	reorder: number;
	/** The longest hold of a held delivery or a copy, in ms of the sandbox clock. */
	holdMs: number;
	seed: number;
}

export interface PushSettings {
	/** First retry delay; doubles per attempt (sandbox clock). */
	retryBaseMs: number;
	maxAttempts: number;
	timeoutMs: number;
	chaos: PushChaos;
}

export interface SandboxOptions {
	environment: Environment;
	host: string;
	/** 0 picks a free port. */
	port: number;
	seed: number;
	/** On-sale event points, all visible to the partner key. */
	events: number;
	placesPerEvent: number;
	/** When set, the first event point (id 1001) gets this many places instead. */
	bigEventPlaces: number;
	/** On sale, organiser only: hidden from the partner key. */
	privateEvents: number;
	/** Sales ended: served only by /event-points-archived. */
	archivedEvents: number;
	/** Widget orders made before the sandbox started, per company. */
	widgetOrders: number;
	envelope: Envelope;
	limits: Limits;
	rateLimit: RateLimit;
	push: PushSettings;
	currency: string;
	/** Start of the sandbox clock (epoch ms); real now by default. */
	now?: number;
	/** A difficult service on purpose; none by default. */
	quirks: Quirks;
}

export const DEFAULT_OPTIONS: SandboxOptions = {
	environment: 'staging',
	host: '127.0.0.1',
	port: 0,
	seed: 1,
	events: 24,
	placesPerEvent: 120,
	bigEventPlaces: 0,
	privateEvents: 2,
	archivedEvents: 3,
	widgetOrders: 12,
	envelope: 'array',
	limits: { ticketsPerOrder: 10, reservedPerAccount: 40 },
	rateLimit: { limit: 2000, windowMs: 1000 },
	push: {
		retryBaseMs: 1000,
		maxAttempts: 8,
		timeoutMs: 5000,
		chaos: { drop: 0, duplicate: 0, reorder: 0, holdMs: 5000, seed: 1 },
	},
	currency: 'EUR',
	quirks: {},
};

export type SandboxInit = Partial<
	Omit<SandboxOptions, 'limits' | 'rateLimit' | 'push' | 'quirks'>
> & {
	/** Typed, or the CLI's string form (`ignore-sort,clock-skew=+10m`). */
	quirks?: Quirks | string;
	limits?: Partial<Limits>;
	rateLimit?: Partial<RateLimit>;
	push?: Partial<Omit<PushSettings, 'chaos'>> & { chaos?: Partial<PushChaos> };
};

export function resolveOptions(init: SandboxInit = {}): SandboxOptions {
	return {
		...DEFAULT_OPTIONS,
		...init,
		limits: { ...DEFAULT_OPTIONS.limits, ...init.limits },
		rateLimit: { ...DEFAULT_OPTIONS.rateLimit, ...init.rateLimit },
		push: {
			...DEFAULT_OPTIONS.push,
			...init.push,
			chaos: { ...DEFAULT_OPTIONS.push.chaos, ...init.push?.chaos },
		},
		quirks: toQuirks(init.quirks ?? {}),
	};
}
