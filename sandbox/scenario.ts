import { isoTime } from './clock';
import type { Order } from './model';

/** What became of the holds a scenario created, and the refusals answered while it ran. */
export interface ScenarioReport {
	name: string;
	/** Sandbox time the scenario started. */
	startedAt: string;
	holds: { created: number; paid: number; released: number; expired: number; leftBehind: number };
	paymentsForLostHolds: number;
	conflicts: number;
	limitRefusals: number;
	placesSold: number;
}

/**
 * One run of a rush (a benchmark build, a test case): the holds opened since it started, and
 * counts of the answers that matter under contention. A hold's fate is read from the order itself
 * when reported, so the five fates always add up; only "released" (status `expired` set by the
 * partner) needs remembering, since the clock's expiry leaves the same status.
 */
export class Scenario {
	private name = 'default';
	private startedAt: number;
	private readonly holds = new Map<number, Order>();
	private readonly released = new Set<number>();
	private paymentsForLostHolds = 0;
	private conflicts = 0;
	private limitRefusals = 0;

	constructor(now: number) {
		this.startedAt = now;
	}

	/** Forgets the last scenario: counters from zero, no holds. */
	start(name: string, now: number): void {
		this.name = name;
		this.startedAt = now;
		this.holds.clear();
		this.released.clear();
		this.paymentsForLostHolds = 0;
		this.conflicts = 0;
		this.limitRefusals = 0;
	}

	holdOpened(order: Order): void {
		this.holds.set(order.id, order);
	}

	holdReleased(order: Order): void {
		if (this.holds.has(order.id)) this.released.add(order.id);
	}

	/** A payment reported for an order whose hold was released or expired (answered 409). */
	lostHoldPaid(): void {
		this.paymentsForLostHolds += 1;
	}

	/** POST /orders or add-place answered 409 because a place was held or sold. */
	placesTaken(): void {
		this.conflicts += 1;
	}

	/** A 422 for the account's reserved-tickets limit. */
	limitRefused(): void {
		this.limitRefusals += 1;
	}

	/** The counts as of now; expired holds must have been ended first (releaseExpiredHolds). */
	report(): ScenarioReport {
		const holds = { created: 0, paid: 0, released: 0, expired: 0, leftBehind: 0 };
		let placesSold = 0;
		for (const order of this.holds.values()) {
			holds.created += 1;
			if (order.payAt !== null) holds.paid += 1;
			else if (order.status === 'reserved_to_time') holds.leftBehind += 1;
			else if (this.released.has(order.id)) holds.released += 1;
			else holds.expired += 1;
			placesSold += order.tickets.filter((t) => t.status === 'sold').length;
		}
		return {
			name: this.name,
			startedAt: isoTime(this.startedAt),
			holds,
			paymentsForLostHolds: this.paymentsForLostHolds,
			conflicts: this.conflicts,
			limitRefusals: this.limitRefusals,
			placesSold,
		};
	}
}
