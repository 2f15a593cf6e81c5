import { randomUUID } from 'node:crypto';

/**
 * n8n (1.x and 2.x) refuses a poll cron firing more than once a minute ("The polling interval
 * is too short"), checking each Poll Times entry alone. Six entries, each once a minute at its
 * own second, poll every 10 s: the tests wait seconds, not minutes.
 */
export const POLL_EVERY_MS = 10_000;
export const pollTimes = {
	item: [0, 10, 20, 30, 40, 50].map((second) => ({
		mode: 'custom',
		cronExpression: `${second} * * * * *`,
	})),
};

/**
 * The push trigger named 'Push', checking signatures with `credential`, as forwardingWorkflow's
 * trigger.
 */
export function signedPushTrigger(
	webhookId: string,
	credential: { id: string; name: string },
	events: string[],
) {
	return {
		name: 'Push',
		type: 'n8n-nodes-public-events.publicEventsTrigger',
		webhookId,
		parameters: { events, authentication: 'signature' },
		credentials: { publicEventsWebhookApi: credential },
	};
}

/**
 * The poll trigger named 'Poll' on sales and refunds of the widget (`include`), at pollTimes, as
 * forwardingWorkflow's trigger.
 */
export function salesPollTrigger(
	credential: { id: string; name: string },
	include: string[] = ['widgetSales', 'widgetRefunds'],
) {
	return {
		name: 'Poll',
		type: 'n8n-nodes-public-events.publicEventsPollTrigger',
		parameters: { pollTimes, source: 'salesAndRefunds', include },
		credentials: { publicEventsApi: credential },
	};
}

/** Trigger -> HTTP Request POSTing each item to `receiverUrl`. */
export function forwardingWorkflow(
	id: string,
	trigger: { name: string; type: string; parameters: object } & Record<string, unknown>,
	receiverUrl: string,
) {
	return {
		id,
		name: `e2e: ${trigger.name}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: randomUUID(), typeVersion: 1, position: [0, 0], ...trigger },
			{
				id: randomUUID(),
				name: 'Forward',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [240, 0],
				parameters: {
					method: 'POST',
					url: receiverUrl,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					options: {},
				},
			},
		],
		connections: { [trigger.name]: { main: [[{ node: 'Forward', type: 'main', index: 0 }]] } },
	};
}
