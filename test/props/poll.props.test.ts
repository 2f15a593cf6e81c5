/**
 * Invariant: whatever the service's clock (skewed either way from n8n's, or set back by minutes
 * to hours), order (sort ignored), timing (records listed late, dated in the future, sold between
 * the pages of one reading, or leaving their list between two pages of one reading), catch-ups
 * past the Settlement Lag, a Start From hours back, pages too slow for the poll's budget, events
 * whose sale ends before their last sales are listed, renames of the trigger and n8n's restarts
 * between polls, the Poll Trigger (Sales and Refunds: widget sales, widget refunds, paid event
 * orders) emits every sale and refund the sandbox still lists, made after activation (or after
 * Start From), exactly once; one that left its list at most once; nothing else. The one exception
 * is the clock set back: a record made before the step and dated within the step and a margin
 * before it (the overlap, 5 minutes at least, and 6 minutes more: the trigger reads again from a
 * poll's time, kept to within 5 minutes, less a minute) may come twice, or once if it was made
 * before activation (nothing tells it from a sale made since: seed 1294607052). The
 * service stamps a record with its clock when the record is made: one listed late that was made
 * before a step back bears the clock of then. So a record leaving mid-read never makes another one
 * missed. And a poll with nothing new (no burst in the overlap window) costs one request per feed.
 *
 * Each case: a fresh sandbox (envelope, quirks), an activation, random steps, then the clock moved
 * past every lag and polls until two in a row are quiet. The emitted keys are compared with the
 * sandbox's own records (its store, and the records its drop-mid-read quirk took off the lists),
 * not with what the test thinks it made.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../harness/nodes/pollTrigger';
import { recordWidgetSale } from '../../sandbox/seed';
import { PollSession, type PollResult } from '../../harness/engine';
import { credentialFor, mark, pollItemId, since } from '../../harness/nodes/publicEvents';
import { SandboxClient } from '../../harness/sandbox/client';
import { checkProperty, runsFor } from '../../harness/props/property';
import { MINUTE, DAY } from '../../harness/time';

const FAR_FUTURE = Date.parse('2099-01-01T00:00:00Z');
const EVENTS = 3;
/** The budget of a poll whose pages are slow (n8n's durable scheduler, time scaled). */
const SLOW_BUDGET_MS = 150;

interface Setup {
	envelope: 'array' | 'hydra';
	/** The service's clock minus n8n's. */
	skewMs: number;
	ignoreSort: boolean;
	totalDrift: boolean;
	/** late-visible quirk: records reach the lists this long after their time. */
	lateVisibleMinutes: number;
	overlapMinutes: number;
	lagMinutes: number;
	/**
	 * Widget sales made in the 3 hours before activation, and Start From 3 hours back (0: no Start
	 * From, the activation takes what is there as history).
	 */
	history: number;
	/** drop-mid-read during the activation poll: records leaving before each page past the first. */
	activationDrop: number;
}

type Step =
	| { kind: 'sales'; count: number; ageMinutes: number }
	| { kind: 'future'; count: number; far: boolean; aheadMinutes: number }
	| { kind: 'refunds'; count: number; ageMinutes: number }
	| { kind: 'apiOrder' }
	| { kind: 'clock'; minutes: number }
	| { kind: 'poll'; restart: boolean }
	/**
	 * Sales spread over minutes, then a poll during whose reading records come between pages 3 and 2.
	 */
	| { kind: 'shiftPoll'; restart: boolean; burst: number; insert: number; ageMinutes: number }
	/**
	 * Sales spread over minutes, the clock past the Settlement Lag or not (a catch-up moves the feed
	 * past all it reads), then a poll during whose reading `drop` records leave the list before each
	 * of the first `count` pages past the first, and `insert` records come (dated back) as page 3 is
	 * served.
	 */
	| {
			kind: 'dropPoll';
			restart: boolean;
			burst: number;
			catchUp: boolean;
			drop: number;
			count: number;
			insert: number;
			ageMinutes: number;
	  }
	/**
	 * Sales spread over minutes, then polls under a budget too short to read them all in one, pages
	 * `latencyMs` slow, `drop` records leaving before each of the first pages past the first.
	 */
	| { kind: 'slowPolls'; burst: number; latencyMs: number; polls: number; drop: number }
	/** The trigger renamed in the editor and the workflow published again. */
	| { kind: 'rename' }
	/**
	 * An order paid on an event whose sale ends a minute later; the event list, read again two
	 * minutes on, no longer holds it (the sale may not be listed yet: late-visible).
	 */
	| { kind: 'endSale' }
	/** A poll, the service's clock set back, sales, a poll `pollAfter` minutes later. */
	| { kind: 'stepBack'; minutes: number; sales: number; pollAfter: number };

