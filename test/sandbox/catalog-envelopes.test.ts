import { SandboxClient } from '../../harness/sandbox/client';

const ids = (items: any[]) => items.map((e) => e.id as number);

describe('sandbox list envelopes', () => {
	let sb: SandboxClient;
	let expected: number[];
	beforeAll(async () => {
		sb = await SandboxClient.start({ placesPerEvent: 4, widgetOrders: 0 });
		expected = ids(await sb.getAll('/event-points'));
	});
	afterAll(() => sb.stop());
	afterEach(() => sb.admin('PUT', '/config', { envelope: 'array' }));

	const page = (n: number) => sb.get('/event-points', { query: { page: n, itemsPerPage: 10 } });
	const setEnvelope = async (envelope: string) => {
		const res = await sb.admin('PUT', '/config', { envelope });
		expect(res.status).toBe(200);
		expect(res.body.envelope).toBe(envelope);
	};

	it('serves a plain array by default', async () => {
		expect(expected).toHaveLength(24);
		const res = await page(1);
		expect(Array.isArray(res.body)).toBe(true);
		expect(ids(res.body)).toEqual(expected.slice(0, 10));
	});

	it('refuses an unknown envelope', async () => {
		expect((await sb.admin('PUT', '/config', { envelope: 'xml' })).status).toBe(400);
	});

	it(
		'hydra: hydra:member with @id, hydra:totalItems, ' +
			'hydra:view with hydra:next except on the last page',
		async () => {
			await setEnvelope('hydra');
			const collected: number[] = [];
			for (let n = 1; n <= 3; n++) {
				const { body } = await page(n);
				expect(body['@type']).toBe('hydra:Collection');
				expect(body['hydra:totalItems']).toBe(24);
				expect(body['hydra:member']).toHaveLength(n < 3 ? 10 : 4);
				body['hydra:member'].forEach((m: any) => {
					expect(m['@id']).toBe(`/api/v2/event-points/${m.id}`);
					expect(m['@type']).toBe('EventPoint');
				});
				collected.push(...ids(body['hydra:member']));
				const view = body['hydra:view'];
				expect(view['hydra:last']).toContain('page=3');
				if (n < 3) expect(view['hydra:next']).toContain(`page=${n + 1}`);
				else expect(view).not.toHaveProperty('hydra:next');
				if (n > 1) expect(view['hydra:previous']).toContain(`page=${n - 1}`);
			}
			expect(collected).toEqual(expected);
		},
	);

	it('hydra: following hydra:next walks the collection', async () => {
		await setEnvelope('hydra');
		const token = await sb.token();
		const collected: number[] = [];
		let next: string | undefined = '/api/v2/event-points?itemsPerPage=7';
		let requests = 0;
		while (next && requests++ < 10) {
			const res: { status: number; body: any } = await sb.call('GET', next, { token });
			expect(res.status).toBe(200);
			collected.push(...ids(res.body['hydra:member']));
			next = res.body['hydra:view']['hydra:next'];
		}
		expect(requests).toBe(4);
		expect(collected).toEqual(expected);
	});

	it('member: member, totalItems, view (newer API Platform)', async () => {
		await setEnvelope('member');
		const first = (await page(1)).body;
		expect(first).not.toHaveProperty('hydra:member');
		expect(first.totalItems).toBe(24);
		expect(ids(first.member)).toEqual(expected.slice(0, 10));
		expect(first.member[0]['@id']).toBe(`/api/v2/event-points/${expected[0]}`);
		expect(first.view.next).toContain('page=2');
		const last = (await page(3)).body;
		expect(last.member).toHaveLength(4);
		expect(last.view).not.toHaveProperty('next');
	});

	it('items: { items }', async () => {
		await setEnvelope('items');
		const { body } = await page(2);
		expect(Array.isArray(body)).toBe(false);
		expect(ids(body.items)).toEqual(expected.slice(10, 20));
	});

	it('data: { data, meta.total }', async () => {
		await setEnvelope('data');
		const { body } = await page(3);
		expect(ids(body.data)).toEqual(expected.slice(20));
		expect(body.meta.total).toBe(24);
	});

	it('a single GET carries @id and @type in hydra, and neither in the plain envelope', async () => {
		const plain = await sb.get(`/event-points/${expected[0]}`);
		expect(plain.body).not.toHaveProperty('@id');
		await setEnvelope('hydra');
		const res = await sb.get(`/event-points/${expected[0]}`);
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			'@id': `/api/v2/event-points/${expected[0]}`,
			'@type': 'EventPoint',
			id: expected[0],
		});
	});

	it('wraps reference and widget lists too', async () => {
		await setEnvelope('hydra');
		const countries = await sb.get('/countries');
		expect(countries.body['hydra:totalItems']).toBe(4);
		await setEnvelope('data');
		const widget = await sb.get('/widget-orders');
		expect(widget.body).toEqual({ data: [], meta: expect.objectContaining({ total: 0 }) });
	});
});

