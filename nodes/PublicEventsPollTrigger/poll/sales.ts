import { NodeApiError, NodeOperationError, type INode, type IPollFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, serviceNow } from '../../shared/transport';
import type { PollBudget } from './budget';
import {
	advance,
	byTime,
	offsetToSave,
	readAtToSave,
	rewind,
	type FeedRecord,
	type FeedState,
} from './feed';
import type { Change } from './items';
import { readWindow, type WindowRead } from './pager';
import { IDLE_KEEP_MS, planFeeds, type Planned } from './plan';
import type { PollSettings } from './pollSettings';
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
 * A feed failing this many polls in a row fails the poll (naming it) even when other feeds have
 * items, and again every as many polls.
 */
export const REPORT_EVERY = 3;

type Outcome =
	| { read: WindowRead; feed: FeedState }
	| { gone: true }
	| { error: Error }
	| { deferred: true };

/**
 * The oldest RECORDS_PER_POLL records across feeds; a feed whose records were left out gets a
 * horizon at the first of them.
 */
class Chunk {
	private held: Array<{ index: number; record: FeedRecord }> = [];
	readonly horizons = new Map<number, number>();

	add(index: number, records: FeedRecord[]) {
		for (const record of records) this.held.push({ index, record });
		if (this.held.length > 2 * RECORDS_PER_POLL) this.trim();
	}

	trim() {
		this.held.sort((a, b) => byTime(a.record, b.record));
		for (const { index, record } of this.held.slice(RECORDS_PER_POLL))
			this.horizons.set(index, Math.min(this.horizons.get(index) ?? Infinity, record.time));
		this.held = this.held.slice(0, RECORDS_PER_POLL);
	}

	recordsOf(index: number): FeedRecord[] {
		return this.held.filter((entry) => entry.index === index).map((entry) => entry.record);
	}
}

/**
 * The error of a feed that could not be read, naming it: the transport's own error (status, body,
 * what to do) with the feed's name in front, so n8n's error workflow sees the HTTP code too.
 */
