/**
 * What the editor suite imports into n8n: credentials pointing at the sandbox (one right, one
 * with a wrong key) and one workflow holding the package's three nodes.
 */
import { randomUUID } from 'node:crypto';

import { apiCredential, PACKAGE_NAME } from '../../../scripts/n8n/instance';
import { eventLabel } from '../../../nodes/shared/methods/loadOptions';
import type { SandboxClient } from '../../sandbox/client';

export const API_CREDENTIAL = { id: 'PeE2eCredEditor1', name: 'Public Events sandbox' };
export const WRONG_CREDENTIAL = { id: 'PeE2eCredEditor2', name: 'Public Events wrong key' };
export const HOOK_CREDENTIAL = { id: 'PeE2eCredEditor3', name: 'Public Events webhook secret' };
export const WORKFLOW_ID = 'PeE2eWfEditor001';
export const WRONG_KEY = 'pe_wrong_key_e2e_editor_7c1d93a0';
export const WEBHOOK_SECRET = 'whsec_e2e_editor_3f9a61c2';

export const NODES = {
	action: 'Create Order',
	push: 'Public Events Trigger',
	poll: 'Public Events Poll Trigger',
	payment: 'Report Payment',
} as const;

/**
 * The order the action node is filled in with: an event and a free place of it, labelled as their
 * lists show them.
 */
export interface OrderChoice {
	eventId: string;
	eventLabel: string;
	placeId: string;
	placeLabel: string;
	priceCategoryId: string;
}

/** The soonest event with a free place: first in the event list. */
export async function chooseOrder(sandbox: SandboxClient): Promise<OrderChoice> {
	const events = (await sandbox.getAll('/event-points', {
		query: { 'order[dateStarted]': 'asc' },
	})) as any[];
	for (const event of events) {
		const place = ((await sandbox.getAll(`/event-points/${event.id}/places`)) as any[]).find(
			(p) => p.availableCount > 0,
		);
		if (!place) continue;
		return {
			eventId: String(event.id),
			eventLabel: eventLabel(event),
			placeId: String(place.id),
			placeLabel: [
				place.sectorName,
				`Row ${place.rowName}`,
				`Place ${place.placeName}`,
				'available',
			].join(' · '),
			priceCategoryId: String(place.priceCategories[0].id),
		};
	}
	throw new Error('no sandbox event has a free place');
}

export function credentials(baseUrl: string, apiKey: string) {
	return [
		apiCredential(API_CREDENTIAL, baseUrl, apiKey),
		apiCredential(WRONG_CREDENTIAL, baseUrl, WRONG_KEY, 'production'),
		{ ...HOOK_CREDENTIAL, type: 'publicEventsWebhookApi', data: { secret: WEBHOOK_SECRET } },
	];
}

/**
 * Push trigger (its webhook path is `webhookId`) and poll trigger both feed Order > Create, filled
 * in as a user would, then Change Status > Paid.
 */
export function editorWorkflow(order: OrderChoice, webhookId: string) {
	const node = (name: string, type: string, position: [number, number], rest: object) => ({
		id: randomUUID(),
		name,
		type: `${PACKAGE_NAME}.${type}`,
		typeVersion: 1,
		position,
		...rest,
	});
	return {
		id: WORKFLOW_ID,
		name: 'Sell a ticket (editor check)',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node(NODES.push, 'publicEventsTrigger', [0, 0], {
				webhookId,
				parameters: { authentication: 'headerToken' },
				credentials: { publicEventsWebhookApi: HOOK_CREDENTIAL },
			}),
			node(NODES.poll, 'publicEventsPollTrigger', [0, 260], {
				parameters: { eventScope: 'chosen', eventIds: [order.eventId] },
				credentials: { publicEventsApi: API_CREDENTIAL },
			}),
			node(NODES.action, 'publicEvents', [320, 130], {
				parameters: {
					resource: 'order',
					operation: 'create',
					eventId: {
						__rl: true,
						mode: 'list',
						value: order.eventId,
						cachedResultName: order.eventLabel,
					},
					places: {
						__rl: true,
						mode: 'list',
						value: order.placeId,
						cachedResultName: order.placeLabel,
					},
					priceCategory: order.priceCategoryId,
				},
				credentials: { publicEventsApi: API_CREDENTIAL },
			}),
			node(NODES.payment, 'publicEvents', [640, 130], {
				parameters: {
					resource: 'order',
					operation: 'changeStatus',
					orderId: '={{ $json.id }}',
					toStatus: 'paid',
				},
				credentials: { publicEventsApi: API_CREDENTIAL },
			}),
		],
		connections: {
			[NODES.push]: { main: [[{ node: NODES.action, type: 'main', index: 0 }]] },
			[NODES.poll]: { main: [[{ node: NODES.action, type: 'main', index: 0 }]] },
			[NODES.action]: { main: [[{ node: NODES.payment, type: 'main', index: 0 }]] },
		},
	};
}
