import { SandboxClient } from '../../harness/sandbox/client';

describe('sandbox: the stand-in CRM the demo points the CRM example at', () => {
	let sb: SandboxClient;
	beforeAll(async () => (sb = await SandboxClient.start({ events: 1 })));
	afterAll(() => sb.stop());

	it(
		'keeps each posted body as it came, with its time on the sandbox clock ' +
			'(moved a minute between them); lists oldest first; DELETE forgets',
		async () => {
			const deal = { externalId: '800001', amount: 45, barcodes: ['4006381333931'] };
			expect((await sb.admin('POST', '/crm/deals', deal)).status).toBe(201);
			await sb.advanceClock(60_000);
			expect((await sb.admin('POST', '/crm/deals', { externalId: '800002' })).body).toEqual({
				received: 2,
			});

			const listed = (await sb.admin('GET', '/crm/deals')).body as Array<{
				receivedAt: string;
				body: unknown;
			}>;
			expect(listed.map((d) => d.body)).toEqual([deal, { externalId: '800002' }]);
			expect(
				Date.parse(listed[1].receivedAt) - Date.parse(listed[0].receivedAt),
			).toBeGreaterThanOrEqual(60_000);

			expect((await sb.admin('DELETE', '/crm/deals')).status).toBe(200);
			expect((await sb.admin('GET', '/crm/deals')).body).toEqual([]);
		},
	);
});