describe('sandbox reference lists', () => {
	let sb: SandboxClient;
	beforeAll(
		async () =>
			(sb = await SandboxClient.start({
				events: 6,
				privateEvents: 0,
				archivedEvents: 0,
				placesPerEvent: 4,
				widgetOrders: 0,
			})),
	);
	afterAll(() => sb.stop());

	it.each([
		['/countries', 4],
		['/cities', 8],
		['/venues', 16],
		['/venue-halls', 32],
		['/categories', 5],
		['/genres', 13],
	])('%s paginates (%i records)', async (path, total) => {
		const all = await sb.getAll(path);
		expect(all).toHaveLength(total);
		expect(new Set(ids(all)).size).toBe(total);
		const first = await sb.get(path, { query: { itemsPerPage: 3 } });
		const second = await sb.get(path, { query: { itemsPerPage: 3, page: 2 } });
		expect(ids(first.body)).toEqual(ids(all).slice(0, 3));
		expect(ids(second.body)).toEqual(ids(all).slice(3, 6));
		expect((await sb.get(path, { query: { page: 99 } })).body).toEqual([]);
		expect((await sb.get(path, { query: { itemsPerPage: 101 } })).status).toBe(400);
	});

	it.each([
		['/countries', (r: any) => r.name, 'Germany', 'Deutschland'],
		['/cities', (r: any) => r.name, 'Munich', 'München'],
		['/cities', (r: any) => r.country.name, 'Austria', 'Österreich'],
		['/venues', (r: any) => r.city.name, 'Cologne', 'Köln'],
		['/categories', (r: any) => r.name, 'Exhibition', 'Ausstellung'],
		['/genres', (r: any) => r.name, 'Football', 'Fußball'],
		['/genres', (r: any) => r.category.name, 'Theatre', 'Theater'],
	])('%s names follow X-API-Language (%#)', async (path, name, en, de) => {
		const inEn = (await sb.getAll(path, { lang: 'en' })).map(name);
		const inDe = (await sb.getAll(path, { lang: 'de' })).map(name);
		const inFr = (await sb.getAll(path, { lang: 'fr' })).map(name);
		expect(inEn).toContain(en);
		expect(inEn).not.toContain(de);
		expect(inDe).toContain(de);
		expect(inDe).not.toContain(en);
		expect(inFr).toEqual(inEn);
	});

	it('/promocodes shows only the caller company codes valid now', async () => {
		const partner = await sb.getAll('/promocodes');
		expect(partner.map((p) => p.code).sort()).toEqual(['PARTNER10', 'WINTER20']);
		const now = (await sb.advanceClock(0)).nowMs as number;
		partner.forEach((p) => {
			expect(Date.parse(p.validFrom)).toBeLessThanOrEqual(now);
			expect(Date.parse(p.validTo)).toBeGreaterThan(now);
			expect(typeof p.discountPercent).toBe('number');
		});
		expect((await sb.getAll('/promocodes', { as: 'organiser' })).map((p) => p.code)).toEqual([
			'ORGANISER15',
		]);
		const paged = await sb.get('/promocodes', { query: { itemsPerPage: 1, page: 2 } });
		expect(paged.body).toHaveLength(1);
		expect(paged.body[0].id).toBe(partner[1].id);
	});

	it('/promocodes drops a code once it expires on the sandbox clock', async () => {
		const winter = (await sb.getAll('/promocodes')).find((p) => p.code === 'WINTER20');
		const { nowMs } = await sb.advanceClock(0);
		await sb.advanceClock(Date.parse(winter.validTo) - nowMs + 60_000);
		sb.forgetTokens();
		expect((await sb.getAll('/promocodes')).map((p) => p.code)).toEqual(['PARTNER10']);
	});
});

