import { randomBytes } from 'node:crypto';

import { shopCredential } from '../../../scripts/demo/shop';
import { apiCredential } from '../../../scripts/n8n/instance';
import { QueueCluster } from '../../n8n/queueCluster';
import { startWan, type WanLink } from '../../net/wan';
import type { SandboxClient } from '../../sandbox/client';
import type { ShopBuild } from './shop';

export const RUSH_CREDENTIAL = { id: 'PeRushApiCred001', name: 'Public Events (rush)' };
/** The Header Auth credential of the shipped checkout's Webhook, holding the cluster's key. */
export const RUSH_SHOP_KEY = { id: 'PeRushShopKey001', name: 'Public Events shop key (rush)' };

/** What a build needs to know of the service as n8n reaches it. */
export interface ServiceAccess {
	/** The API's base URL as n8n calls it (`.../api/v2`). */
	apiUrl: string;
	/** A partner token the bench fetched once (for the HTTP Request build). */
	token: string;
	/** The key the shipped checkout's Webhook asks for, made for this cluster. */
	shopKey: string;
}

export interface RushCluster {
	cluster: QueueCluster;
	builds: ShopBuild[];
	/** The WAN stand-in between n8n and the sandbox, when asked for. */
	link?: WanLink;
	/** Each webhook processor's URL for a build, in the order buyers alternate over them. */
	urls(build: ShopBuild): string[];
	stop(): Promise<void>;
}

/**
 * The queue-mode cluster (harness/n8n/queueCluster.ts) with the builds published. With `wanRttMs`
 * the sandbox sits behind the WAN stand-in with TLS, n8n trusting its certificate through
 * NODE_EXTRA_CA_CERTS; without, n8n reaches it on loopback.
 */
export async function startRushCluster(options: {
	builds(access: ServiceAccess): ShopBuild[];
	wanRttMs?: number;
}): Promise<RushCluster> {
	let link: WanLink | undefined;
	let builds: ShopBuild[] = [];
	// filled once the builds are known (the cluster reads them after the sandbox started)
	const activate: string[] = [];
	const paths: string[] = [];
	const serviceUrl = (sandbox: SandboxClient) => link?.url ?? sandbox.sandbox.baseUrl;
	const shopKey = randomBytes(32).toString('base64url');
	try {
		const cluster = await QueueCluster.start({
			// the rush meets the account's limits, not the per-key rate limit
			sandbox: { rateLimit: { limit: 0 } },
			env: async (sandbox) => {
				if (options.wanRttMs !== undefined)
					link = await startWan({
						upstreamPort: Number(new URL(sandbox.sandbox.baseUrl).port),
						rttMs: options.wanRttMs,
						tls: true,
					});
				const access = {
					apiUrl: `${serviceUrl(sandbox)}/api/v2`,
					token: await sandbox.token(),
					shopKey,
				};
				builds = options.builds(access);
				activate.push(...builds.map((b) => b.workflow.id));
				paths.push(...builds.map((b) => b.path));
				const env: Record<string, string> = {};
				if (link?.caFile) env.NODE_EXTRA_CA_CERTS = link.caFile;
				return env;
			},
			credentials: (sandbox) => [
				apiCredential(RUSH_CREDENTIAL, serviceUrl(sandbox), sandbox.keys.partner),
				{ ...shopCredential(shopKey), ...RUSH_SHOP_KEY },
			],
			workflows: () => builds.map((b) => b.workflow),
			activate,
			paths,
		});
		return {
			cluster,
			builds,
			link,
			urls: (build) => cluster.webhooks.map((hook) => `${hook.url}/webhook/${build.path}`),
			stop: async () => {
				await cluster.stop();
				await link?.close();
			},
		};
	} catch (error) {
		await link?.close();
		throw error;
	}
}
