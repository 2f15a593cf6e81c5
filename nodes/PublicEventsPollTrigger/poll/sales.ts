import { NodeApiError, NodeOperationError, type INode, type IPollFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, serviceNow } from '../../shared/transport';
import type { PollBudget } from './budget';
import { Chunk } from './chunk';
import { rememberFor, withoutWidgetCopies } from './copies';
import { rewind, type FeedState } from './feed';
import type { Change } from './items';
import { readWindow, type WindowRead } from './pager';
import { IDLE_KEEP_MS, planFeeds, type Planned } from './plan';
import type { PollSettings } from './pollSettings';
import { settleFeeds, type Failure, type Outcome } from './settle';
import { inParallel } from './specs';
import type { PollState } from './state';

/**
 * Records one poll emits at most, the oldest across feeds. A catch-up after downtime goes in
 * chunks, each saved as n8n starts its execution, the next at the next scheduled poll: an
 * execution holds its items in memory and the editor shows them (5,000 orders with tickets are
 * some 10 MB). Time bounds a chunk too (PollBudget).
 */
export const RECORDS_PER_POLL = 5_000;
/**
 * With Ledger Rows each order of an event's list is read whole (one request): at most this many
 * of one event a poll, so a catch-up's reads fit the poll's time (the durable scheduler: 45 s).
 */
export const WHOLE_READS_PER_FEED = 250;
/**
 * A feed failing this many polls in a row fails the poll (naming it) even when other feeds have
 * items, and again every as many polls.
 */
export const REPORT_EVERY = 3;

/**
 * The error of a feed that could not be read, naming it: the transport's own error (status, body,
 * what to do) with the feed's name in front, so n8n's error workflow sees the HTTP code too.
 */
function feedError(node: INode, failed: Failure[], othersWentOn: boolean): Error {
	const [first] = failed;
	const names = failed.map(({ planned }) => planned.spec.label).join(', ');
	const inARow = first.failures > 1 ? ` in ${first.failures} polls in a row` : '';
	const message = `${names} could not be read${inARow}: ${first.error.message}`;
	const note = othersWentOn
		? 'The other feeds went on: their records are emitted and their place saved. This ' +
			'one resumes where it stopped once it can be read; its records wait in the service.'
		: '';
	if (first.error instanceof NodeApiError || first.error instanceof NodeOperationError) {
		first.error.message = message;
		first.error.description = [first.error.description, note].filter(Boolean).join(' ');
		return first.error;
	}
	return new NodeOperationError(node, message, { description: note || undefined });
}

/** What reading a feed needs from the whole poll. */
interface Reading {
	settings: PollSettings;
	budget: PollBudget;
	chunk: Chunk;
}

/** One reading of a feed's window, from where the feed stands. */
async function readFrom(
	this: IPollFunctions,
	planned: Planned,
	feed: FeedState,
	{ settings, budget }: Reading,
): Promise<WindowRead> {
	return await readWindow.call(this, {
		path: planned.spec.path,
		time: planned.spec.time,
		lower: feed.from,
		keep: (record) => record.time >= feed.from && feed.seen[record.id] === undefined,
		limit: !planned.emit
			? Infinity
			: settings.rows && planned.spec.source === 'eventOrders'
				? WHOLE_READS_PER_FEED
				: RECORDS_PER_POLL,
		settings: settings.request,
		// A first reading only marks what is there as history: it reads to the end.
		budget: planned.emit ? budget : undefined,
		pass: feed.pass?.lower === feed.from ? feed.pass : undefined,
	});
}

/** Reads one feed (again from further back when the service's clock was set back). */
async function readFeed(
	this: IPollFunctions,
	planned: Planned,
	index: number,
	reading: Reading,
): Promise<Outcome> {
	// No time left to read this feed: it keeps its place, and the next poll reads it first.
	if (planned.emit && !reading.budget.allowsPage()) return { deferred: true };
	try {
		let feed = planned.feed;
		let got = await readFrom.call(this, planned, feed, reading);
		const rewound = rewind(feed, got, reading.settings);
		if (rewound) {
			feed = rewound;
			got = await readFrom.call(this, planned, feed, reading);
		}
		if (planned.emit) reading.chunk.add(index, got.records);
		return { read: got, feed };
	} catch (error) {
		// All Visible Events: an event no longer linked to the company answers 404; stop reading it.
		if (planned.eventId !== undefined && (error as NodeApiError).httpCode === '404')
			return { gone: true };
		return { error: error as Error };
	}
}

