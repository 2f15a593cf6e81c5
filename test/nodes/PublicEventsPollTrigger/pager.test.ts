import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { POLL_BUDGET } from '../../../nodes/PublicEventsPollTrigger/poll/sales';
import { recordWidgetSale } from '../../../sandbox/seed';
import { PollSession, type PollResult } from '../../../harness/engine';
import { credentialFor, mark, pollItemId, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { MINUTE } from '../../../harness/time';

// How the poll trigger reads a window of several pages: oldest-first lists with pages in flight,
// other lists page after page, a shift between pages in flight caught, a catch-up in chunks.
let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({
		events: 8,
		placesPerEvent: 1500,
		widgetOrders: 3,
		envelope: 'hydra',
		rateLimit: { limit: 0 },
	});
	await sb.token();
});
afterAll(() => sb.stop());
afterEach(async () => {
	await sb.setQuirks({});
	await sb.admin('DELETE', '/faults');
});

const partner = () => sb.app.store.companies.find((c) => c.slug === 'partner')!.id;

/** Sales made inside the sandbox (thousands in milliseconds), at `at` or the sandbox's now. */
function sellInside(count: number, at = sb.app.clock.now()) {
	const { store, random, clock } = sb.app;
	const made: number[] = [];
	for (let i = 0; i < count; i++) {
		const event = store.events.find(
			(e) => e.companyIds.has(partner()) && e.dateEndOfSale > clock.now() && e.available > 0,
		)!;
		made.push(
			recordWidgetSale(
				store,
				random,
				event,
				event.places.filter((p) => p.state === 'free').slice(0, 1),
				partner(),
				at,
			).id,
		);
	}
	return made;
}

/** Sales spread over `minutes` of the sandbox clock, in `parts` bursts. */
async function spreadSales(count: number, parts: number, minutes: number) {
	const made: number[] = [];
	for (let part = 0; part < parts; part++) {
		made.push(...sellInside(Math.ceil(count / parts)));
		await sb.advanceClock(Math.floor((minutes / parts) * MINUTE));
	}
	return made;
}

function widgetTrigger(options: IDataObject = {}) {
	return new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: {
			include: ['widgetSales'],
			options: { overlapMinutes: 0, settlementLagMinutes: 6, ...options },
		},
		credentials: credentialFor(sb).store,
	});
}

const idsOf = (result: PollResult) => {
	expect(result.error).toBeUndefined();
	return result.items.map((item) => Number(pollItemId(item.json)));
};

async function pagesAsked(seq: number) {
	return (await since(sb, seq))
		.filter((e) => e.route === '/widget-orders')
		.map((e) => Number(new URLSearchParams(e.query).get('page')));
}

describe('Poll Trigger: windows of several pages', () => {
	it(
		'oldest first: pages in flight, then the last page once more ' +
			'to check nothing shifted (one request more)',
		async () => {
			const node = widgetTrigger();
			await node.poll();
			await sb.advanceClock(10 * MINUTE);
			const made = await spreadSales(450, 3, 3);
			const seq = await mark(sb);
			expect(idsOf(await node.poll()).sort()).toEqual(made.sort());
			expect(await pagesAsked(seq)).toEqual([1, 2, 3, 4, 5, 5]);
		},
	);

	it(
		'newest first (the sort ignored): page after page, and a sale ' +
			'during the reading repeats an item instead of hiding one',
		async () => {
			await sb.setQuirks({ ignoreSort: true });
			const node = widgetTrigger();
			await node.poll();
			await sb.advanceClock(10 * MINUTE);
			// 50 a minute: page 1 already shows the order (newest first).
			const made = await spreadSales(450, 9, 9);
			// Page 2 answers late; page 3 would have gone with it if pages were in flight: a sale comes
			// while page 2 waits.
			await sb.admin('POST', '/faults', {
				kind: 'latency',
				method: 'GET',
				path: '/widget-orders',
				query: { page: '2' },
				delayMs: 100,
				count: 1,
			});
			const original = sb.app.page;
			let during: number[] = [];
			sb.app.page = function (this: typeof sb.app, ...args: Parameters<typeof sb.app.page>) {
				if (args[3].path === '/widget-orders' && args[3].page === 2) during = sellInside(1);
				return original.apply(this, args);
			} as typeof sb.app.page;
			let seq: number;
			try {
				seq = await mark(sb);
				const first = idsOf(await node.poll());
				expect(first.sort()).toEqual(made.sort());
			} finally {
				sb.app.page = original;
			}
			// Requests went out one at a time: page N only after page N - 1 answered.
			expect(await pagesAsked(seq)).toEqual([1, 2, 3, 4, 5]);
			expect(idsOf(await node.poll())).toEqual(during);
		},
	);

	it(
		'oldest first, a record listed late lands between pages in ' +
			'flight: the check sees it, the window is read again page by ' +
			'page',
		async () => {
			const node = widgetTrigger();
			await node.poll();
			await sb.advanceClock(10 * MINUTE);
			const made = await spreadSales(450, 3, 3);
			await sb.admin('POST', '/faults', {
				kind: 'latency',
				method: 'GET',
				path: '/widget-orders',
				query: { page: '2' },
				delayMs: 150,
				count: 1,
			});
			const original = sb.app.page;
			let late: number[] = [];
			sb.app.page = function (this: typeof sb.app, ...args: Parameters<typeof sb.app.page>) {
				// Page 3 is served while page 2 waits; right after it a sale dated 3 minutes back is listed
				// (settling): it lands among the first 150, and pushes the last item of page 2 onto page 3.
				if (args[3].path === '/widget-orders' && args[3].page === 3 && late.length === 0)
					late = sellInside(1, sb.app.clock.now() - 3 * MINUTE);
				return original.apply(this, args);
			} as typeof sb.app.page;
			let seq: number;
			try {
				seq = await mark(sb);
				expect(idsOf(await node.poll()).sort()).toEqual([...made, ...late].sort());
			} finally {
				sb.app.page = original;
			}
			const pages = await pagesAsked(seq);
			// The pass in flight gave itself away (page 4 repeats the end of page 3), then page after
			// page from page 2.
			expect(pages[0]).toBe(1);
			expect(pages.slice(-4)).toEqual([2, 3, 4, 5]);
			expect(pages.length).toBeGreaterThan(7);
			expect((await node.poll()).returnedNull).toBe(true);
		},
	);

	it(
		`a catch-up emits at most ${POLL_BUDGET} records a poll, ` +
			`oldest first, each chunk saved; the next poll goes on`,
		async () => {
			const node = widgetTrigger();
			await node.poll();
			await sb.advanceClock(10 * MINUTE);
			const made = await spreadSales(POLL_BUDGET + 300, 6, 60);
			const first = await node.poll();
			expect(idsOf(first)).toEqual(made.slice(0, POLL_BUDGET));
			expect(first.changed).toBe(true);
			node.restart(); // what n8n saved with the first chunk is all the next poll has
			const second = await node.poll();
			expect(idsOf(second)).toEqual(made.slice(POLL_BUDGET));
			expect((await node.poll()).returnedNull).toBe(true);
		},
		60_000,
	);
});
