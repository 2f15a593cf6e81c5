import { SandboxClient } from '../../harness/sandbox/client';

describe('sandbox: the stand-in CRM the demo points the CRM example at', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start({ events: 1 })));
	afterAll(() => sb.stop());
	afterEach(async () => {
		await sb.admin('DELETE', '/crm/outage');
		await sb.admin('DELETE', '/crm/deals');
	});

	it(
		'upserts by external id: a second write of a deal replaces its properties and is ' +
			'still one deal (times on the sandbox clock); lists oldest first; DELETE forgets',
		async () => {
			const deal = { externalId: '800001', amount: 45, barcodes: ['4006381333931'] };
			const first = await sb.admin('PUT', '/crm/deals/800001', deal);
			expect([first.status, first.body.writes]).toEqual([201, 1]);
			expect((await sb.admin('PUT', '/crm/deals/700002', { externalId: '700002' })).status).toBe(
				201,
			);
			await sb.advanceClock(60_000);
			const again = await sb.admin('PUT', '/crm/deals/800001', { ...deal, status: 'refund' });
			expect([again.status, again.body.writes]).toEqual([200, 2]);

			const listed = (await sb.admin('GET', '/crm/deals')).body as Array<Record<string, any>>;
			expect(listed.map((d) => [d.externalId, d.properties, d.writes])).toEqual([
				['800001', { ...deal, status: 'refund' }, 2],
				['700002', { externalId: '700002' }, 1],
			]);
			expect(
				Date.parse(listed[0].updatedAt) - Date.parse(listed[0].createdAt),
			).toBeGreaterThanOrEqual(60_000);
			expect((await sb.admin('GET', '/crm/deals/700002')).body).toEqual(listed[1]);
			expect((await sb.admin('GET', '/crm/deals/1')).status).toBe(404);

			expect((await sb.admin('DELETE', '/crm/deals')).status).toBe(200);
			expect((await sb.admin('GET', '/crm/deals')).body).toEqual([]);
		},
	);

	it('refuses a body that is not an object, naming it', async () => {
		const res = await sb.admin('PUT', '/crm/deals/1', [1, 2]);
		expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(/^body: /)]);
		expect((await sb.admin('GET', '/crm/deals')).body).toEqual([]);
	});

	it('while down, answers every write with the status set and keeps nothing', async () => {
		expect((await sb.admin('PUT', '/crm/outage', { status: 503 })).status).toBe(200);
		expect((await sb.admin('PUT', '/crm/deals/1', { externalId: '1' })).status).toBe(503);
		expect((await sb.admin('GET', '/crm/deals')).body).toEqual([]);
		expect((await sb.admin('PUT', '/crm/outage', { status: 200 })).status).toBe(400);
		await sb.admin('DELETE', '/crm/outage');
		expect((await sb.admin('PUT', '/crm/deals/1', { externalId: '1' })).status).toBe(201);
	});
});
