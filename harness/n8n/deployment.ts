/**
 * One real n8n with the package, as a partner runs it: regular mode (one process, SQLite) or
 * queue mode (main, workers and webhook processors on Postgres and Redis, queueCluster.ts), behind
 * one interface, so a suite can run the same scenario in both.
 */
import {
	ensureN8n,
	N8nInstance,
	packPackage,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import type { SandboxInit } from '../../sandbox/options';
import { SandboxClient } from '../sandbox/client';
import { OWNER } from './owner';
import { QueueCluster } from './queueCluster';

export interface DeploymentOptions {
	queue: boolean;
	sandbox?: SandboxInit;
	/** More environment for every n8n process. */
	env?: Record<string, string>;
	credentials(sandbox: SandboxClient): object[];
	workflows: Array<{ id: string } & object>;
}

export interface Deployment {
	readonly sandbox: SandboxClient;
	readonly cookie: string;
	/** The process serving the editor and its REST API now. */
	main(): N8nServer;
	/** The process that takes production webhooks (main, or the webhook processor). */
	webhooks(): N8nServer;
	/** Stops n8n's main process and starts it again on the same port and data. */
	restart(): Promise<void>;
	/** Everything n8n printed, stopped processes too. */
	printed(): string;
	stop(): Promise<void>;
}

export function deploy(options: DeploymentOptions): Promise<Deployment> {
	return options.queue ? queueDeployment(options) : regularDeployment(options);
}

async function regularDeployment(options: DeploymentOptions): Promise<Deployment> {
	const [install, sandbox, packed] = await Promise.all([
		ensureN8n(),
		SandboxClient.start(options.sandbox),
		packPackage(),
	]);
	let n8n: N8nInstance | undefined;
	let server: N8nServer | undefined;
	const cleanup = async (pkg: PackedPackage) => {
		await server?.stop();
		n8n?.cleanup();
		pkg.cleanup();
		await sandbox.stop();
	};
	try {
		n8n = await N8nInstance.create({ install, packed, env: options.env });
		await n8n.importCredentials(options.credentials(sandbox));
		await n8n.importWorkflows(options.workflows);
		server = await n8n.start();
		const cookie = await server.setupOwner(OWNER);
		const instance = n8n;
		const port = Number(new URL(server.url).port);
		return {
			sandbox,
			cookie,
			main: () => server!,
			webhooks: () => server!,
			async restart() {
				await server!.stop();
				server = await instance.start({ port });
			},
			printed: () => instance.printedText() + server!.log(),
			stop: () => cleanup(packed),
		};
	} catch (error) {
		await cleanup(packed);
		throw error;
	}
}

async function queueDeployment(options: DeploymentOptions): Promise<Deployment> {
	const cluster = await QueueCluster.start({
		sandbox: options.sandbox,
		credentials: options.credentials,
		workflows: options.workflows,
		env: async () => options.env ?? {},
		activate: [],
		paths: [],
		workers: 1,
		webhooks: 1,
	});
	return {
		sandbox: cluster.sandbox,
		cookie: cluster.cookie,
		main: () => cluster.main,
		webhooks: () => cluster.webhooks[0],
		restart: () => cluster.restartMain(),
		printed: () => cluster.printed(),
		stop: () => cluster.stop(),
	};
}
