import { randomUUID } from 'node:crypto';

/** Trigger -> HTTP Request POSTing each item to `receiverUrl`. */
export function forwardingWorkflow(id: string, trigger: { name: string; type: string; parameters: object } & Record<string, unknown>, receiverUrl: string) {
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
				parameters: { method: 'POST', url: receiverUrl, sendBody: true, specifyBody: 'json', jsonBody: '={{ JSON.stringify($json) }}', options: {} },
			},
		],
		connections: { [trigger.name]: { main: [[{ node: 'Forward', type: 'main', index: 0 }]] } },
	};
}
