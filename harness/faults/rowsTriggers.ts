import { PublicEventsPollTrigger } from '../nodes/pollTrigger';
import { PublicEventsTrigger } from '../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import { PollSession, WebhookTrigger } from '../engine';
import { credentialFor, mark, since } from '../nodes/publicEvents';
import {
	deliveriesOf,
	reserveOrder,
	SECRET,
	sign,
	subscribe,
	until,
	FIRST_RETRY,
} from '../sandbox/push';
import type { SandboxClient } from '../sandbox/client';
import { post, SIGNED, TRIGGER_TYPE, triggerCredentials } from '../nodes/webhookTrigger';
import { TIMEOUT_S, type Fault, type FaultId } from './matrix';
import {
	attemptsAt,
	errorOf,
	injectFault,
	withOptions,
	withSandbox,
	type Observation,
	type Row,
} from './observe';

/** Delivery bodies a broken sender or proxy could post, signed so that only the body is wrong. */
const BAD_BODIES: Partial<Record<FaultId, { body: string; type: string }>> = {
	malformed: { body: '{"type": "order.sale", "id": ', type: 'application/json' },
	html: {
		body:
			'<html><head><title>502 Bad ' +
			'Gateway</title></head><body><h1>Bad ' +
			'Gateway</h1></body></html>',
		type: 'text/html',
	},
	empty: { body: '', type: 'application/json' },
};

/**
 * A sale pushed by the sandbox to the trigger, whose Fetch Full Order meets the fault. The
 * timeout column is the sender's: the order read outlasts the sandbox's delivery timeout, so the
 * sandbox delivers again while the first execution is still being prepared. An attempt answered
 * otherwise than 2xx is delivered again once the sandbox's clock reaches its retry.
 */
async function webhookCell(sb: SandboxClient, fault: Fault): Promise<Observation> {
	const trigger = await WebhookTrigger.start({
		nodeType: new PublicEventsTrigger(),
		type: TRIGGER_TYPE,
		parameters: { ...SIGNED, fetchFullOrder: true },
		credentials: triggerCredentials(sb),
	});
	try {
		const subscription = await subscribe(sb, {
			url: trigger.url,
			secret: SECRET,
			types: ['order.sale'],
		});
		const { orderId } = await reserveOrder(sb);
		const target = { method: 'GET', path: `/orders/${orderId}` };
		await injectFault(sb, fault, target);
		const before = await mark(sb);
		await sb.send('PUT', `/orders/${orderId}/status`, { toStatus: 'paid' });
		const deliveries = () => deliveriesOf(sb, subscription.id);
		let delivery: { state: string; attempts: Array<{ status?: number }> } | undefined;
		for (let attempts = 1; attempts <= 3; attempts++) {
			[delivery] = await until(
				async () => {
					const list = await deliveries();
					return list[0]?.attempts.length >= attempts ? list : undefined;
				},
				`delivery attempt ${attempts} to be answered`,
				15_000,
			);
			if (delivery?.state === 'delivered') break;
			await sb.advanceClock(FIRST_RETRY * 2 ** (attempts - 1));
		}
		if (delivery?.state !== 'delivered')
			throw new Error('the sale was not delivered in 3 attempts');
		await trigger.waitForCalls(delivery.attempts.length, 10_000);
		const executions = trigger.executions.length;
		const items = trigger.executions.flat().map((item) => item.json);
		const { attempts, refreshed } = attemptsAt(await since(sb, before), target);
		let badBody: { status: number; started: boolean } | undefined;
		const bad = BAD_BODIES[fault.id];
		if (bad) {
			const answer = await post(trigger.url, bad.body, {
				'content-type': bad.type,
				'x-signature': sign(SECRET, bad.body),
			});
			badBody = { status: answer.status, started: trigger.executions.length > executions };
		}
		const order = items[0]?.order as { id?: unknown } | null | undefined;
		return {
			emitted: items.map((item) => String(item.orderId)),
			truth: [String(orderId)],
			attempts,
			refreshed,
			webhook: {
				executions,
				unavailable: (items[0]?.orderUnavailable as string | null | undefined) ?? null,
				fetched: order?.id === undefined ? null : String(order.id),
				delivery: delivery.state,
				deliveryAttempts: delivery.attempts.length,
				answers: delivery.attempts.map((attempt) => attempt.status ?? 0),
				badBody,
			},
		};
	} finally {
		await trigger.close();
	}
}

