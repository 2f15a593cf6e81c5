import type { IPollFunctions } from 'n8n-workflow';

import { DEFAULT_RETRY, type RequestSettings } from '../../shared/transport';

/**
 * The time a poll may take where n8n does not say (1.x, and 2.x before it told nodes): n8n's
 * durable scheduler abandons a poll after 45 s by default, and gives nodes 36 s of it.
 */
export const FALLBACK_BUDGET_MS = 30_000;
/**
 * Pages go out while their answer is expected within this share of the budget; the rest is for
 * the pages in flight, the event names of Rows for a Table and saving the state.
 */
const READ_SHARE = 0.75;
/** The least a request is given to answer, however little of the budget is left. */
const MIN_REQUEST_MS = 1_000;

/**
 * How long this poll may read. n8n abandons a poll that outlasts its timeout (the durable
 * scheduler: N8N_SCHEDULER_POLL_TIMEOUT): its items are dropped and its place is not saved, so a
 * reading that always takes longer never moves. So a poll stops sending pages in time, emits what
 * it read and saves where it got to; the next poll goes on from there.
 */
export class PollBudget {
	/** The slowest page answer so far (ms): a page goes out only if one that slow still fits. */
	private slowest = 0;

	constructor(
		readonly startedAt: number,
		readonly budgetMs: number,
	) {}

	/** n8n's budget for this poll (IPollFunctions.getPollBudgetMs, n8n 2.x), else the fallback. */
	static of(context: IPollFunctions, startedAt: number): PollBudget {
		// Older n8n (1.x) has no such method: the type says it is there, the object may not be.
		const told = (context as Partial<IPollFunctions>).getPollBudgetMs?.call(context);
		const budget = typeof told === 'number' && told > 0 ? told : FALLBACK_BUDGET_MS;
		return new PollBudget(startedAt, budget);
	}

	/** Whether a page sent now is expected to answer within the reading's share. */
	allowsPage(): boolean {
		return Date.now() + this.slowest <= this.startedAt + this.budgetMs * READ_SHARE;
	}

	/** Whether the budget is spent (a lock held longer belongs to an abandoned poll). */
	spent(now = Date.now()): boolean {
		return now - this.startedAt > this.budgetMs;
	}

	/** Times a page request, so that the next page is sent only if one as slow still fits. */
	async timed<T>(request: () => Promise<T>): Promise<T> {
		const sentAt = Date.now();
		try {
			return await request();
		} finally {
			this.slowest = Math.max(this.slowest, Date.now() - sentAt);
		}
	}

	/** The request's settings with the retry waits and the timeout cut to what is left. */
	cap(settings: RequestSettings): RequestSettings {
		const policy = settings.retry ?? DEFAULT_RETRY;
		const left = Math.max(MIN_REQUEST_MS, this.startedAt + this.budgetMs - Date.now());
		return {
			...settings,
			retry: {
				...policy,
				maxWaitMs: Math.min(policy.maxWaitMs, left),
				timeoutMs: Math.min(policy.timeoutMs ?? left, left),
			},
		};
	}
}
