import {
	apiCredential,
	ensureN8n,
	N8nInstance,
	packPackage,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { sampleChild } from './procStats';
import { countersDelta, SandboxProcess } from '../sandbox/process';
import { CREDENTIAL } from './workflows';

/**
 * Real n8n (the packed package installed as a community package) and the sandbox in its own
 * process.
 */
export interface N8nBench {
	sandbox: SandboxProcess;
	n8n: N8nInstance;
	packed: PackedPackage;
}

export async function setUpN8nBench(sandboxArgs: string[]): Promise<N8nBench> {
	const [install, sandbox, packed] = await Promise.all([
		ensureN8n(),
		SandboxProcess.start(sandboxArgs),
		packPackage(),
	]);
	const n8n = await N8nInstance.create({ install, packed });
	return { sandbox, n8n, packed };
}

export async function tearDownN8nBench(bench: Partial<N8nBench>): Promise<void> {
	bench.n8n?.cleanup();
	bench.packed?.cleanup();
	bench.sandbox?.stop();
}

/** The package's credential pointing at the sandbox, as `n8n import:credentials` takes it. */
export const credentialFor = (sandbox: SandboxProcess, details = CREDENTIAL) =>
	apiCredential(details, sandbox.baseUrl, sandbox.keys.partner);

/** One `n8n execute` and what it cost. */
export interface Execution {
	/** The whole `n8n execute` process: start-up, the run, printing the run JSON. */
	processMs: number;
	/** Peak resident memory (VmHWM) of the `n8n execute` process. */
	peakMiB: number;
	/** Requests the sandbox served during the run, by "METHOD route". */
	requests: Record<string, number>;
	/** Each node's own executionTime from the run JSON. */
	nodeMs: Record<string, number>;
	/** Output items of each node. */
	items: Record<string, number>;
}

export async function execute(bench: N8nBench, workflowId: string): Promise<Execution> {
	const before = await bench.sandbox.counters();
	const started = process.hrtime.bigint();
	const { result: run, peakMiB } = await sampleChild(() => bench.n8n.execute(workflowId));
	const processMs = Number(process.hrtime.bigint() - started) / 1e6;
	const requests = countersDelta(before, await bench.sandbox.counters());
	if (run.status !== 'success') throw new Error(`workflow ${workflowId} ended ${run.status}`);
	const nodeMs: Record<string, number> = {};
	const items: Record<string, number> = {};
	for (const [name, tasks] of Object.entries(
		run.data.resultData.runData as Record<string, any[]>,
	)) {
		nodeMs[name] = tasks[0].executionTime;
		items[name] = tasks[0].data?.main?.[0]?.length ?? 0;
	}
	return { processMs, peakMiB, requests, nodeMs, items };
}
