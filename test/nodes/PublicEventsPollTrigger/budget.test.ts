/**
 * The poll's time budget. n8n's durable scheduler abandons a poll that outlasts
 * N8N_SCHEDULER_POLL_TIMEOUT (45 s by default): its items are dropped and its place is not saved,
 * while it runs on. A reading bounded by records alone, in a list the service does not sort (every
 * poll reads it all), then never moved again once it took longer than the timeout: 0 of 2,000
 * sales reached a run (found by an outside review). harness/engine/poll.ts models the timeout and
 * the budget n8n gives the node; time is scaled: 150 ms a page against a 2 s timeout stands for
 * 3.4 s a page against 45 s.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { runPoll, type PollCall, type PollResult } from '../../../harness/engine';
import { DurablePollSession, durablePollBudgetMs } from '../../../harness/engine/poll';
import { credentialFor, pollItemId } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { until } from '../../../harness/sandbox/push';
import { MINUTE, SECOND } from '../../../harness/time';
import { FALLBACK_BUDGET_MS, PollBudget } from '../../../nodes/PublicEventsPollTrigger/poll/budget';
import { recordWidgetSale } from '../../../sandbox/seed';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({
		events: 12,
		placesPerEvent: 1500,
		widgetOrders: 0,
		rateLimit: { limit: 0 },
	});
	await sb.token();
});
afterAll(() => sb.stop());
afterEach(async () => {
	await sb.setQuirks({});
	await sb.admin('DELETE', '/faults');
});

const call = (): PollCall => ({
	nodeType: new PublicEventsPollTrigger(),
	type: 'CUSTOM.publicEventsPollTrigger',
	parameters: { include: ['widgetSales'] },
	credentials: credentialFor(sb).store,
});
const ids = (result: PollResult) => result.items.map((item) => String(pollItemId(item.json)));

/** Widget sales made inside the sandbox, `apartMs` apart from `start` on. */
function sellInside(count: number, start: number, apartMs: number): string[] {
	const { store, random } = sb.app;
	const partner = store.companies.find((c) => c.slug === 'partner')!.id;
	const made: string[] = [];
	for (let i = 0; i < count; i++) {
		const event = store.events.find(
			(e) => e.companyIds.has(partner) && e.dateEndOfSale > sb.app.clock.now() && e.available > 0,
		)!;
		const places = event.places.filter((p) => p.state === 'free').slice(0, 1);
		made.push(
			String(recordWidgetSale(store, random, event, places, partner, start + i * apartMs).id),
		);
	}
	return made;
}

const slowPages = (delayMs: number) =>
	sb.admin('POST', '/faults', {
		kind: 'latency',
		method: 'GET',
		path: '/widget-orders',
		delayMs,
		count: 0,
	});

describe('Poll Trigger: every poll ends within its budget', () => {
	it('n8n 1.x tells no budget: 30 s; n8n 2.x: its own', () => {
		expect(PollBudget.of({} as IPollFunctions, 0).budgetMs).toBe(FALLBACK_BUDGET_MS);
		const told = { getPollBudgetMs: () => 36_000 } as unknown as IPollFunctions;
		expect(PollBudget.of(told, 0).budgetMs).toBe(36_000);
		// n8n 2.40's durable scheduler: the timeout less a fifth (at least 5 s, at most half).
		expect(durablePollBudgetMs({ timeoutMs: 45_000 })).toBe(36_000);
		expect(durablePollBudgetMs({ timeoutMs: 2_000 })).toBe(1_000);
	});

	it.each([
		['the budget n8n tells', undefined, 0],
		// Control: a node that reads past the timeout is abandoned every time.
		['a budget past the timeout (control: every poll abandoned)', 10 * MINUTE, 1],
	])(
		'invariant: under a 2 s poll timeout, a backlog of 2,000 sales in a list the service does ' +
			'not sort, 150 ms a page, reaches runs exactly once; %s',
		async (_, pollBudgetMs, control) => {
			await sb.setQuirks({ ignoreSort: true });
			const node = new DurablePollSession(call(), { timeoutMs: 2 * SECOND });
			expect((await node.poll()).error).toBeUndefined();
			const sold = sellInside(2_000, sb.app.clock.now() + SECOND, 500);
			await sb.advanceClock(30 * MINUTE);
			await slowPages(150);

			const emitted: string[] = [];
			const outcomes: string[] = [];
			const polls = control ? 3 : 10;
			for (let poll = 0; poll < polls && emitted.length < sold.length; poll++) {
				// A minute between scheduled polls: an abandoned one has ended by the next.
				await node.settle();
				await sb.advanceClock(MINUTE);
				const result = await node.poll(pollBudgetMs ? { pollBudgetMs } : {});
				expect(result.error).toBeUndefined();
				outcomes.push(result.abandoned ? 'abandoned' : `${result.items.length}`);
				emitted.push(...ids(result));
			}
			await node.settle();
			if (control) {
				expect(outcomes).toEqual(['abandoned', 'abandoned', 'abandoned']);
				return;
			}
			console.log(`polls under the timeout: ${outcomes.join(', ')} items`);
			expect(outcomes).not.toContain('abandoned');
			expect(emitted).toHaveLength(new Set(emitted).size);
			expect([...emitted].sort()).toEqual([...sold].sort());
		},
		120_000,
	);

	it(
		'invariant: a poll past its budget blocks no ' + 'other; the late one emits and saves nothing',
		async () => {
			const node = new DurablePollSession(call());
			await node.poll();
			await sb.advanceClock(MINUTE);
			const [sale] = sellInside(1, sb.app.clock.now() - SECOND, 0);
			const staticData = JSON.stringify({
				...(JSON.parse(node.saved!) as IDataObject),
				'node:Node under test': node.cursor,
			});
			// The first answer hangs for 1.5 s: the first poll outlasts its 0.5 s budget.
			const hang = await sb.admin('POST', '/faults', {
				kind: 'latency',
				method: 'GET',
				path: '/widget-orders',
				delayMs: 1_500,
				count: 1,
			});
			const late = runPoll({ ...call(), staticData, pollBudgetMs: 500 });
			await until(
				async () =>
					sb.app.faults.list().some((rule) => rule.id === hang.body[0].id && rule.fired > 0),
				'the first poll to ask',
				5_000,
				20,
			);
			// Its budget spent, on this machine's clock.
			const realNow = Date.now.bind(Date);
			const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 600);
			try {
				const next = await runPoll({ ...call(), staticData, pollBudgetMs: 500 });
				const first = await late;
				expect(ids(next)).toEqual([sale]);
				expect([first.items, first.returnedNull, first.changed]).toEqual([[], true, false]);
				expect(JSON.parse(first.staticData) as IDataObject).toEqual(JSON.parse(staticData));
			} finally {
				clock.mockRestore();
			}
		},
	);
});
