import type { RushCluster } from './cluster';
import type { ShopBuild } from './shop';

/** What n8n's REST API lists of an execution. */
export interface ExecutionSummary {
	id: string;
	status: string;
	createdAt: string;
	startedAt: string;
	stoppedAt: string;
}

async function executions(rc: RushCluster, build: ShopBuild, extra = '') {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: build.workflow.id }));
	return (
		(await rc.cluster.main.rest(
			rc.cluster.cookie,
			'GET',
			`/executions?filter=${filter}&limit=100${extra}`,
		)) as { results: ExecutionSummary[] }
	).results;
}

export const lastExecutionId = async (rc: RushCluster, build: ShopBuild) =>
	Math.max(0, ...(await executions(rc, build)).map((e) => Number(e.id)));

/** Every execution of the build has ended (a buyer may have given up on a run still going). */
export async function settled(rc: RushCluster, build: ShopBuild): Promise<void> {
	const deadline = Date.now() + 120_000;
	const running = async () =>
		(await executions(rc, build)).filter((e) => ['new', 'running', 'waiting'].includes(e.status));
	while ((await running()).length > 0 && Date.now() < deadline)
		await new Promise((r) => setTimeout(r, 1000));
}

/** The build's executions after `afterId`, oldest first. */
export async function executionsSince(
	rc: RushCluster,
	build: ShopBuild,
	afterId: number,
): Promise<ExecutionSummary[]> {
	const found: ExecutionSummary[] = [];
	for (let lastId = ''; ; ) {
		const page = await executions(rc, build, lastId);
		found.push(...page.filter((e) => Number(e.id) > afterId));
		const oldest = Math.min(...page.map((e) => Number(e.id)));
		if (page.length < 100 || oldest <= afterId) break;
		lastId = `&lastId=${oldest}`;
	}
	return found.sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Sums Hold Best Available's `holdAttempts` over executions. n8n stores a run flattened
 * (flatted), which keeps numbers in place: the object with the counters is found as is.
 */
export async function holdAttempts(rc: RushCluster, ran: ExecutionSummary[]) {
	const total = { conflicts: 0, limitWaits: 0, runsRead: 0 };
	for (const { id } of ran) {
		const run = (await rc.cluster.main.rest(rc.cluster.cookie, 'GET', `/executions/${id}`)) as {
			data: string;
		};
		const found = (JSON.parse(run.data) as unknown[]).find(
			(v): v is { conflicts: number; limitWaits: number } =>
				typeof v === 'object' &&
				v !== null &&
				typeof (v as Record<string, unknown>).conflicts === 'number' &&
				typeof (v as Record<string, unknown>).limitWaits === 'number',
		);
		if (!found) continue;
		total.conflicts += found.conflicts;
		total.limitWaits += found.limitWaits;
		total.runsRead++;
	}
	return total;
}
