import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import type { RunNodeResult } from '../engine';
import { credentialFor, runPublicEvents } from '../nodes/publicEvents';
import { SandboxClient } from '../sandbox/client';
import { onlyEvents } from '../sandbox/suite';

/**
 * The cases of rush.props.test.ts: buyers of one shop, all on one API key, checking out at once
 * through the node (Hold Best Available, then Change Status to Paid or Release Hold, as the shop
 * example does) while the service's answers to writes are lost at random; and how each case is
 * judged against the sandbox.
 */

export interface Buyer {
	quantity: number;
	/** Whether the payment step succeeds (else the buyer's hold is released). */
	pays: boolean;
}

export interface RushCase {
	places: number;
	buyers: Buyer[];
	/** The share of answers to writes lost once the service acted (a 201, a 409, a 200 alike). */
	loseRate: number;
	/** The seed of those losses. */
	seed: number;
}

export const rushArb: fc.Arbitrary<RushCase> = fc.record({
	places: fc.integer({ min: 4, max: 16 }),
	buyers: fc.array(fc.record({ quantity: fc.integer({ min: 1, max: 3 }), pays: fc.boolean() }), {
		minLength: 2,
		maxLength: 8,
	}),
	loseRate: fc.constantFrom(0.15, 0.3, 0.5),
	seed: fc.integer({ min: 1, max: 2 ** 30 }),
});

/** What one buyer's checkout ended with, as the shop would tell it. */
export interface Checkout {
	/** The order the node said this buyer holds (Hold Best Available's output). */
	held?: number;
	/** What became of it: paid (tickets), released, or unknown (both steps uncertain). */
	fate?: 'paid' | 'released' | 'unknown';
	/** Orders named in an uncertain error, never taken as this buyer's. */
	named: number[];
	errors: string[];
}

/** Quick read-backs: every case waits at most this long to confirm a lost answer. */
const WRITE_OPTIONS = { confirmWaitSeconds: 1 };

const candidatesOf = (result: RunNodeResult): number[] => {
	const check = (result.error as { context?: { writeCheck?: IDataObject } } | undefined)?.context
		?.writeCheck;
	const named = [
		...((check?.candidates as IDataObject[] | undefined) ?? []),
		...(check?.order ? [check.order as IDataObject] : []),
	];
	return named.map((order) => Number(order.id)).filter(Number.isFinite);
};

/** One sandbox for the suite, with room for many events; the node run against it. */
export function rushSuite() {
	let sb: SandboxClient;
	let store: ReturnType<typeof credentialFor>['store'];
	beforeAll(async () => {
		sb = await SandboxClient.start(
			onlyEvents(1, 10, { limits: { reservedPerAccount: 1000 }, rateLimit: { limit: 0 } }),
		);
		store = credentialFor(sb).store;
	});
	afterAll(() => sb.stop());

	const order = (operation: string, parameters: IDataObject) =>
		runPublicEvents(store, { resource: 'order', operation, ...parameters } as never);

	/** Sets an order's status; the outcome as the shop reads it from the node. */
	async function setStatus(id: number, toStatus: string, checkout: Checkout) {
		const result = await order('changeStatus', {
			orderId: String(id),
			toStatus,
			options: WRITE_OPTIONS,
		});
		if (!result.error) return 'applied' as const;
		checkout.errors.push(result.error.message);
		if (/^Refused: .* cannot go from paid/.test(result.error.message)) return 'wasPaid' as const;
		if (/^Uncertain:/.test(result.error.message)) return 'uncertain' as const;
		return 'notApplied' as const;
	}

	/** One buyer's checkout, the shop's way: a payment left uncertain is settled before a release. */
	async function checkout(eventId: number, buyer: Buyer): Promise<Checkout> {
		const done: Checkout = { named: [], errors: [] };
		const hold = await order('holdBestAvailable', {
			eventId: { __rl: true, mode: 'id', value: String(eventId) },
			quantity: buyer.quantity,
			options: { ...WRITE_OPTIONS, limitWaitSeconds: 0 },
		});
		if (hold.error) {
			done.errors.push(hold.error.message);
			done.named.push(...candidatesOf(hold));
			return done;
		}
		done.held = Number(hold.items[0].json.id);
		if (buyer.pays) {
			const paid = await setStatus(done.held, 'paid', done);
			if (paid === 'applied') return { ...done, fate: 'paid' };
		}
		// Declined, or the payment did not go through (or is not known to): release the hold; a
		// release refused because the late "paid" landed means the sale stands.
		let released = await setStatus(done.held, 'expired', done);
		// Proven not applied: safe to run again, once.
		if (released === 'notApplied') released = await setStatus(done.held, 'expired', done);
		done.fate = released === 'applied' ? 'released' : released === 'wasPaid' ? 'paid' : 'unknown';
		return done;
	}

	/** Runs the case's buyers at once on a new event; what each was told, and the event. */
	async function rush(c: RushCase) {
		const { body } = await sb.admin('POST', '/events', { places: c.places });
		const eventId = body.id as number;
		await sb.startScenario(`rush ${c.seed}`);
		await sb.setQuirks({ loseWriteAnswersRate: c.loseRate, loseWriteAnswersSeed: c.seed });
		try {
			const checkouts = await Promise.all(c.buyers.map((buyer) => checkout(eventId, buyer)));
			await sb.app.idle();
			return { eventId, checkouts };
		} finally {
			await sb.setQuirks({});
		}
	}

	return { sb: () => sb, rush };
}
