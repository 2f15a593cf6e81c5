import { FIRST_RETRY } from '../../../harness/sandbox/push';
import { postSigned, SIGNED, triggerSuite } from '../../../harness/nodes/webhookTrigger';

/**
 * Invariant: every genuine sale starts a run; Fetch Full Order answers 503 only for a record a
 * later read may find (docs/triggers.md), so the sender's retry carries it.
 *
 * Found by an outside review (no attacker needed: a ticket rush): a widget sale S is paid after
 * 300 other widget sales in the 5 minutes before it. Its first delivery cannot be answered in time
 * (n8n restarting, the API's 5xx for a minute); by the retry another 100 widget sales came. The
 * lookup reads the newest page (S is the 101st) and 3 pages oldest first from S's time minus 5
 * minutes (S is the 301st): not found. It was answered 503, and every later retry read the same
 * window (anchored on the notification's occurredAt) with more sales after S, until the sender
 * gave up. A record behind more than the bounds now starts its run at once, saying so.
 */
const { sb, triggers } = triggerSuite(
	{ events: 10, placesPerEvent: 60, push: { retryBaseMs: FIRST_RETRY, maxAttempts: 5 } },
	async (sandbox) => await sandbox.setQuirks({}),
);

it('a widget sale in a rush (300 before, 100 after) is started by one of its retries', async () => {
	const trigger = await triggers.start({ ...SIGNED, fetchFullOrder: true, events: ['sale'] });
	const now = (await sb().advanceClock(0)).nowMs as number;
	const iso = (ms: number) => new Date(ms).toISOString();
	const saleAt = now - 60_000;
	// 300 widget sales in the 4 minutes before S.
	for (let i = 0; i < 300; i++)
		expect(
			(await sb().admin('POST', '/widget-orders', { at: iso(saleAt - 240_000 + i * 800) })).status,
		).toBe(201);
	const sale = (await sb().admin('POST', '/widget-orders', { at: iso(saleAt) })).body;
	for (let i = 1; i <= 100; i++)
		expect((await sb().admin('POST', '/widget-orders', { at: iso(saleAt + i * 500) })).status).toBe(
			201,
		);

	// The sandbox's notification of S, as its notifier writes it.
	const body = JSON.stringify({
		id: 'ntf_rush_S',
		type: 'order.sale',
		occurredAt: iso(saleAt),
		data: { orderId: sale.id, eventPointId: sale.eventPoint, status: 'paid', source: 'widget' },
	});
	const answers: number[] = [];
	for (let attempt = 0; attempt < 4; attempt++) {
		answers.push((await postSigned(trigger.url, body)).status);
		// More sales between retries, as in a rush.
		for (let i = 0; i < 20; i++) await sb().admin('POST', '/widget-orders', {});
	}
	const listed = (await sb().getAll('/widget-orders')).some((o) => o.id === sale.id);
	expect(listed).toBe(true);
	expect(trigger.executions.length).toBe(1);
}, 120_000);
