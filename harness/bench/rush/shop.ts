import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from '../../../scripts/n8n/instance';
import type { NodeJson } from '../workflows';

/**
 * What every build of the rush's shop shares: a webhook taking `{ eventId, quantity }` and
 * answering through Respond to Webhook nodes, the payment stand-in, and how the nodes connect.
 */
export interface ShopNode extends NodeJson {
	onError?: string;
	alwaysOutputData?: boolean;
}

export interface ShopWorkflow {
	id: string;
	name: string;
	nodes: Array<ShopNode & { id: string; position: number[] }>;
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	>;
}

/** A shop build: its workflow, the webhook path buyers post to and what they send with it. */
export interface ShopBuild {
	label: string;
	path: string;
	/** Headers every checkout carries besides its body: the shipped checkout's key. */
	headers?: Record<string, string>;
	workflow: ShopWorkflow & { active: boolean; settings: object };
}

export const SHOP_EXAMPLE = join(REPO_ROOT, 'examples', 'shop-checkout.json');

export function webhookNode(path: string): ShopNode {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'responseNode', options: {} },
	};
}

/** Respond to Webhook with `status` and the JSON an expression builds. */
export function respondNode(name: string, status: number, body: string): ShopNode {
	return {
		name,
		type: 'n8n-nodes-base.respondToWebhook',
		typeVersion: 1.1,
		parameters: {
			respondWith: 'json',
			responseBody: `={{ JSON.stringify(${body}) }}`,
			options: { responseCode: status },
		},
	};
}

/**
 * The partner's payment step as the shipped example stands it in (a Code node that fails on
 * `failPayment: true`), so the builds compared differ only in how they hold and report.
 */
export function paymentStandIn(): ShopNode {
	const example = JSON.parse(readFileSync(SHOP_EXAMPLE, 'utf8')) as ShopWorkflow;
	const found = example.nodes.find((n) => n.name.startsWith('Take Payment'));
	if (!found) throw new Error('the shop example has no Take Payment node');
	// (its id and position are replaced by the build that takes it)
	return found;
}

/**
 * The Code node both step-by-step builds pick places with: `quantity` free places sharing the
 * cheapest price category that still has that many, first in list order (what a shop written
 * against the place list does); fewer anywhere is a sold-out, thrown to the error output.
 */
export function pickPlacesNode(): ShopNode {
	const code = [
		"const { quantity } = $('Webhook').first().json.body;",
		'const free = $input.all().map((i) => i.json).filter((p) => Number(p.availableCount) > 0);',
		'const groups = new Map();',
		'for (const place of free)',
		'  for (const c of place.priceCategories) {',
		'    const group = groups.get(c.id) ?? { id: c.id, price: Number(c.price.amount), ids: [] };',
		'    group.ids.push(String(place.id));',
		'    groups.set(c.id, group);',
		'  }',
		'const fits = [...groups.values()].filter((g) => g.ids.length >= quantity);',
		'if (fits.length === 0) {',
		'  const most = Math.max(0, ...[...groups.values()].map((g) => g.ids.length));',
		'  throw new Error(`Not enough places: ${quantity} asked, ${most} left at one price`);',
		'}',
		'const best = fits.sort((a, b) => a.price - b.price)[0];',
		'const picked = { places: best.ids.slice(0, quantity), priceCategory: String(best.id) };',
		// one item from many: paired to the webhook's, so later nodes can read it by .item
		'return [{ json: picked, pairedItem: { item: 0 } }];',
	].join('\n');
	return {
		name: 'Pick Places',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode: code },
		onError: 'continueErrorOutput',
	};
}

/**
 * The answers of the step-by-step builds, with the shipped example's status codes; a hold that
 * failed otherwise than sold out (a place taken, the account limit) is an error to the buyer.
 */
export const ANSWERS = {
	sold: respondNode('Respond Tickets', 200, '{ orderId: $json.id, tickets: $json.tickets }'),
	soldOut: respondNode('Respond Sold Out', 409, '{ soldOut: true, message: $json.error }'),
	holdFailed: respondNode(
		'Respond Hold Failed',
		409,
		'{ soldOut: false, message: String($json.error?.message ?? $json.error) }',
	),
	paymentFailed: respondNode('Respond Payment Failed', 402, '{ message: "Payment failed" }'),
};

/** How the step-by-step builds connect: output 1 is a node's error output. */
export const stepByStepEdges = (payment: string): Array<[string, string, number?]> => [
	['Webhook', 'Get Places'],
	['Get Places', 'Pick Places'],
	['Pick Places', 'Create Order'],
	['Pick Places', ANSWERS.soldOut.name, 1],
	['Create Order', payment],
	['Create Order', ANSWERS.holdFailed.name, 1],
	[payment, 'Report Payment'],
	[payment, 'Release Hold', 1],
	['Report Payment', ANSWERS.sold.name],
	['Report Payment', 'Release Hold', 1],
	['Release Hold', ANSWERS.paymentFailed.name],
];

/** `[from, to, output?]` edges into n8n's connections, the nodes laid out left to right. */
export function shopWorkflow(
	id: string,
	name: string,
	nodes: ShopNode[],
	edges: Array<[string, string, number?]>,
): ShopBuild['workflow'] {
	const connections: ShopWorkflow['connections'] = {};
	for (const [from, to, output = 0] of edges) {
		const outputs = (connections[from] ??= { main: [] }).main;
		while (outputs.length <= output) outputs.push([]);
		outputs[output].push({ node: to, type: 'main', index: 0 });
	}
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: nodes.map((node, i) => ({ ...node, id: randomUUID(), position: [i * 220, 0] })),
		connections,
	};
}