const SALES = 210;

/** Widget sales made through the control surface, a few at a time; their ids. */
async function sell(sb: SandboxClient, count: number): Promise<string[]> {
	const ids: string[] = [];
	for (let made = 0; made < count; made += 15) {
		const batch = await Promise.all(
			Array.from({ length: Math.min(15, count - made) }, () =>
				sb.admin('POST', '/widget-orders', { tickets: 1 }),
			),
		);
		for (const res of batch)
			if (res.status !== 201) throw new Error(`widget sale: ${res.status} ${res.text}`);
		ids.push(...batch.map((res) => String(res.body.id)));
	}
	return ids;
}

/**
 * Sales since the last poll, over three pages; the fault meets page 2. A poll that fails must
 * leave the state where it was, and the poll after the fault emits what was missed, once.
 */
async function pollCell(sb: SandboxClient, fault: Fault): Promise<Observation> {
	const nodeType = new PublicEventsPollTrigger();
	const parameters = withOptions(fault, nodeType.description, { include: ['widgetSales'] });
	const session = new PollSession({
		nodeType,
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters,
		credentials: credentialFor(sb).store,
	});
	const activation = await session.poll();
	if (activation.error || !activation.returnedNull)
		throw new Error(`activation poll: ${activation.error?.message ?? 'emitted items'}`);
	await sb.advanceClock(60_000);
	const truth = await sell(sb, SALES);
	const target = { method: 'GET', path: '/widget-orders', query: { page: '2' } };
	await injectFault(sb, fault, target);
	const [memory, saved] = [session.staticData, session.saved];
	const before = await mark(sb);
	const first = await session.poll();
	const { attempts, refreshed } = attemptsAt(await since(sb, before), target);
	const stateHeld = session.staticData === memory && session.saved === saved;
	await sb.admin('DELETE', '/faults');
	const second = await session.poll();
	if (second.error) throw new Error(`the poll after the fault failed: ${second.error.message}`);
	return {
		emitted: [...first.items, ...second.items].map((item) => String(item.json.orderId)),
		truth,
		error: errorOf(first.error),
		attempts,
		refreshed,
		stateHeld,
	};
}

export const triggerRows: Row[] = [
	{
		id: 'webhook',
		label: 'webhook receive',
		title:
			'Public Events Trigger: a sale pushed by the sandbox, Fetch ' +
			'Full Order meets the fault (GET /orders/{id}); the timeout ' +
			"is the sender's (the read outlasts it, the sale is delivered " +
			'again); malformed, HTML and empty delivery bodies are posted ' +
			'too',
		run: (fault) =>
			withSandbox(
				{
					events: 3,
					placesPerEvent: 40,
					push: {
						retryBaseMs: FIRST_RETRY,
						maxAttempts: 3,
						timeoutMs: fault.id === 'timeout' ? TIMEOUT_S * 1000 : 10_000,
					},
				},
				(sb) => webhookCell(sb, fault),
			),
	},
	{
		id: 'poll',
		label: 'poll',
		title:
			`Public Events Poll Trigger: ${SALES} new widget sales since the last ` +
			`poll, 3 pages; the fault meets page 2; then a poll with the fault gone`,
		// The trigger's "poll under way" guard is keyed by workflow and node id: the same in every cell
		// here.
		exclusive: true,
		run: (fault) => withSandbox({ events: 4, placesPerEvent: 120 }, (sb) => pollCell(sb, fault)),
	},
];