/** Every planned feed read, its outcome at its index. */
async function readFeeds(
	this: IPollFunctions,
	plan: Planned[],
	reading: Reading,
): Promise<Outcome[]> {
	const read = async (planned: Planned, index: number) =>
		await readFeed.call(this, planned, index, reading);
	// Without a token yet, feeds read at once would each request one: the first goes alone.
	const alone = (await this.getCredentials(CREDENTIAL_TYPE)).token ? 0 : 1;
	return [
		...(await inParallel(plan.slice(0, alone), read)),
		...(await inParallel(plan.slice(alone), (p, i) => read(p, i + alone))),
	];
}

/**
 * Others had items: every third failure in a row fails the poll all the same, lest it go unseen.
 * Only the failure counts move (in n8n's memory), so what the other feeds found comes with the
 * next poll.
 */
function failuresCounted(node: INode, saved: PollState, failed: Failure[]): SalesPoll {
	const counted = failed
		.filter(({ planned }) => saved.feeds[planned.spec.key])
		.map(({ planned, failures }) => [
			planned.spec.key,
			{ ...saved.feeds[planned.spec.key], failures },
		]);
	return {
		changes: [],
		state: { ...saved, feeds: { ...saved.feeds, ...Object.fromEntries(counted) } },
		error: feedError(node, failed, true),
	};
}

/**
 * Feeds of events no longer listed rest 30 days, so an event whose sale is extended resumes where
 * it stopped.
 */
function keepResting(
	feeds: Record<string, FeedState>,
	old: Record<string, FeedState>,
	now: number,
) {
	for (const [key, feed] of Object.entries(old)) {
		if (!feeds[key] && feed.idleSince !== undefined && now - feed.idleSince < IDLE_KEEP_MS)
			feeds[key] = feed;
	}
}

/** What one poll of Sales and Refunds gives n8n. */
export interface SalesPoll {
	changes: Change[];
	state?: PollState;
	error?: Error;
}

/**
 * One poll of Sales and Refunds: the changes to emit and the state to save, or the error to report.
 */
export async function pollSales(
	this: IPollFunctions,
	settings: PollSettings,
	saved: PollState | undefined,
	budget: PollBudget,
): Promise<SalesPoll> {
	const now = budget.startedAt;
	const { feeds: plan, restart, events: listed } = await planFeeds.call(this, settings, saved, now);
	const old = restart || !saved ? {} : saved.feeds;
	const chunk = new Chunk(RECORDS_PER_POLL);
	const outcomes = await readFeeds.call(this, plan, { settings, budget, chunk });
	chunk.trim();
	const leftAt = (await serviceNow(this)) ?? now;

	const poll = { settings, now, leftAt, old, chunk };
	const { changes, feeds, failed, events } = settleFeeds(plan, outcomes, poll, listed);
	// Nothing else to emit: the poll fails, naming the feed, and nothing moves (as any failed poll).
	if (failed.length > 0 && changes.length === 0)
		return { changes: [], error: feedError(this.getNode(), failed, false) };
	if (!restart && saved && failed.some(({ failures }) => failures % REPORT_EVERY === 0))
		return failuresCounted(this.getNode(), saved, failed);
	if (events) keepResting(feeds, old, now);
	const startFromKey = settings.startFromKey || saved?.startFromKey || '';
	const both = settings.include.includes('widgetSales') && settings.include.includes('eventOrders');
	const sold = both
		? withoutWidgetCopies(
				changes,
				restart ? {} : (saved?.widgetSales ?? {}),
				leftAt,
				rememberFor(settings.lagMs, settings.overlapMs),
			)
		: { changes, remembered: undefined };
	const state: PollState = { version: 1, startFromKey, feeds, ...(events ? { events } : {}) };
	if (sold.remembered) state.widgetSales = sold.remembered;
	return { changes: sold.changes, state };
}