// Lateness stays within the Settlement Lag (less a minute for the Date header's whole seconds): the
// guarantee's bound.
const setupArb: fc.Arbitrary<Setup> = fc
	.record({
		envelope: fc.constantFrom('array' as const, 'hydra' as const),
		skewMs: fc.constantFrom(-3 * 60 * MINUTE, -10 * MINUTE, 0, 10 * MINUTE, 2 * 60 * MINUTE),
		ignoreSort: fc.boolean(),
		totalDrift: fc.boolean(),
		lateVisibleMinutes: fc.constantFrom(0, 0, 4),
		overlapMinutes: fc.constantFrom(0, 2, 5),
		lagMinutes: fc.constantFrom(6, 10, 15),
		history: fc.constantFrom(0, 0, 150, 320),
		activationDrop: fc.constantFrom(0, 0, 1, 5),
	})
	.filter((s) => s.lateVisibleMinutes <= s.lagMinutes - 2);

/** A deep run by hand (PROPS_RUNS set): every kind of step, every size. */
const DEEP = Boolean(process.env.PROPS_RUNS);

const stepArb = (lag: number): fc.Arbitrary<Step> =>
	fc.oneof(
		{
			weight: 4,
			arbitrary: fc.record({
				kind: fc.constant('sales' as const),
				count: fc.integer({ min: 1, max: 40 }),
				ageMinutes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: lag - 2 })),
			}),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				kind: fc.constant('future' as const),
				count: fc.integer({ min: 1, max: 3 }),
				far: fc.boolean(),
				aheadMinutes: fc.integer({ min: 20, max: 180 }),
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				kind: fc.constant('refunds' as const),
				count: fc.integer({ min: 1, max: 4 }),
				ageMinutes: fc.integer({ min: 0, max: lag - 2 }),
			}),
		},
		{ weight: 1, arbitrary: fc.record({ kind: fc.constant('apiOrder' as const) }) },
		{
			weight: 3,
			arbitrary: fc.record({
				kind: fc.constant('clock' as const),
				minutes: fc.oneof(
					{ weight: 4, arbitrary: fc.integer({ min: 0, max: 20 }) },
					// An outage: the next poll catches up hours at once.
					{ weight: 1, arbitrary: fc.integer({ min: 60, max: 180 }) },
				),
			}),
		},
		{
			weight: 3,
			arbitrary: fc.record({ kind: fc.constant('poll' as const), restart: fc.boolean() }),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				kind: fc.constant('shiftPoll' as const),
				restart: fc.boolean(),
				burst: fc.integer({ min: 210, max: 330 }),
				insert: fc.integer({ min: 1, max: 3 }),
				ageMinutes: fc.integer({ min: 0, max: lag - 2 }),
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				kind: fc.constant('dropPoll' as const),
				restart: fc.boolean(),
				burst: fc.integer({ min: 120, max: 330 }),
				catchUp: fc.boolean(),
				drop: fc.integer({ min: 1, max: 6 }),
				count: fc.integer({ min: 1, max: 4 }),
				insert: fc.constantFrom(0, 0, 1, 3),
				ageMinutes: fc.integer({ min: 0, max: lag - 2 }),
			}),
		},
		// Budgets in wall-clock milliseconds: how much a poll reads depends on the machine's load, so
		// these cases search in deep runs (PROPS_RUNS) and replay as kept seeds, not in every CI run
		// (the budget's own guarantees: test/nodes/PublicEventsPollTrigger/budget.test.ts).
		...(DEEP
			? [
					{
						weight: 2,
						arbitrary: fc.record({
							kind: fc.constant('slowPolls' as const),
							burst: fc.integer({ min: 150, max: 600 }),
							latencyMs: fc.constantFrom(20, 40),
							polls: fc.integer({ min: 1, max: 4 }),
							drop: fc.constantFrom(0, 0, 1, 3),
						}),
					},
				]
			: []),
		{ weight: 1, arbitrary: fc.constant({ kind: 'rename' as const }) },
		{ weight: 1, arbitrary: fc.constant({ kind: 'endSale' as const }) },
		{
			weight: 1,
			arbitrary: fc.record({
				kind: fc.constant('stepBack' as const),
				// Within the lag and well past it (seed 1345066828: a step past the lag noticed late
				// lost the sales made since). Time passing moves the saved offset and the last reading's
				// time as n8n's clock would (passTime), so a late poll is no step.
				minutes: fc.oneof(fc.integer({ min: 1, max: lag - 1 }), fc.integer({ min: lag, max: 180 })),
				sales: fc.integer({ min: 1, max: 5 }),
				// Within the margin a step back is read again with (5 minutes), as polls every minute are.
				pollAfter: fc.integer({ min: 0, max: 4 }),
			}),
		},
	);

const caseArb = setupArb.chain((setup) =>
	fc.record({
		setup: fc.constant(setup),
		steps: fc.array(stepArb(setup.lagMinutes), { minLength: 3, maxLength: 14 }),
	}),
);

