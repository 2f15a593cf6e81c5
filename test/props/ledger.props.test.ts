/**
 * The partner's ledger, at the destination. Invariant: for any mix of widget and API sales, partial
 * and whole refunds of both, widget and API orders of one number, widget orders listed among an
 * event's orders too, totals as plain numbers, refunded tickets with or without a refund time;
 * pushes dropped, doubled and reordered; polls with restarts; reconciles at any moment, some of
 * them fed a list answered empty or failing; after the final reconcile the table (a Data Table
 * upserted by `key`) equals the API's ledger row by row and in its totals, and Event > Get Sales
 * Summary equals the table's sums for each event.
 *
 * The API's ledger is read from the sandbox's store (harness/sandbox/ledger.ts), not through the
 * nodes. Push: the sandbox's notifications, recorded, then delivered (signed) to the Public Events
 * Trigger in a generated order, some never, some twice.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PollSession, type WebhookTrigger } from '../../harness/engine';
import { credentialFor, runPublicEvents } from '../../harness/nodes/publicEvents';
import { PublicEventsPollTrigger } from '../../harness/nodes/pollTrigger';
import { postSigned, Triggers } from '../../harness/nodes/webhookTrigger';
import { checkProperty } from '../../harness/props/property';
import { Receiver } from '../../harness/net/receiver';
import { SandboxClient } from '../../harness/sandbox/client';
import { apiLedger, ledgerMismatches } from '../../harness/sandbox/ledger';
import { quiet, subscribe } from '../../harness/sandbox/push';
import { onlyEvents } from '../../harness/sandbox/suite';
import { MINUTE } from '../../harness/time';

type Fault = 'none' | 'emptyRefunds' | 'emptyOrders' | 'failing';
type Step =
	| { kind: 'widgetSale'; event: number; tickets: number }
	| { kind: 'widgetRefund'; pick: number; tickets: number }
	| { kind: 'apiSale'; event: number; tickets: number }
	| { kind: 'apiTicketRefund'; pick: number; ticket: number }
	| { kind: 'apiRefund'; pick: number }
	| { kind: 'poll'; restart: boolean; fault: Fault }
	| { kind: 'deliver'; pick: number; copies: number }
	| { kind: 'reconcile'; fault: Fault };

const fault = fc.constantFrom<Fault>('none', 'none', 'emptyRefunds', 'emptyOrders', 'failing');
const step: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('widgetSale' as const),
			event: fc.nat(),
			tickets: fc.integer({ min: 1, max: 3 }),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('widgetRefund' as const),
			pick: fc.nat(),
			tickets: fc.integer({ min: 1, max: 3 }),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('apiSale' as const),
			event: fc.nat(),
			tickets: fc.integer({ min: 1, max: 3 }),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('apiTicketRefund' as const),
			pick: fc.nat(),
			ticket: fc.nat(),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('apiRefund' as const), pick: fc.nat() }) },
	{
		weight: 3,
		arbitrary: fc.record({ kind: fc.constant('poll' as const), restart: fc.boolean(), fault }),
	},
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('deliver' as const),
			pick: fc.nat(),
			copies: fc.integer({ min: 1, max: 2 }),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('reconcile' as const), fault }) },
);
const scenario = fc.record({
	sharedNumbers: fc.boolean(),
	widgetInEventLists: fc.boolean(),
	plainTotals: fc.boolean(),
	ticketTimes: fc.boolean(),
	steps: fc.array(step, { minLength: 4, maxLength: 24 }),
});

let sb: SandboxClient;
let receiver: Receiver;
let events: string[];
const triggers = new Triggers(() => sb);

beforeAll(async () => {
	receiver = await Receiver.start();
});
afterAll(async () => {
	await triggers.closeAll();
	await receiver.close();
});

type Table = Map<string, IDataObject>;
/** A Data Table upsert by key: the row's columns overwrite, its own id stays. */
function upsert(table: Table, rows: IDataObject[]) {
	for (const row of rows) {
		const key = String(row.key);
		table.set(key, { ...(table.get(key) ?? { id: table.size + 1 }), ...row });
	}
}

