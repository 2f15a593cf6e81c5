import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

import { SandboxClient } from '../../harness/sandbox/client';
import { MINUTE } from '../../harness/time';

const EVENT = 1002;

/** The Date header of an answer, as epoch ms (whole seconds). */
const dateOf = (headers: Record<string, string | string[] | undefined>) =>
	Date.parse(String(headers.date));

async function clockNow(sb: SandboxClient): Promise<number> {
	return Date.parse((await sb.admin('GET', '/state')).body.now);
}

/** A paid API order on EVENT; its id. */
async function paidOrder(sb: SandboxClient): Promise<number> {
	const place = await sb.freePlace(EVENT);
	const created = await sb.send('POST', '/orders', {
		eventPoint: String(EVENT),
		places: [place.id],
		priceCategory: place.priceCategory,
	});
	expect(created.status).toBe(201);
	expect(
		(await sb.send('PUT', `/orders/${created.body.id}/status`, { toStatus: 'paid' })).status,
	).toBe(200);
	return created.body.id;
}

const eventOrderIds = async (sb: SandboxClient) =>
	(await sb.getAll(`/event-points/${EVENT}/orders`)).map((o: any) => o.id as number);

describe('sandbox quirks: time and lists', () => {
	let sb: SandboxClient;

	beforeAll(async () => {
		sb = await SandboxClient.start({ events: 6, placesPerEvent: 120, envelope: 'array' });
	});
	afterEach(async () => {
		await sb.setQuirks({});
		await sb.clearOtherOrigin();
	});
	afterAll(() => sb.stop());

	describe('Date header', () => {
		it('carries the sandbox clock on every answer, and moves with it', async () => {
			const list = await sb.get('/event-points', { query: { itemsPerPage: 1 } });
			expect(Math.abs(dateOf(list.headers) - (await clockNow(sb)))).toBeLessThan(2000);

			await sb.advanceClock(3 * 24 * 60 * MINUTE);
			sb.forgetTokens();
			const token = await sb.api('POST', '/token', { body: { apiKey: sb.keys.partner } });
			const refused = await sb.api('GET', '/cities');
			const listed = await sb.get('/event-points', { query: { itemsPerPage: 1 } });
			const now = await clockNow(sb);
			for (const res of [token, refused, listed]) {
				expect(Math.abs(dateOf(res.headers) - now)).toBeLessThan(2000);
				expect(dateOf(res.headers) - Date.now()).toBeGreaterThan(3 * 24 * 60 * MINUTE - 5000);
			}
			expect(refused.status).toBe(401);
		});

		it('an injected 429 dates its Retry-After in the same time as Date', async () => {
			await sb.admin('POST', '/faults', {
				kind: 'status',
				status: 429,
				retryAfter: { date: 5 },
				path: '/genres',
			});
			const res = await sb.get('/genres');
			expect(res.status).toBe(429);
			const ahead = Date.parse(String(res.headers['retry-after'])) - dateOf(res.headers);
			expect(ahead).toBeGreaterThanOrEqual(4000);
			expect(ahead).toBeLessThanOrEqual(6000);
		});
	});

	describe('clock-skew', () => {
		it('puts Date and stamped times ahead of real time, and back when changed', async () => {
			const before = (await clockNow(sb)) - Date.now();
			await sb.setQuirks('clock-skew=+10m');
			const list = await sb.get('/widget-orders', { query: { itemsPerPage: 1 } });
			expect(dateOf(list.headers) - Date.now() - before).toBeGreaterThan(10 * MINUTE - 3000);
			expect(dateOf(list.headers) - Date.now() - before).toBeLessThan(10 * MINUTE + 3000);

			const id = await paidOrder(sb);
			const order = await sb.get(`/orders/${id}`);
			expect(Math.abs(Date.parse(order.body.payAt) - dateOf(order.headers))).toBeLessThan(2000);
			const sale = await sb.admin('POST', '/widget-orders', {});
			expect(Math.abs(Date.parse(sale.body.payAt) - dateOf(order.headers))).toBeLessThan(3000);

			await sb.setQuirks('clock-skew=-10m');
			const behind = await sb.get('/cities');
			expect(dateOf(behind.headers) - Date.now() - before).toBeLessThan(-10 * MINUTE + 3000);
			await sb.setQuirks({});
			expect(Math.abs((await clockNow(sb)) - Date.now() - before)).toBeLessThan(2000);
		});
	});

	describe('ignore-sort', () => {
		const times = (list: any[], field: string) => list.map((r) => Date.parse(r[field]));
		const descending = (t: number[]) => t.every((v, i) => i === 0 || v <= t[i - 1]);

		it('lists newest first whatever order[...] asks', async () => {
			await sb.admin('POST', '/widget-orders', {});
			const asked = { 'order[payAt]': 'asc' };
			const honoured = times(await sb.getAll('/widget-orders', { query: asked }), 'payAt');
			expect(descending(honoured)).toBe(false);

			await sb.setQuirks({ ignoreSort: true });
			const sales = times(await sb.getAll('/widget-orders', { query: asked }), 'payAt');
			expect(sales.length).toBeGreaterThan(2);
			expect(descending(sales)).toBe(true);
			expect(descending(times(await sb.getAll('/widget-orders'), 'payAt'))).toBe(true);
			expect(
				descending(
					times(
						await sb.getAll('/widget-orders-refunds', { query: { 'order[refundedAt]': 'asc' } }),
						'refundedAt',
					),
				),
			).toBe(true);
			const events = times(
				await sb.getAll('/event-points', { query: { 'order[dateStarted]': 'asc' } }),
				'dateStarted',
			);
			expect(events.length).toBeGreaterThan(2);
			expect(descending(events)).toBe(true);
			expect(events[0]).toBeGreaterThan(events[events.length - 1]);
		});

		it('event orders: the later payment comes first', async () => {
			const first = await paidOrder(sb);
			await sb.advanceClock(MINUTE);
			const second = await paidOrder(sb);
			await sb.setQuirks('ignore-sort');
			const ids = (
				await sb.getAll(`/event-points/${EVENT}/orders`, { query: { 'order[payAt]': 'asc' } })
			).map((o: any) => o.id);
			expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
		});
	});

	describe('late-visible', () => {
		it('hides a paid order from the list until payAt + 8 min; GET sees it at once', async () => {
			await sb.setQuirks('late-visible=8m');
			const id = await paidOrder(sb);
			expect(await eventOrderIds(sb)).not.toContain(id);
			expect((await sb.get(`/orders/${id}`)).body.status).toBe('paid');
			await sb.advanceClock(7 * MINUTE);
			expect(await eventOrderIds(sb)).not.toContain(id);
			await sb.advanceClock(MINUTE + 1000);
			expect(await eventOrderIds(sb)).toContain(id);
		});

		it('hides widget sales and refunds the same way', async () => {
			await sb.setQuirks({ lateVisibleMs: 8 * MINUTE });
			const sale = (await sb.admin('POST', '/widget-orders', {})).body;
			const saleIds = async () => (await sb.getAll('/widget-orders')).map((o: any) => o.id);
			const refundIds = async () =>
				(await sb.getAll('/widget-orders-refunds')).map((r: any) => r.id);
			expect(await saleIds()).not.toContain(sale.id);
			await sb.advanceClock(8 * MINUTE);
			expect(await saleIds()).toContain(sale.id);
			const refund = (await sb.admin('POST', `/widget-orders/${sale.id}/refund`)).body;
			expect(await refundIds()).not.toContain(refund.id);
			await sb.advanceClock(8 * MINUTE);
			expect(await refundIds()).toContain(refund.id);
		});
	});

	describe('future-dated', () => {
		it('stamps a widget sale at a given time, or in 2099 under the quirk', async () => {
			const given = await sb.admin('POST', '/widget-orders', { at: '2099-06-01T12:00:00Z' });
			expect(given.body.payAt).toBe('2099-06-01T12:00:00+00:00');
			await sb.setQuirks('future-dated');
			const stamped = await sb.admin('POST', '/widget-orders', {});
			expect(stamped.body.payAt).toBe('2099-01-01T00:00:00+00:00');
			const listed = (await sb.getAll('/widget-orders')).find((o: any) => o.id === stamped.body.id);
			expect(listed.payAt).toBe('2099-01-01T00:00:00+00:00');
		});
	});

	describe('total-drift', () => {
		it('the reported total changes from page to page', async () => {
			await sb.admin('PUT', '/config', { envelope: 'hydra' });
			try {
				await sb.setQuirks('total-drift');
				const page = async (n: number) =>
					(await sb.get('/event-points', { query: { itemsPerPage: 2, page: n } })).body[
						'hydra:totalItems'
					];
				expect(await page(2)).toBe((await page(1)) + 1);
			} finally {
				await sb.admin('PUT', '/config', { envelope: 'array' });
			}
		});
	});

	describe('drop-mid-read', () => {
		const page = async (n: number, size: number): Promise<number[]> =>
			(
				await sb.get('/widget-orders', {
					query: { 'order[payAt]': 'asc', page: n, itemsPerPage: size },
				})
			).body.map((o: any) => o.id as number);

		it(
			'records listed just before a page past the first leave the list as it is ' +
				'served: a reader of pages in a row misses the ones that moved back',
			async () => {
				await sb.setQuirks({});
				for (let i = 0; i < 4; i++) await sb.admin('POST', '/widget-orders', {});
				const before = await page(1, 100);
				expect(before.length).toBeGreaterThan(6);
				await sb.setQuirks('drop-mid-read=2,drop-mid-read-count=1');
				const first = await page(1, 3);
				const second = await page(2, 3);
				// The last two of page 1 left, so page 2 starts two places later than it would have.
				expect(first).toEqual(before.slice(0, 3));
				expect(second).toEqual(before.slice(5, 8));
				const shown = (await sb.admin('GET', '/quirks')).body;
				expect(shown.text).toBe('drop-mid-read=2,drop-mid-read-count=1');
				expect(shown.recordsLeft['/widget-orders']).toEqual(before.slice(1, 3));
				// One drop only (the count), and the records stay gone once the quirk is off.
				expect(await page(2, 3)).toEqual(before.slice(5, 8));
				await sb.setQuirks({});
				const after = await page(1, 100);
				expect(after).toEqual(before.filter((id) => !before.slice(1, 3).includes(id)));
				// Records 4 and 5, where page 2 began before the drop, are on no page of that reading.
				expect([...first, ...second].filter((id) => before.slice(3, 5).includes(id))).toEqual([]);
				expect(after).toEqual(expect.arrayContaining(before.slice(3, 5)));
			},
		);

		it('leaves page 1 and the other lists alone; refuses a count below one', async () => {
			await sb.setQuirks('drop-mid-read=5');
			const events = async () =>
				(await sb.get('/event-points', { query: { page: 2, itemsPerPage: 2 } })).body.length;
			const listed = (await sb.getAll('/event-points')).length;
			expect(await events()).toBe(2);
			expect((await sb.getAll('/event-points')).length).toBe(listed);
			const one = await page(1, 100);
			expect(await page(1, 100)).toEqual(one);
			const bad = await sb.admin('PUT', '/quirks', 'drop-mid-read=0');
			expect(bad.status).toBe(400);
			expect(bad.body.message).toMatch(/quirk "drop-mid-read" needs a whole number from 1/);
		});
	});

	describe('setting quirks', () => {
		it(
			'PUT replaces, PATCH merges, GET shows both ' + 'forms; a bad quirk answers 400 naming it',
			async () => {
				await sb.setQuirks('ignore-sort,late-visible=8m');
				const patched = await sb.patchQuirks({ lateVisibleMs: null, clockSkewMs: -30_000 });
				expect(patched.quirks).toEqual({ ignoreSort: true, clockSkewMs: -30_000 });
				const shown = await sb.admin('GET', '/quirks');
				expect(shown.body.text).toBe('ignore-sort,clock-skew=-30s');
				expect((await sb.admin('GET', '/state')).body.quirks).toBe('ignore-sort,clock-skew=-30s');
				const bad = await sb.admin('PUT', '/quirks', 'ignore-sort,late-visible=soon');
				expect(bad.status).toBe(400);
				expect(bad.body.message).toMatch(/quirk "late-visible"/);
				const unknown = await sb.admin('PUT', '/quirks', { ignoreSorting: true });
				expect(unknown.status).toBe(400);
				expect((await sb.admin('GET', '/quirks')).body.text).toBe('ignore-sort,clock-skew=-30s');
			},
		);

		it('at start: SandboxInit.quirks in either form', async () => {
			const started = await SandboxClient.start({
				events: 3,
				quirks: 'redirect=cross-origin,mangle-write-answers=truncated',
			});
			try {
				const { body } = await started.admin('GET', '/quirks');
				expect(body.quirks).toEqual({ redirect: 'cross-origin', mangleWriteAnswers: 'truncated' });
				expect(body.otherOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
				expect((await started.get('/cities')).status).toBe(302);
			} finally {
				await started.stop();
			}
		});

		it('the CLI refuses a bad quirk by name', async () => {
			const root = resolve(__dirname, '../..');
			const child = spawn(
				resolve(root, 'node_modules/.bin/tsx'),
				['sandbox/cli.ts', '--port', '0', '--quirks', 'ignore-sort,sideways'],
				{ cwd: root },
			);
			let stderr = '';
			child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
			const code = await new Promise<number | null>((done) => child.once('exit', done));
			expect(code).toBe(2);
			expect(stderr).toMatch(/--quirks: unknown quirk "sideways"/);
		});
	});
});