function feedError(
	node: INode,
	failed: Array<{ planned: Planned; error: Error; failures: number }>,
	othersWentOn: boolean,
): Error {
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

/**
 * One poll of Sales and Refunds: the changes to emit and the state to save, or the error to report.
 */
export async function pollSales(
	this: IPollFunctions,
	settings: PollSettings,
	saved: PollState | undefined,
	budget: PollBudget,
): Promise<{ changes: Change[]; state?: PollState; error?: Error }> {
	const { overlapMs, lagMs } = settings;
	const now = budget.startedAt;
	const { feeds: plan, restart, ...planned } = await planFeeds.call(this, settings, saved, now);
	let { events } = planned;
	const old = restart || !saved ? {} : saved.feeds;

	const chunk = new Chunk();
	const read = async (planned: Planned, index: number): Promise<Outcome> => {
		const { spec } = planned;
		// No time left to read this feed: it keeps its place, and the next poll reads it first.
		if (planned.emit && !budget.allowsPage()) return { deferred: true };
		const window = (feed: FeedState) =>
			readWindow.call(this, {
				path: spec.path,
				time: spec.time,
				lower: feed.from,
				keep: (record) => record.time >= feed.from && feed.seen[record.id] === undefined,
				limit: planned.emit ? RECORDS_PER_POLL : Infinity,
				settings: settings.request,
				// A first reading only marks what is there as history: it reads to the end.
				budget: planned.emit ? budget : undefined,
				pass: feed.pass?.lower === feed.from ? feed.pass : undefined,
			});
		try {
			let feed = planned.feed;
			let got = await window(feed);
			const rewound = rewind(feed, got, settings);
			if (rewound) {
				feed = rewound;
				got = await window(feed);
			}
			if (planned.emit) chunk.add(index, got.records);
			return { read: got, feed };
		} catch (error) {
			// All Visible Events: an event no longer linked to the company answers 404; stop reading it.
			if (planned.eventId !== undefined && (error as NodeApiError).httpCode === '404')
				return { gone: true };
			return { error: error as Error };
		}
	};
	// Without a token yet, feeds read at once would each request one: the first goes alone.
	const alone = (await this.getCredentials(CREDENTIAL_TYPE)).token ? 0 : 1;
	const outcomes = [
		...(await inParallel(plan.slice(0, alone), read)),
		...(await inParallel(plan.slice(alone), (p, i) => read(p, i + alone))),
	];
	chunk.trim();
	// When a feed found leaving this poll and not read started to leave (the service's time).
	const leftAt = (await serviceNow(this)) ?? now;

	const changes: Change[] = [];
	const feeds: Record<string, FeedState> = {};
	const failed: Array<{ planned: Planned; error: Error; failures: number }> = [];
	plan.forEach((planned, i) => {
		const { key } = planned.spec;
		const outcome = outcomes[i];
		const { cursor, from, seen } = planned.feed;
		const leaving = planned.leaving ? { leavingSince: planned.feed.leavingSince ?? leftAt } : {};
		if ('deferred' in outcome) {
			const failures = old[key]?.failures;
			feeds[key] = {
				...planned.feed,
				...leaving,
				...(failures ? { failures } : {}),
				waiting: true,
			};
			return;
		}
		if ('gone' in outcome) {
			if (old[key]) feeds[key] = { cursor, from, seen, idleSince: now };
			if (events) events = { ...events, ids: events.ids.filter((id) => id !== planned.eventId) };
			return;
		}
		if ('error' in outcome) {
			// Its place stays; a feed read for the first time (nothing to emit) is simply read again next
			// time.
			const failures = (old[key]?.failures ?? 0) + 1;
			failed.push({ planned, error: outcome.error, failures });
			if (planned.emit) feeds[key] = { ...planned.feed, ...leaving, failures };
			return;
		}
		const { read: got } = outcome;
		const horizon = Math.min(got.horizon ?? Infinity, chunk.horizons.get(i) ?? Infinity);
		const records = planned.emit ? chunk.recordsOf(i) : got.records;
		const bounds = {
			// A pass that reached the end counts from when it began.
			serviceTime: Math.min(got.passBegan ?? Infinity, got.serviceTime),
			overlapMs,
			lagMs,
			...(horizon < Infinity ? { horizon } : {}),
		};
		const { fresh, next } = advance(outcome.feed, records, bounds);
		if (planned.emit)
			changes.push(
				...fresh.map((r) => ({
					type: planned.spec.type,
					source: planned.spec.source,
					time: r.time,
					json: r.json,
				})),
			);
		// Records of a pass left out of this chunk: the pass no longer proves the feed complete.
		const pass =
			got.pass && chunk.horizons.has(i) ? { ...got.pass, unproven: true as const } : got.pass;
		const offset = offsetToSave(outcome.feed.offset, got.offset);
		const readAt = readAtToSave(outcome.feed.readAt, got.offset !== undefined, now, fresh.length);
		const since = planned.leaving ? (outcome.feed.leavingSince ?? got.serviceTime) : undefined;
		// A leaving event rests once a record paid as it left has had its Settlement Lag (and the
		// overlap) to be listed, and its reading reached the end.
		if (since !== undefined && !pass && got.serviceTime - since >= lagMs + overlapMs) {
			feeds[key] = { ...next, idleSince: now };
			return;
		}
		// A page that failed after the oldest ones were read: they go out, the feed still counts as
		// failing.
		feeds[key] = {
			...next,
			...(offset === undefined ? {} : { offset }),
			...(readAt === undefined ? {} : { readAt }),
			...(pass ? { pass } : {}),
			...(since === undefined ? {} : { leavingSince: since }),
		};
	});
	// Nothing else to emit: the poll fails, naming the feed, and nothing moves (as any failed poll).
	if (failed.length > 0 && changes.length === 0)
		return { changes: [], error: feedError(this.getNode(), failed, false) };
	if (!restart && saved && failed.some(({ failures }) => failures % REPORT_EVERY === 0)) {
		// Others had items: every third failure in a row fails the poll all the same, lest it go
		// unseen. Only the failure counts move (in n8n's memory), so what the other feeds found comes
		// with the next poll.
		const counted = failed
			.filter(({ planned }) => old[planned.spec.key])
			.map(({ planned, failures }) => [planned.spec.key, { ...old[planned.spec.key], failures }]);
		return {
			changes: [],
			state: { ...saved, feeds: { ...saved.feeds, ...Object.fromEntries(counted) } },
			error: feedError(this.getNode(), failed, true),
		};
	}
	if (events) {
		// Feeds of events no longer listed rest 30 days, so an event whose sale is extended resumes
		// where it stopped.
		for (const [key, feed] of Object.entries(old)) {
			if (!feeds[key] && feed.idleSince !== undefined && now - feed.idleSince < IDLE_KEEP_MS)
				feeds[key] = feed;
		}
	}
	const startFromKey = settings.startFromKey || saved?.startFromKey || '';
	return { changes, state: { version: 1, startFromKey, feeds, ...(events ? { events } : {}) } };
}
