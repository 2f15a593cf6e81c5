/** A workflow's executions through n8n's REST API (the editor's Executions list). */
import { parse } from 'flatted';

import type { N8nServer } from '../../scripts/n8n/instance';

export interface Run {
	id: string;
	status: string;
	mode: string;
}

const ENDED = (status: string) => !['new', 'running', 'waiting', 'unknown'].includes(status);

/** Every execution of the workflow, newest first (pages of 100). */
export async function runsOf(
	server: N8nServer,
	cookie: string,
	workflowId: string,
): Promise<Run[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const runs: Run[] = [];
	for (let lastId = ''; ; ) {
		const page = (
			(await server.rest(
				cookie,
				'GET',
				`/executions?filter=${filter}&limit=100${lastId && `&lastId=${lastId}`}`,
			)) as { results: Run[] }
		).results;
		runs.push(...page);
		if (page.length < 100) return runs;
		lastId = page[page.length - 1].id;
	}
}

/** How many runs ended (or not) in each status, e.g. `{ success: 40, error: 6 }`. */
export function byStatus(runs: Run[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const run of runs) counts[run.status] = (counts[run.status] ?? 0) + 1;
	return counts;
}

export const allEnded = (runs: Run[]) => runs.every((r) => ENDED(r.status));

/**
 * The first object in a run's data that `probe` accepts. n8n stores a run flattened (flatted):
 * an item's object keeps its numbers in place, its strings as references.
 */
export async function findInRun<T>(
	server: N8nServer,
	cookie: string,
	executionId: string,
	probe: (value: Record<string, unknown>) => boolean,
): Promise<T | undefined> {
	const run = (await server.rest(cookie, 'GET', `/executions/${executionId}`)) as { data: string };
	return (JSON.parse(run.data) as unknown[]).find(
		(v) => typeof v === 'object' && v !== null && probe(v as Record<string, unknown>),
	) as T | undefined;
}

/**
 * What node `name` output in a run (its first run, first output), as items' JSON; undefined when
 * it did not run.
 */
export async function nodeOutput(
	server: N8nServer,
	cookie: string,
	executionId: string,
	name: string,
): Promise<Array<Record<string, unknown>> | undefined> {
	const run = (await server.rest(cookie, 'GET', `/executions/${executionId}`)) as { data: string };
	const data = parse(run.data) as {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: object }> | null> } }>>;
		};
	};
	const runs = data.resultData.runData[name];
	if (!runs) return undefined;
	return (runs[0].data?.main?.[0] ?? []).map((item) => item.json as Record<string, unknown>);
}
