import { readFileSync } from 'node:fs';

import { SHOP_HEADER } from '../../../scripts/demo/shop';
import { RUSH_SHOP_KEY, type ServiceAccess } from './cluster';
import { SHOP_EXAMPLE, type ShopBuild, type ShopWorkflow } from './shop';

const NODE = 'n8n-nodes-public-events.publicEvents';

/**
 * The package's shop: examples/shop-checkout.json as shipped, its Public Events credential
 * pointed at `credential` and its Webhook's at the cluster's shop key (what a user sets after
 * importing it); buyers send that key.
 */
export function shippedBuild(
	credential: { id: string; name: string },
	access: ServiceAccess,
): ShopBuild {
	const example = JSON.parse(readFileSync(SHOP_EXAMPLE, 'utf8')) as ShopWorkflow;
	const webhook = example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	if (!webhook) throw new Error('the shop example has no Webhook node');
	return {
		label: 'package (Hold Best Available)',
		path: (webhook.parameters as { path: string }).path,
		headers: { [SHOP_HEADER]: access.shopKey },
		workflow: {
			active: false,
			settings: { executionOrder: 'v1' },
			...example,
			nodes: example.nodes.map((node) =>
				node.type === NODE
					? { ...node, credentials: { publicEventsApi: credential } }
					: node === webhook
						? { ...node, credentials: { httpHeaderAuth: RUSH_SHOP_KEY } }
						: node,
			),
		},
	};
}
