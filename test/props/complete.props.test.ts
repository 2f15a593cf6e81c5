/**
 * Fetch Full Order on a widget sale or refund, over generated listings, through n8n-core's engine
 * against the sandbox. The record is looked for in its list (there is no GET by id): newest first
 * from five minutes before the notification's time, WIDGET_PAGES pages a look, looked for again
 * after LISTING_WAITS_MS when not listed yet, WIDGET_READS requests in all. Generated: how many
 * records came after it (0 to past three pages), when the service lists it (at once, only by the
 * second or third look, never), the notification's time against the record's, and whether the
 * notification says "widget" (else GET /orders/{id} answers 404 first and one look follows).
 * Invariants:
 * - bounded: at most WIDGET_READS list requests (and the GET /orders/{id}), at most the waits;
 * - never wrong: a record the item carries is the one the service lists for that order;
 * - never silent: a delivery saying widget whose record is not found is answered 503 and starts
 *   nothing (the sender delivers it again later: a run without the record would carry a sale
 *   with no amount for good); otherwise one run, and an item without it says why in
 *   orderUnavailable;
 * - complete when it can be: a record listed at the first look among the 300 newest is found,
 *   and, when the notification says widget, one listed by the third look among the 100 newest;
 *   one that is never listed, or outside the time window, is not (behind 300 newer it may be:
 *   the list is also read oldest first from the window's start, where it leads; seed 1235732534).
 * The waits are not slept: the sandbox's clock is moved a minute instead, so the listing delays
 * fall well between looks.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { mark, since } from '../../harness/nodes/publicEvents';
import { postSigned, SIGNED, Triggers } from '../../harness/nodes/webhookTrigger';
import { checkProperty } from '../../harness/props/property';
import { SandboxClient } from '../../harness/sandbox/client';
import { onlyEvents } from '../../harness/sandbox/suite';
import { MINUTE } from '../../harness/time';
import {
	LISTING_WAITS_MS,
	WIDGET_READS,
} from '../../nodes/PublicEventsTrigger/webhook/widgetRecord';

/** The sandbox of the case running: a listing wait moves its clock a minute instead of sleeping. */
let sb: SandboxClient;
const waited: number[] = [];
jest.mock('n8n-workflow', () => {
	const actual = jest.requireActual('n8n-workflow');
	const listingWaits = [250, 750];
	return {
		...actual,
		sleep: async (ms: number) => {
			if (!listingWaits.includes(ms)) return await actual.sleep(ms);
			waited.push(ms);
			await sb.advanceClock(MINUTE);
		},
	};
});

interface Case {
	type: 'sale' | 'refund';
	/** Records of the same list newer than it (one second later). */
	after: number;
	/** The look by which the service lists it (the first, second, third, or never). */
	listedBy: 1 | 2 | 3 | 'never';
	/** The notification's time minus the record's. */
	skewMs: number;
	saysWidget: boolean;
	namesRefund: boolean;
}

const arbitrary: fc.Arbitrary<Case> = fc.record({
	type: fc.constantFrom('sale' as const, 'refund' as const),
	after: fc.oneof(
		{ weight: 3, arbitrary: fc.integer({ min: 0, max: 120 }) },
		{ weight: 1, arbitrary: fc.constantFrom(199, 200, 299, 300, 301) },
	),
	listedBy: fc.constantFrom(1 as const, 2 as const, 3 as const, 'never' as const),
	skewMs: fc.constantFrom(-10 * MINUTE, -MINUTE, 0, 4 * MINUTE, 6 * MINUTE, 10 * MINUTE),
	saysWidget: fc.boolean(),
	namesRefund: fc.boolean(),
});

/** How old the records are when the notification comes. */
const AGE = 10 * MINUTE;
/** How long after its time a record is listed, to be listed by look `listedBy` (a minute apart). */
const lateBy = { 1: 0, 2: AGE + MINUTE / 2, 3: AGE + (3 * MINUTE) / 2, never: AGE + 10 * MINUTE };