describe('sandbox widget sales', () => {
	let sb: SandboxClient;
	beforeAll(
		async () =>
			(sb = await SandboxClient.start({
				events: 8,
				privateEvents: 0,
				archivedEvents: 0,
				placesPerEvent: 20,
				widgetOrders: 12,
			})),
	);
	afterAll(() => sb.stop());

	it('lists only the caller company orders and refunds, paginated', async () => {
		const partner = await sb.getAll('/widget-orders');
		const organiser = await sb.getAll('/widget-orders', { as: 'organiser' });
		const state = (await sb.admin('GET', '/state')).body;
		expect(partner.length).toBeGreaterThan(0);
		expect(organiser.length).toBeGreaterThan(0);
		expect(partner.length + organiser.length).toBe(state.widgetOrders);
		const partnerIds = new Set(ids(partner));
		ids(organiser).forEach((id) => expect(partnerIds.has(id)).toBe(false));
		const store = sb.app.store.widgetOrders;
		ids(partner).forEach((id) => expect(store.find((o) => o.id === id)!.companyId).toBe(2));

		const pages = [1, 2, 3].map((n) =>
			sb.get('/widget-orders', { query: { page: n, itemsPerPage: 5 } }),
		);
		const paged = (await Promise.all(pages)).flatMap((r) => ids(r.body));
		expect(paged).toEqual(ids(partner).slice(0, 15));

		const refunds = await sb.getAll('/widget-orders-refunds');
		const orgRefunds = await sb.getAll('/widget-orders-refunds', { as: 'organiser' });
		expect(refunds.length + orgRefunds.length).toBe(state.widgetRefunds);
		refunds.forEach((r) => expect(partnerIds.has(r.order)).toBe(true));
	});

	it('filters payAt[after] by day or date-time', async () => {
		const partner = await sb.getAll('/widget-orders');
		const times = partner.map((o) => Date.parse(o.payAt)).sort((a, b) => a - b);
		const pivot = times[Math.floor(times.length / 2)];
		const byTime = await sb.getAll('/widget-orders', {
			query: { 'payAt[after]': new Date(pivot).toISOString() },
		});
		expect(byTime).toHaveLength(times.filter((t) => t >= pivot).length);
		expect(byTime.length).toBeLessThan(partner.length);
		byTime.forEach((o) => expect(Date.parse(o.payAt)).toBeGreaterThanOrEqual(pivot));

		const dayStr = new Date(pivot).toISOString().slice(0, 10);
		const byDay = await sb.getAll('/widget-orders', { query: { 'payAt[after]': dayStr } });
		expect(byDay).toHaveLength(times.filter((t) => t >= Date.parse(`${dayStr}T00:00:00Z`)).length);

		const bad = await sb.get('/widget-orders', { query: { 'payAt[after]': 'yesterday' } });
		expect(bad.status).toBe(400);
		expect(bad.body.violations[0].propertyPath).toBe('payAt[after]');
	});

	it(
		'shows sales and refunds made through the control ' +
			'surface, and refundedAt[after] finds the new refund',
		async () => {
			const { nowMs } = await sb.advanceClock(0);
			const since = new Date(nowMs - 1000).toISOString();
			const before = await sb.getAll('/widget-orders-refunds', {
				query: { 'refundedAt[after]': since },
			});

			const sale = await sb.admin('POST', '/widget-orders', { company: 'partner', tickets: 2 });
			expect(sale.status).toBe(201);
			expect(sale.body.tickets).toHaveLength(2);
			const saleId = sale.body.id as number;

			expect(ids(await sb.getAll('/widget-orders'))).toContain(saleId);
			expect(ids(await sb.getAll('/widget-orders', { as: 'organiser' }))).not.toContain(saleId);
			const recent = await sb.getAll('/widget-orders', { query: { 'payAt[after]': since } });
			expect(ids(recent)).toContain(saleId);

			const refund = await sb.admin('POST', `/widget-orders/${saleId}/refund`);
			expect(refund.status).toBe(201);
			expect(refund.body.order).toBe(saleId);
			expect((await sb.admin('POST', `/widget-orders/${saleId}/refund`)).status).toBe(409);

			const after = await sb.getAll('/widget-orders-refunds', {
				query: { 'refundedAt[after]': since },
			});
			expect(after).toHaveLength(before.length + 1);
			expect(after.map((r) => r.order)).toContain(saleId);
			after.forEach((r) =>
				expect(Date.parse(r.refundedAt)).toBeGreaterThanOrEqual(Date.parse(since)),
			);
			expect(
				(await sb.getAll('/widget-orders-refunds', { as: 'organiser' })).map((r) => r.order),
			).not.toContain(saleId);

			const refunded = (await sb.getAll('/widget-orders')).find((o) => o.id === saleId);
			expect(refunded.status).toBe('refund');
		},
	);
});

describe('sandbox widget lists: order[payAt] and order[refundedAt]', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start({ widgetOrders: 30, seed: 3 })));
	afterAll(() => sb.stop());

	it.each([
		['/widget-orders', 'payAt'],
		['/widget-orders-refunds', 'refundedAt'],
	])('%s sorts by %s both ways, and by id when no order is given', async (path, field) => {
		const times = (list: any[]) => list.map((r) => Date.parse(r[field]));
		const asc = await sb.getAll(path, { query: { [`order[${field}]`]: 'asc' } });
		const desc = await sb.getAll(path, { query: { [`order[${field}]`]: 'desc' } });
		const plain = await sb.getAll(path);
		expect(asc.length).toBeGreaterThan(1);
		expect(times(asc)).toEqual([...times(asc)].sort((a, b) => a - b));
		expect(times(desc)).toEqual([...times(asc)].reverse());
		expect(plain.map((r) => r.id)).toEqual([...plain.map((r) => r.id)].sort((a, b) => a - b));
	});
});