const keyOf = (json: IDataObject) =>
	`${String(json.type)}:${String(json.source)}:${pollItemId(json)}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** One case, start to end; throws with a report when the invariant breaks. */
async function runCase({ setup, steps }: { setup: Setup; steps: Step[] }): Promise<void> {
	// Seeded a day back, then moved a day on: every seeded record is listed (late-visible) and well
	// before the activation, and the service's clock is n8n's plus the skew.
	const sb = await SandboxClient.start({
		now: Date.now() - DAY,
		events: EVENTS,
		// Enough places for the largest case (14 bursts of 600 and the history) on the one event an end
		// of sale may leave on sale (some 85% of a hall's places are free).
		placesPerEvent: 10_500,
		widgetOrders: 6,
		envelope: setup.envelope,
		rateLimit: { limit: 0 },
		quirks: {
			clockSkewMs: setup.skewMs,
			ignoreSort: setup.ignoreSort,
			totalDrift: setup.totalDrift,
			lateVisibleMs: setup.lateVisibleMinutes * MINUTE,
		},
	});
	try {
		const { app } = sb;
		const { store } = app;
		await sb.advanceClock(DAY);
		const partner = store.companies.find((c) => c.slug === 'partner')!.id;
		/**
		 * A sale made inside the service, at `at` (no HTTP: between two pages, or hundreds at once).
		 */
		const sellNow = (at: number) => {
			const event = store.events.find(
				(e) => e.companyIds.has(partner) && e.dateEndOfSale > app.clock.now() && e.available > 0,
			)!;
			recordWidgetSale(
				store,
				app.random,
				event,
				event.places.filter((p) => p.state === 'free').slice(0, 1),
				partner,
				at,
			);
		};
		// History: sales over the 3 hours before activation, which Start From reaches back to.
		const startFrom = setup.history > 0 ? app.clock.now() - 3 * 60 * MINUTE : undefined;
		for (let n = 1; startFrom !== undefined && n <= setup.history; n++)
			sellNow(startFrom + Math.floor((n * 3 * 60 * MINUTE) / (setup.history + 1)));
		const node = new PollSession({
			nodeType: new PublicEventsPollTrigger(),
			type: 'CUSTOM.publicEventsPollTrigger',
			parameters: {
				options: {
					overlapMinutes: setup.overlapMinutes,
					settlementLagMinutes: setup.lagMinutes,
					...(startFrom === undefined ? {} : { startFrom: iso(startFrom) }),
				},
			},
			credentials: credentialFor(sb).store,
		});
		/**
		 * Changes every copy of the trigger's state: n8n's memory and database, under any name, and the
		 * mirrors.
		 */
		const rewriteStates = (change: (state: IDataObject) => void) => {
			const rewrite = (json: string) => {
				const data = JSON.parse(json) as IDataObject;
				const mirrors = (data.global as IDataObject | undefined)?.publicEventsPollSeeds;
				const states = [
					...Object.entries(data)
						.filter(([key]) => key.startsWith('node:'))
						.map(([, value]) => (value as IDataObject).publicEventsPoll),
					...Object.values((mirrors ?? {}) as IDataObject),
				] as Array<IDataObject | undefined>;
				for (const state of states) if (state) change(state);
				return JSON.stringify(data);
			};
			if (node.staticData !== undefined) node.staticData = rewrite(node.staticData);
			if (node.saved !== undefined) node.saved = rewrite(node.saved);
		};
		/**
		 * Time passes, for n8n as for the service, though this machine's clock stands still: what the
		 * trigger saved of the service's clock against n8n's moves on with it, as it would (so that
		 * only a step back moves the service's clock against n8n's), and the time of a feed's last
		 * reading on n8n's clock falls as far behind (seed 1756534588: left where it was, a reading
		 * an hour old looked a minute old after a rename, and a step back read too little again).
		 */
		const passTime = async (ms: number) => {
			await sb.advanceClock(ms);
			rewriteStates((state) => {
				for (const feed of Object.values((state.feeds ?? {}) as Record<string, IDataObject>)) {
					if (typeof feed.offset === 'number') feed.offset += ms;
					if (typeof feed.readAt === 'number') feed.readAt -= ms;
				}
			});
		};
		const emitted: string[] = [];
		let shifted = 0;
		const record = (result: PollResult, label: string) => {
			if (result.error) throw new Error(`${label}: ${result.error.message}`);
			emitted.push(...result.items.map((item) => keyOf(item.json)));
			return result;
		};
		/** A reading during which records leave their lists (drop-mid-read). */
		const whileLeaving = async <T>(drop: number, count: number, read: () => Promise<T>) => {
			if (drop > 0) await sb.patchQuirks({ dropMidRead: drop, dropMidReadCount: count });
			try {
				return await read();
			} finally {
				if (drop > 0) await sb.patchQuirks({ dropMidRead: null, dropMidReadCount: null });
			}
		};
		record(await whileLeaving(setup.activationDrop, 0, () => node.poll()), 'activation');
		const watermark = {
			sale: Math.max(0, ...store.widgetOrders.map((o) => o.id)),
			refund: Math.max(0, ...store.widgetRefunds.map((r) => r.id)),
			order: Math.max(0, ...store.orders.keys()),
		};
		// Past the overlap and the lag: records dated back by the steps stay after the activation.
		await passTime((setup.lagMinutes + setup.overlapMinutes + 1) * MINUTE);

		const sell = async (count: number, at?: number) => {
			const answers = await Promise.all(
				Array.from({ length: count }, () =>
					sb.admin('POST', '/widget-orders', at === undefined ? {} : { at: iso(at) }),
				),
			);
			const refused = answers.find((answer) => answer.status !== 201);
			if (refused) throw new Error(`a sale was refused: ${refused.status} ${refused.text}`);
		};
		const poll = async (restart: boolean, label: string) => {
			if (restart) node.restart();
			return record(await node.poll(), label);
		};
		/** Every record of the partner's so far, by key, with its time. */
		const timesByKey = () =>
			new Map<string, number | null>([
				...store.widgetOrders
					.filter((o) => o.companyId === partner)
					.map((o) => [`sale:widgetSales:${o.id}`, o.payAt] as const),
				...store.widgetRefunds
					.filter((r) => r.companyId === partner)
					.map((r) => [`refund:widgetRefunds:${r.id}`, r.refundedAt] as const),
				...[...store.orders.values()]
					.filter((o) => o.companyId === partner)
					.map((o) => [`sale:eventOrders:${o.id}`, o.payAt] as const),
			]);
		const stepsBack: Array<{ at: number; minutes: number; made: Map<string, number | null> }> = [];
		const counted = { slowPolls: 0, renames: 0, ended: 0 };
		/**
		 * When each ended event's sale ended (the service's time), and whether the clock was set back
		 * since (the event may be on sale again, or its rest counted from a later time).
		 */
		const endedAt: Array<{ at: number; setBack?: true }> = [];
		/**
		 * The time the service stamped on a record made `minutes` ago (listed late): made before a step
		 * back of the clock, it bears the clock of then, not one set back since.
		 */
		const stamped = (minutes: number) =>
			stepsBack.reduceRight(
				(at, step) => (at < step.at - step.minutes * MINUTE ? at + step.minutes * MINUTE : at),
				app.clock.now() - minutes * MINUTE,
			);
		/** The saved event list, read again at the next poll (it is 15 minutes old on n8n's clock). */
		const ageEventList = () =>
			rewriteStates((state) => {
				const events = state.events as IDataObject | undefined;
				if (events) events.listedAt = Number(events.listedAt) - 16 * MINUTE;
			});
		const slowPolls = async (step: Extract<Step, { kind: 'slowPolls' }>, i: number) => {
			for (let part = 0; part < 3; part++) {
				await sell(Math.ceil(step.burst / 3));
				await passTime(Math.max(1, Math.floor(setup.lagMinutes / 4)) * MINUTE);
			}
			const paths = ['/widget-orders', '/widget-orders-refunds', '/event-points/{id}/orders'];
			await sb.admin(
				'POST',
				'/faults',
				paths.map((path) => ({
					kind: 'latency',
					method: 'GET',
					path,
					delayMs: step.latencyMs,
					count: 0,
				})),
			);
			try {
				for (let n = 0; n < step.polls; n++) {
					const result = await whileLeaving(step.drop, 2, () =>
						node.poll({ pollBudgetMs: SLOW_BUDGET_MS }),
					);
					record(result, `step ${i} (poll ${n} under a ${SLOW_BUDGET_MS} ms budget)`);
					counted.slowPolls++;
					await passTime(MINUTE);
				}
			} finally {
				await sb.admin('DELETE', '/faults');
			}
		};
		const endSale = async (i: number) => {
			const live = store.events.filter(
				(e) =>
					e.companyIds.has(partner) &&
					e.dateEndOfSale > app.clock.now() + 2 * MINUTE &&
					e.available > 0,
			);
			// One stays on sale for the other steps.
			if (live.length < 2) return;
			const event = live[live.length - 1];
			const place = event.places.find((p) => p.state === 'free')!;
			const hold = (
				await sb.send('POST', '/orders', {
					eventPoint: String(event.id),
					places: [String(place.id)],
					priceCategory: String(place.priceCategories[0].id),
				})
			).body;
			await sb.send('PUT', `/orders/${hold.id}/status`, { toStatus: 'paid' });
			await sb.admin('PATCH', `/events/${event.id}`, {
				dateEndOfSale: iso(app.clock.now() + MINUTE),
			});
			counted.ended++;
			endedAt.push({ at: app.clock.now() + MINUTE });
			await passTime(2 * MINUTE);
			ageEventList();
			await poll(false, `step ${i} (the event list read again after an end of sale)`);
		};
		const stepBack = async (step: Extract<Step, { kind: 'stepBack' }>, i: number) => {
			await poll(false, `step ${i} (poll before the clock is set back)`);
			stepsBack.push({ at: app.clock.now(), minutes: step.minutes, made: timesByKey() });
			for (const ended of endedAt) ended.setBack = true;
			await sb.advanceClock(-step.minutes * MINUTE);
			await sell(step.sales);
			await passTime(step.pollAfter * MINUTE);
			await poll(false, `step ${i} (poll after the clock was set back)`);
		};
		for (const [i, step] of steps.entries()) {
			const now = app.clock.now();
			if (step.kind === 'sales')
				await sell(step.count, step.ageMinutes ? stamped(step.ageMinutes) : undefined);
			else if (step.kind === 'future')
				await sell(step.count, step.far ? FAR_FUTURE + i * 1000 : now + step.aheadMinutes * MINUTE);
			else if (step.kind === 'refunds') {
				const paid = store.widgetOrders
					.filter((o) => o.companyId === partner && o.status === 'paid' && o.payAt <= now)
					.slice(-step.count);
				for (const order of paid)
					await sb.admin(
						'POST',
						`/widget-orders/${order.id}/refund`,
						step.ageMinutes ? { at: iso(Math.max(order.payAt, stamped(step.ageMinutes))) } : {},
					);
			} else if (step.kind === 'apiOrder') {
				const event = store.events.find(
					(e) => e.companyIds.has(partner) && e.dateEndOfSale > now && e.available > 0,
				)!;
				// The place from the store: the client's list reader knows plain arrays only.
				const place = event.places.find((p) => p.state === 'free')!;
				const order = {
					eventPoint: String(event.id),
					places: [String(place.id)],
					priceCategory: String(place.priceCategories[0].id),
				};
				const hold = (await sb.send('POST', '/orders', order)).body;
				await sb.send('PUT', `/orders/${hold.id}/status`, { toStatus: 'paid' });
			} else if (step.kind === 'clock') await passTime(step.minutes * MINUTE);
			else if (step.kind === 'poll') await poll(step.restart, `step ${i} (poll)`);
			else if (step.kind === 'slowPolls') await slowPolls(step, i);
			else if (step.kind === 'rename') {
				node.rename(`Renamed in step ${i}`);
				counted.renames++;
			} else if (step.kind === 'endSale') await endSale(i);
			else if (step.kind === 'stepBack') await stepBack(step, i);
			else {
				for (let part = 0; part < 3; part++) {
					await sell(Math.ceil(step.burst / 3));
					await passTime(Math.max(1, Math.floor(setup.lagMinutes / 4)) * MINUTE);
				}
				const drop = step.kind === 'dropPoll' ? step : undefined;
				if (drop?.catchUp) await passTime((setup.lagMinutes + setup.overlapMinutes + 1) * MINUTE);
				// Page 2 waits; page 3, sent with it, is served first and the records come right after it.
				await sb.admin('POST', '/faults', {
					kind: 'latency',
					method: 'GET',
					path: '/widget-orders',
					query: { page: '2' },
					delayMs: 150,
					count: 1,
				});
				const original = app.page;
				app.page = function (this: typeof app, ...args: Parameters<typeof app.page>) {
					const [, , , collection] = args;
					if (collection.path === '/widget-orders' && collection.page === 3) {
						app.page = original;
						shifted++;
						const at = stamped(step.ageMinutes);
						for (let n = 0; n < step.insert; n++) sellNow(at);
					}
					return original.apply(this, args);
				} as typeof app.page;
				try {
					await whileLeaving(drop?.drop ?? 0, drop?.count ?? 0, () =>
						poll(step.restart, `step ${i} (poll with records coming or leaving between pages)`),
					);
				} finally {
					app.page = original;
					await sb.admin('DELETE', '/faults');
				}
			}
		}

		// Every lag over, every near-future record listed: polls until two in a row bring nothing.
		// A poll that goes on with a pass under way counts for nothing: a list in no usable order
		// takes new records anywhere, also before where the pass got to, and the poll after it reads
		// the window from its start (seed 304045717). A quiet poll saves nothing, so one after a
		// restart goes on with the pass the database still holds.
		await passTime((4 * 60 + setup.lagMinutes) * MINUTE);
		const passUnderWay = (json?: string) => json?.includes('"pass":{') ?? false;
		let quiet = 0;
		for (let n = 0; n < 10 && quiet < 2; n++) {
			const restart = n % 2 === 1;
			const goesOn = passUnderWay(restart ? node.saved : node.staticData);
			const got = await poll(restart, `final poll ${n}`);
			quiet = got.items.length === 0 && !goesOn ? quiet + 1 : 0;
		}
		// The cost of nothing new: one sale alone in the window (all else older than the lag and the
		// overlap), emitted, then a poll.
		await passTime((setup.lagMinutes + setup.overlapMinutes + 1) * MINUTE);
		await sell(1);
		await passTime((setup.lateVisibleMinutes + 1) * MINUTE);
		if ((await poll(false, 'the last sale')).items.length !== 1)
			throw new Error('the last sale was not emitted alone');
		const before = await mark(sb);
		const idle = await poll(false, 'a poll with nothing new');
		const idleRequests = idle.items.length === 0 ? (await since(sb, before)).length : NaN;

		const now = app.clock.now();
		// As the sandbox lists them (late-visible: not before their time plus the lag, so never a 2099
		// record).
		const listed = (at: number | null) =>
			at !== null &&
			(setup.lateVisibleMinutes === 0 || at + setup.lateVisibleMinutes * MINUTE <= now);
		// Made after activation (dated before Start From too, by a clock set back since), or at or
		// after Start From.
		const inScope = (id: number, after: number, at: number | null) =>
			id > after || (startFrom !== undefined && at !== null && at >= startFrom);
		const inList = [
			...store.widgetOrders
				.filter((o) => o.companyId === partner && inScope(o.id, watermark.sale, o.payAt))
				.filter((o) => listed(o.payAt))
				.map((o) => ({ key: `sale:widgetSales:${o.id}`, path: '/widget-orders', id: o.id })),
			...store.widgetRefunds
				.filter((r) => r.companyId === partner && inScope(r.id, watermark.refund, r.refundedAt))
				.filter((r) => listed(r.refundedAt))
				.map((r) => ({
					key: `refund:widgetRefunds:${r.id}`,
					path: '/widget-orders-refunds',
					id: r.id,
				})),
			...[...store.orders.values()]
				.filter((o) => o.companyId === partner && inScope(o.id, watermark.order, o.payAt))
				.filter((o) => listed(o.payAt))
				.map((o) => ({
					key: `sale:eventOrders:${o.id}`,
					path: `/event-points/${o.eventPointId}/orders`,
					id: o.id,
				})),
		];
		// Records that left their list (drop-mid-read) may have been emitted once, or not at all.
		const left: Record<string, number[]> = (await sb.admin('GET', '/quirks')).body.recordsLeft;
		const gone = ({ path, id }: { path: string; id: number }) => left[path]?.includes(id);
		const expected = inList.filter((entry) => !gone(entry)).map((entry) => entry.key);
		const allowed = new Set(inList.map((entry) => entry.key));
		const counts = new Map<string, number>();
		for (const key of emitted) counts.set(key, (counts.get(key) ?? 0) + 1);
		// A step back of the clock: a record made before it, dated within the step and the margin
		// before it (the overlap, 5 minutes at least, or the time of a poll up to 5 minutes before
		// the step), may come once more; one made before activation, once.
		const margin = (Math.max(setup.overlapMinutes, 5) + 6) * MINUTE;
		const readAgain = (key: string) =>
			stepsBack.filter(({ at, minutes, made }) => {
				const time = made.get(key);
				return time !== undefined && time !== null && time >= at - minutes * MINUTE - margin;
			}).length;
		const mayCome = (key: string) => 1 + readAgain(key);
		const twice = [...counts].filter(([, n]) => n > 1);
		const report = {
			duplicates: twice.filter(([key, n]) => n > mayCome(key)).map(([key]) => key),
			missing: expected.filter((key) => !counts.has(key)),
			extra: [...counts.keys()].filter((key) => !allowed.has(key) && readAgain(key) === 0),
			idleRequests,
		};
		// An ended event's orders are read until its late records had the lag and the overlap on the
		// service's clock: one set back past the end puts the event on sale again for that long.
		const rested = endedAt.filter(
			({ at, setBack }) =>
				!setBack && at <= now - (setup.lagMinutes + setup.overlapMinutes + 2) * MINUTE,
		).length;
		// Records dated ahead of a clock set back are in the window, a page or more, until it catches
		// up with them.
		const caughtUp = stepsBack.every(
			({ at }) => at <= now - (setup.lagMinutes + setup.overlapMinutes + 2) * MINUTE,
		);
		const within = (n: number, low: number, high: number) =>
			Number.isNaN(n) ? low : Math.min(Math.max(n, low), caughtUp ? high : Infinity);
		expect(report).toEqual({
			duplicates: [],
			missing: [],
			extra: [],
			idleRequests: within(idleRequests, 2 + EVENTS - counted.ended, 2 + EVENTS - rested),
		});
		const leftCount = Object.values(left).reduce((n, ids) => n + ids.length, 0);
		runs.push({
			records: expected.length,
			polls: node.polls,
			shifted,
			left: leftCount,
			...counted,
			stepsBack: stepsBack.length,
			twice: twice.length,
		});
	} finally {
		await sb.stop();
	}
}

const runs: Array<{
	records: number;
	polls: number;
	shifted: number;
	left: number;
	slowPolls?: number;
	renames?: number;
	ended?: number;
	stepsBack?: number;
	twice?: number;
}> = [];
/** About a second a case on this machine: 12 stay well under a minute with shrinking room. */
const CI_RUNS = 12;

// What fast-check found against the trigger as it was before this suite (each search narrowed to
// one
// kind of step and setup; its seed, then the shrunk case, which is replayed below on every run):
// - seed 641829964: a sale listed a minute after its time, overlap 0: never emitted (no settlement
// lag).
// - seed 1248247907: one record dated 2099: the cursor went there and every later sale was lost.
// - seed 679029895: service clock 3 h behind n8n's: activation started at n8n's now, later sales
// lost.
// - seed 718301584: sort ignored (newest first), 210 sales, one more sold while pages 2 and 3 were
// in
//   flight: 1 of 211 lost for good (pages read at once, the boundary shifted).
// - seed 11: Start From 3 h back, 150 sales since, one record leaving before each page past the
//   first of the activation's reading: 1 lost for good (the pass took no note of records that go).
// - seed 14 (search without Start From): a catch-up past the Settlement Lag, one record leaving
//   before page 2: 1 of 120 lost for good.
const found: Array<{ setup: Setup; steps: Step[] }> = [
	{
		setup: {
			envelope: 'array',
			skewMs: 0,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 0,
			lagMinutes: 6,
			history: 0,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'sales', count: 1, ageMinutes: 0 },
			{ kind: 'poll', restart: false },
			{ kind: 'sales', count: 1, ageMinutes: 1 },
			{ kind: 'sales', count: 1, ageMinutes: 0 },
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: 0,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 5,
			lagMinutes: 6,
			history: 0,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'future', count: 1, far: true, aheadMinutes: 20 },
			{ kind: 'poll', restart: false },
			{ kind: 'clock', minutes: 0 },
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: -3 * 60 * MINUTE,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 5,
			lagMinutes: 6,
			history: 0,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'sales', count: 1, ageMinutes: 1 },
			{ kind: 'sales', count: 1, ageMinutes: 1 },
			{ kind: 'poll', restart: false },
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: 0,
			ignoreSort: true,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 0,
			lagMinutes: 6,
			history: 0,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'shiftPoll', restart: false, burst: 210, insert: 1, ageMinutes: 0 },
			{ kind: 'poll', restart: false },
		],
	},
	// The same shift in an oldest-first list: a record listed late lands between the pages in flight.
	{
		setup: {
			envelope: 'hydra',
			skewMs: 0,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 0,
			lagMinutes: 6,
			history: 0,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'shiftPoll', restart: true, burst: 300, insert: 2, ageMinutes: 3 },
			{ kind: 'poll', restart: true },
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: -3 * 60 * MINUTE,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 0,
			lagMinutes: 6,
			history: 150,
			activationDrop: 1,
		},
		steps: [
			{ kind: 'sales', count: 1, ageMinutes: 0 },
			{
				kind: 'dropPoll',
				restart: false,
				burst: 120,
				catchUp: false,
				drop: 1,
				count: 1,
				insert: 0,
				ageMinutes: 0,
			},
			{ kind: 'clock', minutes: 0 },
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: -3 * 60 * MINUTE,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 0,
			lagMinutes: 6,
			history: 0,
			activationDrop: 0,
		},
		steps: [
			{
				kind: 'dropPoll',
				restart: false,
				burst: 120,
				catchUp: true,
				drop: 1,
				count: 1,
				insert: 3,
				ageMinutes: 1,
			},
			{ kind: 'refunds', count: 1, ageMinutes: 0 },
			{ kind: 'sales', count: 1, ageMinutes: 1 },
			{ kind: 'poll', restart: false },
		],
	},
];

// Found by this suite against the trigger of the poll budget (same form):
// - seed 262758142: sort ignored, Start From with three sales not listed yet (late-visible), a
//   burst whose newest 100 share one second, three records leaving before page 2 under a budget:
//   the page shared nothing with page 1, whose one time was taken for an oldest-first list, so
//   the window moved past the three unread sales: lost for good.
// - seed 1578447809: the model's own mistake. A sale listed late right after a step back of 31
//   minutes was dated 6 minutes before the clock set back, on no clock the service had when it was
//   made (made before the step, it bears the clock of then: `stamped`).
// - seed 2042293990: 100 sales in the second the window started in, the window's start half a
//   second into it (whole seconds in the filter): the first page, all before the start and of one
//   time, was taken for a newest-first list past its window, and the reading ended there. The feed
//   never moved while that page led its list; here the sales after it came only with the next
//   sale.
// - seed 440692241: the model's own mistake. An end of sale, then n8n restarted: the model aged
//   the event list in n8n's memory only, so the restart went back to a list read "just now", and
//   the ended event's orders were still read (the idle poll's fifth request).
// - seed 1685876724: the model's own mistake. Some 1,500 sales after an end of sale filled the one
//   event left on sale (1,800 places a hall were for bursts of 330): a sale was refused.
// - seed 304045717 (deep run): the model's own mistake. Sort ignored, 86 sales listed late (4
//   minutes) while a poll under the budget stopped its pass: they came before where the pass got
//   to, so the poll ending the pass found nothing and the one after it emitted them (from its
//   window's start, a poll late, none lost). The model took the quiet end of the pass for caught
//   up.
// - seed 1756534588 (deep run): the model's own mistake. A step back of 31 minutes, then the
//   trigger renamed: the renamed trigger went on from the state saved at activation, whose last
//   reading this suite left dated at n8n's time then while its clock moved on 30 minutes; the
//   step back was read again from a minute before "now", and 141 sales made since were missed.
const foundSince: Array<{ setup: Setup; steps: Step[] }> = [
	{
		setup: {
			envelope: 'array',
			skewMs: 0,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 4,
			overlapMinutes: 5,
			lagMinutes: 15,
			history: 0,
			activationDrop: 5,
		},
		steps: [
			{ kind: 'stepBack', minutes: 31, sales: 1, pollAfter: 0 },
			{ kind: 'rename' },
			{ kind: 'refunds', count: 1, ageMinutes: 0 },
			{ kind: 'shiftPoll', restart: false, burst: 210, insert: 1, ageMinutes: 0 },
		],
	},
	{
		setup: {
			envelope: 'hydra',
			skewMs: -3 * 60 * MINUTE,
			ignoreSort: true,
			totalDrift: true,
			lateVisibleMinutes: 4,
			overlapMinutes: 2,
			lagMinutes: 15,
			history: 150,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'sales', count: 10, ageMinutes: 1 },
			{ kind: 'slowPolls', burst: 256, latencyMs: 40, polls: 1, drop: 0 },
			{ kind: 'future', count: 1, far: false, aheadMinutes: 20 },
		],
	},
	{
		setup: {
			envelope: 'hydra',
			skewMs: 0,
			ignoreSort: true,
			totalDrift: false,
			lateVisibleMinutes: 4,
			overlapMinutes: 5,
			lagMinutes: 10,
			history: 150,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'slowPolls', burst: 298, latencyMs: 20, polls: 1, drop: 3 },
			{ kind: 'clock', minutes: 0 },
			{ kind: 'clock', minutes: 0 },
			{ kind: 'sales', count: 1, ageMinutes: 1 },
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: -10 * MINUTE,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 0,
			lagMinutes: 15,
			history: 150,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'sales', count: 1, ageMinutes: 0 },
			{ kind: 'stepBack', minutes: 31, sales: 1, pollAfter: 0 },
			{ kind: 'sales', count: 1, ageMinutes: 6 },
		],
	},
	{
		setup: {
			envelope: 'hydra',
			skewMs: 0,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 4,
			overlapMinutes: 0,
			lagMinutes: 15,
			history: 0,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'slowPolls', burst: 298, latencyMs: 20, polls: 3, drop: 0 },
			{ kind: 'poll', restart: false },
			{ kind: 'shiftPoll', restart: false, burst: 210, insert: 1, ageMinutes: 0 },
			{ kind: 'future', count: 1, far: false, aheadMinutes: 20 },
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: -10 * MINUTE,
			ignoreSort: true,
			totalDrift: true,
			lateVisibleMinutes: 4,
			overlapMinutes: 5,
			lagMinutes: 10,
			history: 320,
			activationDrop: 1,
		},
		steps: [
			{ kind: 'stepBack', minutes: 1, sales: 1, pollAfter: 0 },
			{ kind: 'endSale' },
			{
				kind: 'dropPoll',
				restart: true,
				burst: 120,
				catchUp: false,
				drop: 1,
				count: 1,
				insert: 0,
				ageMinutes: 0,
			},
		],
	},
	{
		setup: {
			envelope: 'array',
			skewMs: 0,
			ignoreSort: false,
			totalDrift: false,
			lateVisibleMinutes: 0,
			overlapMinutes: 0,
			lagMinutes: 15,
			history: 320,
			activationDrop: 0,
		},
		steps: [
			{ kind: 'slowPolls', burst: 322, latencyMs: 20, polls: 1, drop: 0 },
			{ kind: 'sales', count: 7, ageMinutes: 1 },
			{ kind: 'future', count: 1, far: false, aheadMinutes: 20 },
			{ kind: 'slowPolls', burst: 150, latencyMs: 20, polls: 1, drop: 0 },
			{ kind: 'shiftPoll', restart: false, burst: 214, insert: 2, ageMinutes: 0 },
			{ kind: 'future', count: 2, far: false, aheadMinutes: 20 },
			{ kind: 'endSale' },
			{ kind: 'slowPolls', burst: 505, latencyMs: 20, polls: 1, drop: 0 },
		],
	},
];

describe('Poll Trigger property: every sale and refund exactly once', () => {
	it('the counterexamples found before the fix', async () => {
		for (const example of found) await runCase(example);
		// the records did come between the pages, and did leave the lists
		expect(runs.slice(-4).map((run) => run.shifted)).toEqual([1, 1, 1, 1]);
		expect(runs.slice(-2).map((run) => run.left > 0)).toEqual([true, true]);
		runs.length = 0;
	}, 120_000);

	it('the counterexamples found since', async () => {
		// Timing decides how many pages a poll under the budget reads: the Poll Trigger's pager tests
		// replay the trigger's two defects step by step ('all of one second', 'Start From within it').
		for (const example of foundSince) await runCase(example);
		runs.length = 0;
	}, 120_000);

	it(
		'under skewed clocks set back or not, ignored sort, late and future-dated records, pages ' +
			'shifting mid-read, slow pages under a budget, ends of sale, renames and restarts',
		async () => {
			await checkProperty('poll trigger: exactly once', caseArb, runCase, CI_RUNS);
			const sum = (pick: (run: (typeof runs)[number]) => number) =>
				runs.reduce((n, run) => n + pick(run), 0);
			process.stdout.write(
				`  ${sum((r) => r.records)} sales and refunds over ${sum((r) => r.polls)}` +
					` polls in ${runs.length} runs (shrinking included), ` +
					`${sum((r) => r.shifted)} readings with records arriving between pages, ` +
					`${sum((r) => r.left)} records leaving their list mid-read, ` +
					`${sum((r) => r.slowPolls ?? 0)} polls under a budget too short for their pages, ` +
					`${sum((r) => r.renames ?? 0)} renames, ${sum((r) => r.ended ?? 0)} ends of sale, ` +
					`${sum((r) => r.stepsBack ?? 0)} clock steps back ` +
					`(${sum((r) => r.twice ?? 0)} records emitted twice within them)\n`,
			);
		},
		60_000 + runsFor(CI_RUNS) * 20_000,
	);
});