const FAULT_RULES: Record<Exclude<Fault, 'none'>, IDataObject> = {
	emptyRefunds: { kind: 'status', status: 200, body: [], path: '/widget-orders-refunds' },
	emptyOrders: { kind: 'status', status: 200, body: [], path: '/event-points/{id}/orders' },
	failing: { kind: 'status', status: 503, path: '/widget-orders', count: 3 },
};
const withFault = async <T>(which: Fault, run: () => Promise<T>): Promise<T> => {
	if (which !== 'none') await sb.admin('POST', '/faults', FAULT_RULES[which]);
	try {
		return await run();
	} finally {
		await sb.admin('DELETE', '/faults');
	}
};

async function reconcile(table: Table): Promise<{ rows: IDataObject[]; error?: Error }> {
	const { items, error } = await runPublicEvents(
		credentialFor(sb).store,
		{
			resource: 'ledger',
			operation: 'reconcile',
			lookBackDays: 2,
			options: { maxRetries: 1, maxRetryWait: 0 },
		} as INodeParameters,
		{ inputItems: table.size > 0 ? [...table.values()] : [{}] },
	);
	return { rows: items.map((item) => item.json), error: error as Error | undefined };
}

/** The money of each event and channel in cents, from rows with `amount`. */
function sums(rows: IDataObject[]): Record<string, number> {
	const out: Record<string, number> = {};
	for (const row of rows) {
		const key = `${String(row.eventPointId)} ${String(row.channel)}`;
		out[key] = (out[key] ?? 0) + Math.round(Number(row.amount) * 100);
	}
	return out;
}

async function summarySums(): Promise<Record<string, number>> {
	const out: Record<string, number> = {};
	for (const event of events) {
		const { items, error } = await runPublicEvents(credentialFor(sb).store, {
			resource: 'event',
			operation: 'getSalesSummary',
			eventId: { __rl: true, mode: 'id', value: event },
			options: { freePlaces: false },
		} as INodeParameters);
		if (error) throw error;
		for (const channel of items[0].json.byChannel as IDataObject[])
			out[`${event} ${String(channel.channel)}`] =
				(out[`${event} ${String(channel.channel)}`] ?? 0) + Math.round(Number(channel.net) * 100);
	}
	return Object.fromEntries(Object.entries(out).filter(([, cents]) => cents !== 0));
}