async function widgetRecords(c: Case, at: number): Promise<IDataObject> {
	const sale = async (when: number) => {
		const res = await sb.admin('POST', '/widget-orders', {
			tickets: 1,
			at: new Date(when).toISOString(),
		});
		expect(res.status).toBe(201);
		return res.body as IDataObject;
	};
	const refund = async (order: IDataObject, when: number) => {
		const res = await sb.admin('POST', `/widget-orders/${String(order.id)}/refund`, {
			at: new Date(when).toISOString(),
		});
		expect(res.status).toBe(201);
		return res.body as IDataObject;
	};
	const sold = c.type === 'sale' ? at : at - 60 * MINUTE;
	const target = await sale(sold);
	for (let i = 0; i < c.after; i++) {
		const other = await sale(sold + 1000);
		if (c.type === 'refund') await refund(other, at + 1000);
	}
	return c.type === 'sale' ? target : await refund(target, at);
}

const triggers = new Triggers(() => sb);

let cases = 0;

test('widget records: found within bounds, never wrong, never silent', async () => {
	await checkProperty(
		'Fetch Full Order finds a widget sale or refund within bounds',
		arbitrary,
		async (c) => {
			sb = await SandboxClient.start(onlyEvents(2, 160 + 160 * Number(c.after > 120)));
			try {
				await holds(c);
			} finally {
				await triggers.closeAll();
				await sb.stop();
			}
		},
		25,
	);
});

/** One case: the records, the notification, and what the item carries against the case. */
async function holds(c: Case): Promise<void> {
	waited.length = 0;
	const at = sb.app.clock.now() - AGE;
	const record = await widgetRecords(c, at);
	const orderId = c.type === 'sale' ? record.id : record.order;
	if (c.listedBy !== 1) await sb.setQuirks({ lateVisibleMs: lateBy[c.listedBy] });
	const trigger = await triggers.start({ ...SIGNED, fetchFullOrder: true });
	const before = await mark(sb);
	const body = JSON.stringify({
		id: `ntf_prop_${++cases}`,
		type: `order.${c.type}`,
		occurredAt: new Date(at + c.skewMs).toISOString(),
		data: {
			orderId,
			eventPointId: record.eventPoint,
			status: c.type === 'sale' ? 'paid' : 'refund',
			...(c.saysWidget ? { source: 'widget' } : {}),
			...(c.type === 'refund' && c.namesRefund ? { refundId: record.id } : {}),
		},
	});
	const { status } = await postSigned(trigger.url, body);
	const reads = (await since(sb, before)).filter((e) => e.method === 'GET');
	await sb.setQuirks({});

	expect(trigger.executions).toHaveLength(status === 200 ? 1 : 0);
	// Asked again later only when the record may yet be listed: a widget record not found.
	expect(status === 200 || (status === 503 && c.saysWidget)).toBe(true);
	const item = status === 200 ? trigger.executions[0][0].json : {};
	const carried = (c.type === 'sale' ? item.order : item.refund) as IDataObject | null | undefined;
	const lists = reads.filter((e) => e.route.startsWith('/widget-orders'));
	expect(lists.length).toBeLessThanOrEqual(WIDGET_READS);
	expect(reads.length - lists.length).toBeLessThanOrEqual(c.saysWidget ? 0 : 1);
	expect(waited.length).toBeLessThanOrEqual(LISTING_WAITS_MS.length);
	if (carried) {
		const path = c.type === 'sale' ? '/widget-orders' : '/widget-orders-refunds';
		const listed = (await sb.getAll(path)).find((r) => r.id === record.id);
		expect(carried).toEqual(listed);
		if (c.type === 'sale') expect(item.orderUnavailable).toBeNull();
	} else if (status === 200) {
		expect(item.orderUnavailable).toEqual(expect.stringMatching(/\S/));
		expect(item.order).toBeNull();
	}

	const inWindow = c.skewMs <= 5 * MINUTE;
	const mustFind =
		inWindow &&
		((c.listedBy === 1 && c.after < 300) ||
			(c.saysWidget && c.listedBy !== 'never' && c.after < 100));
	const cannotFind = !inWindow || c.listedBy === 'never' || (!c.saysWidget && c.listedBy !== 1);
	if (mustFind) expect(carried).not.toBeNull();
	if (cannotFind) expect(carried ?? null).toBeNull();
}
