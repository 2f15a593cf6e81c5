import type { Channel } from './rows';

/** What a ledger read covers. */
export interface LedgerScope {
	channels: Channel[];
	/** Chosen events; undefined: every event of the company (listed, and archived lately). */
	eventIds?: string[];
	/** Rows whose time is at or after `from` and before `to` (epoch ms). */
	from: number;
	to?: number;
	/** The service's now: when this read sees what it reads. */
	now: number;
	/**
	 * How long before `from` an API order may have been paid and refunded within the period: the API
	 * lists an event's orders by payment time only, so their refunds are found by reading them.
	 */
	refundLookBackMs: number;
}