async function runCase(input: Scenario) {
	// A sandbox of its own: the API's ledger is this case's.
	sb = await SandboxClient.start(onlyEvents(2, 400));
	events = (await sb.getAll('/event-points')).map((e) => String(e.id));
	await subscribe(sb, { url: receiver.url, company: 'partner' });
	if (!input.ticketTimes) {
		const serialize = sb.app.serialize;
		const ticket = serialize.ticket.bind(serialize);
		serialize.ticket = (t, event) => ({ ...ticket(t, event), refundedAt: undefined });
	}
	await sb.setQuirks(
		[
			input.sharedNumbers && 'shared-order-numbers',
			input.widgetInEventLists && 'widget-in-event-lists',
			input.plainTotals && 'plain-totals',
		]
			.filter(Boolean)
			.join(','),
	);
	receiver.requests.length = 0;
	const trigger: WebhookTrigger = await triggers.start({
		events: ['sale', 'refund'],
		authentication: 'signature',
		fetchFullOrder: true,
		options: { output: 'rows' },
	});
	const poll = new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: { options: { output: 'rows', maxRetries: 0 } },
		credentials: credentialFor(sb).store,
	});
	expect((await poll.poll()).error).toBeUndefined();
	const table: Table = new Map();
	const widget: Array<{ id: number }> = [];
	const api: Array<{ id: number; tickets: number[] }> = [];
	let delivered = 0;
	for (const s of input.steps) {
		await sb.advanceClock(MINUTE);
		if (s.kind === 'widgetSale') {
			const res = await sb.admin('POST', '/widget-orders', {
				company: 'partner',
				eventPoint: events[s.event % events.length],
				tickets: s.tickets,
			});
			if (res.status === 201) widget.push(res.body);
		} else if (s.kind === 'widgetRefund' && widget.length > 0) {
			// One refunded whole answers 409 and changes nothing.
			await sb.admin('POST', `/widget-orders/${widget[s.pick % widget.length].id}/refund`, {
				tickets: s.tickets,
			});
		} else if (s.kind === 'apiSale') {
			const event = events[s.event % events.length];
			const places = await sb.freePlaces(Number(event), s.tickets);
			const made = await sb.send('POST', '/orders', {
				eventPoint: event,
				places: places.ids,
				priceCategory: places.priceCategory,
			});
			const paid = await sb.send('PUT', `/orders/${made.body.id}/status`, { toStatus: 'paid' });
			api.push({ id: paid.body.id, tickets: paid.body.tickets.map((t: any) => t.ticketId) });
		} else if (s.kind === 'apiTicketRefund' && api.length > 0) {
			const order = api[s.pick % api.length];
			const ticket = order.tickets[s.ticket % order.tickets.length];
			await sb.send('PUT', `/orders/${order.id}/tickets/${ticket}/status`, { toStatus: 'refund' });
		} else if (s.kind === 'apiRefund' && api.length > 0) {
			await sb.send('PUT', `/orders/${api[s.pick % api.length].id}/status`, {
				toStatus: 'refund',
			});
		} else if (s.kind === 'poll') {
			if (s.restart) poll.restart();
			const { items } = await withFault(s.fault, () => poll.poll());
			upsert(
				table,
				items.map((item) => item.json),
			);
		} else if (s.kind === 'deliver') {
			await quiet(sb);
			const sent = receiver.requests.map((r) => r.raw);
			if (sent.length === 0) continue;
			// Any notification, in any order; those never picked are dropped.
			const body = sent[(delivered + s.pick) % sent.length];
			delivered++;
			for (let copy = 0; copy < s.copies; copy++) {
				const before = trigger.calls.length;
				await postSigned(trigger.url, body);
				const rows = trigger.calls.slice(before).flatMap((call) => call.workflowData?.[0] ?? []);
				upsert(
					table,
					rows.map((item) => item.json).filter((row) => row.orderUnavailable === undefined),
				);
			}
		} else if (s.kind === 'reconcile') {
			const { rows, error } = await withFault(s.fault, () => reconcile(table));
			if (s.fault === 'failing') expect(error).toBeDefined();
			upsert(table, rows);
		}
	}
	const final = await reconcile(table);
	expect(final.error).toBeUndefined();
	upsert(table, final.rows);
	const truth = apiLedger(sb);
	const rows = [...table.values()];
	const untimedApiRefunds = !input.ticketTimes;
	expect(ledgerMismatches(rows, truth, truth.keys(), { untimedApiRefunds })).toEqual([]);
	expect((await reconcile(table)).rows).toEqual([]);
	expect(await summarySums()).toEqual(
		Object.fromEntries(Object.entries(sums(rows)).filter(([, cents]) => cents !== 0)),
	);
	await triggers.closeAll();
	await sb.stop();
}

type Scenario = {
	sharedNumbers: boolean;
	widgetInEventLists: boolean;
	plainTotals: boolean;
	/** Whether refunded tickets carry their refund time (the spec shows none). */
	ticketTimes: boolean;
	steps: Step[];
};

it('after the last reconcile the table is the API ledger, row by row and in total', async () => {
	await checkProperty('ledger at the destination', scenario, runCase, 10);
}, 600_000);
