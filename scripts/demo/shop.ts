/**
 * The demo's shop: the checkout example published (its webhook answers at once) behind the key
 * made for this run, with the error workflow that releases the holds of its failed runs, and the
 * event its printed line buys from.
 */
import type { Sandbox } from '../../sandbox';
import type { N8nServer } from '../n8n/instance';
import type { Example } from './setup';

/** The shop checkout example's webhook path (`POST /webhook/shop-checkout`). */
export const SHOP_PATH = 'shop-checkout';

/** The header the checkout's Header Auth credential asks for. */
export const SHOP_HEADER = 'X-Shop-Key';

/** The Header Auth credential the checkout's Webhook names. */
export const SHOP_CREDENTIAL = { id: 'PeDemoShopKey001', name: 'Public Events shop key' };

/** That credential holding `key`: what a partner makes under Credentials > Header Auth. */
export function shopCredential(key: string) {
	return { ...SHOP_CREDENTIAL, type: 'httpHeaderAuth', data: { name: SHOP_HEADER, value: key } };
}

/** The first event the partner key sells now: what the demo's shop checkout line buys from. */
export function shopEventId(sandbox: Sandbox): number {
	const partner = sandbox.app.store.companies.find((c) => c.slug === 'partner')!;
	const now = sandbox.app.clock.now();
	return Math.min(
		...sandbox.app.store.events
			.filter((e) => e.companyIds.has(partner.id) && e.dateEndOfSale > now)
			.map((e) => e.id),
	);
}

/**
 * Publishes the shop checkout (its webhook answers at once) and, on n8n 2.x, the error
 * workflow its settings name: 2.x runs an error workflow only when it is published (1.x runs
 * it as saved). Returns the checkout's name, production URL and whether its webhook asks for
 * the key, or undefined when no example serves it.
 */
export async function publishShop(
	server: N8nServer,
	cookie: string,
	examples: Example[],
	workflowIds: Map<string, string>,
	v2: boolean,
): Promise<{ name: string; url: string; keyed: boolean } | undefined> {
	const webhook = (e: Example) =>
		e.nodes.find((n) => n.type === 'n8n-nodes-base.webhook' && n.parameters?.path === SHOP_PATH);
	const shop = examples.find(webhook);
	if (!shop) return undefined;
	const onError = workflowIds.get(shop.settings?.errorWorkflow ?? '');
	if (v2 && onError) await server.activateWorkflow(cookie, onError);
	await server.activateWorkflow(cookie, workflowIds.get(shop.id) ?? shop.id);
	return {
		name: shop.name,
		url: `${server.url}/webhook/${SHOP_PATH}`,
		keyed: webhook(shop)!.parameters?.authentication === 'headerAuth',
	};
}
