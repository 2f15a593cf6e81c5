/**
 * n8n's queue mode as partners who outgrow one process run it, for the queue suites: Redis,
 * Postgres, a main process, two workers (`n8n worker --concurrency=5`) and two webhook
 * processors (`n8n webhook`), all on loopback, one database, one encryption key and the
 * sandbox. Each process has its own n8n folder with the package installed in its own nodes
 * folder, as separate machines or containers would. docs/queue-mode.md has the settings and
 * the figures.
 */
import {
	ensureN8n,
	N8nInstance,
	packPackage,
	type N8nInstall,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { startPostgres, startRedis, type Service } from '../../scripts/n8n/queue';
import type { SandboxInit } from '../../sandbox/options';
import { SandboxClient } from '../sandbox/client';
import { OWNER } from './owner';

export const WORKERS = 2;
type Workflows = Array<{ id: string } & object>;
type PostgresService = Awaited<ReturnType<typeof startPostgres>>;
const valueOf = (part: PromiseSettledResult<unknown>) =>
	part.status === 'fulfilled' ? part.value : undefined;
export interface QueueClusterOptions {
	sandbox?: SandboxInit;
	/** Credentials and workflows to import, given the sandbox. */
	credentials(sandbox: SandboxClient): object[];
	/** Workflows to import, or a function of the sandbox giving them. */
	workflows: Workflows | ((sandbox: SandboxClient) => Workflows);
	/**
	 * More environment for every n8n process, given the sandbox once it runs (a WAN stand-in in
	 * front of it, and the certificate n8n must trust).
	 */
	env?(sandbox: SandboxClient): Promise<Record<string, string>>;
	/** Workflows to publish before the workers and webhook processors start. */
	activate: string[];
	/** Webhook paths (after /webhook/) each processor must serve before the tests begin. */
	paths: string[];
	/** Workers and webhook processors to start (default WORKERS and 2). */
	workers?: number;
	webhooks?: number;
}

export class QueueCluster {
	/** Every n8n process running, main first. */
	readonly processes: N8nServer[] = [];
	workers: N8nServer[] = [];
	webhooks: N8nServer[] = [];
	cookie = '';
	/** One n8n folder per process (main's first): what each process loads its nodes from. */
	private readonly folders: N8nInstance[] = [];

	private constructor(
		readonly sandbox: SandboxClient,
		/** main's n8n folder: the CLI imports run there */
		readonly n8n: N8nInstance,
		private readonly packed: PackedPackage,
		private readonly services: Service[],
		private readonly env: Record<string, string>,
	) {
		this.folders.push(n8n);
	}

	/**
	 * A new n8n folder on the cluster's database and Redis, with the package unless `withPackage:
	 * false`.
	 */
	private async folder(withPackage = true): Promise<N8nInstance> {
		const n8n = await N8nInstance.create({
			install: this.n8n.install,
			packed: withPackage ? this.packed : undefined,
			env: this.env,
		});
		this.folders.push(n8n);
		return n8n;
	}

	/**
	 * Starts one more worker in its own n8n folder; `withPackage: false` leaves its nodes folder
	 * empty.
	 */
	async startWorker({ withPackage = true } = {}): Promise<N8nServer> {
		const worker = await (
			await this.folder(withPackage)
		).start({ command: 'worker', args: ['--concurrency=5'] });
		this.processes.push(worker);
		this.workers.push(worker);
		return worker;
	}

	/** Stops the workers running now (the processes stay listed, for `printed`). */
	async stopWorkers(): Promise<void> {
		await Promise.all(this.workers.map((w) => w.stop()));
		this.workers = [];
	}

	get main(): N8nServer {
		return this.processes[0];
	}

	static async start(options: QueueClusterOptions): Promise<QueueCluster> {
		const parts = await Promise.allSettled([
			ensureN8n(),
			SandboxClient.start(options.sandbox),
			packPackage(),
			startRedis(),
			startPostgres(),
		] as const);
		const [install, sandbox, packed, redis, postgres] = parts.map(valueOf) as [
			N8nInstall?,
			SandboxClient?,
			PackedPackage?,
			Service?,
			PostgresService?,
		];
		if (!install || !sandbox || !packed || !redis || !postgres) {
			// what did start must not outlive the suite (a running Redis keeps jest from exiting)
			packed?.cleanup();
			await Promise.all([sandbox?.stop(), redis?.stop(), postgres?.stop()]);
			throw (parts.find((part) => part.status === 'rejected') as PromiseRejectedResult).reason;
		}
		let env: Record<string, string>;
		let n8n: N8nInstance;
		try {
			env = {
				...(await options.env?.(sandbox)),
				...postgres.env,
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(redis.port),
				// n8n warns at start about Postgres 15 (17 is current); it works.
				N8N_LOG_LEVEL: 'info',
			};
			n8n = await N8nInstance.create({ install, packed, env });
		} catch (error) {
			packed.cleanup();
			await Promise.all([sandbox.stop(), redis.stop(), postgres.stop()]);
			throw error;
		}
		const cluster = new QueueCluster(sandbox, n8n, packed, [redis, postgres], env);
		try {
			await n8n.importCredentials(options.credentials(sandbox));
			const { workflows } = options;
			await n8n.importWorkflows(typeof workflows === 'function' ? workflows(sandbox) : workflows);
			const main = await n8n.start();
			cluster.processes.push(main);
			cluster.cookie = await main.setupOwner(OWNER);
			for (const id of options.activate) await main.activateWorkflow(cluster.cookie, id);
			const workers = options.workers ?? WORKERS;
			const folders = await Promise.all(
				Array.from({ length: workers + (options.webhooks ?? 2) }, () => cluster.folder()),
			);
			const started = await Promise.all(
				folders.map((f, i) =>
					i < workers
						? f.start({ command: 'worker', args: ['--concurrency=5'] })
						: f.start({ command: 'webhook' }),
				),
			);
			cluster.processes.push(...started);
			cluster.workers = started.slice(0, workers);
			cluster.webhooks = started.slice(workers);
			// A webhook processor serves what is published once it has read it from the database.
			// (A preflight OPTIONS: it starts no execution, so nothing runs before the tests.)
			const deadline = Date.now() + 60_000;
			for (const hook of cluster.webhooks) {
				for (const path of options.paths) {
					while (
						(await fetch(`${hook.url}/webhook/${path}`, { method: 'OPTIONS' })).status === 404 &&
						Date.now() < deadline
					)
						await new Promise((r) => setTimeout(r, 500));
				}
			}
		} catch (error) {
			await cluster.stop();
			throw error;
		}
		return cluster;
	}

	/**
	 * Stops main (as a deploy or a crash-free restart does) and starts a new one on the same
	 * database.
	 */
	async restartMain(): Promise<void> {
		await this.main.stop();
		this.processes[0] = await this.n8n.start();
	}

	/** Everything that n8n printed, also of stopped processes (for the secrets scan). */
	printed(): string {
		return (
			this.folders.map((f) => f.printedText()).join('\n') +
			this.processes.map((p) => p.log()).join('\n')
		);
	}

	async stop(): Promise<void> {
		await Promise.all(this.processes.map((p) => p.stop()));
		this.folders.forEach((f) => f.cleanup());
		this.packed.cleanup();
		await Promise.all([this.sandbox.stop(), ...this.services.map((s) => s.stop())]);
	}
}
