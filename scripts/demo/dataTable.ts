/**
 * The Data Table examples in the demo (n8n 2.x): the "Set Up Table" branch of one is run once, as a
 * user runs it from the editor, so the table exists; the table is then picked in every Data Table
 * example's Save to Table as the editor's list picks it (by ID: renaming the table breaks
 * nothing), "Reconcile Now" fills it with the last 7 days of every channel, and the push-and-poll
 * example is published, so a sale the sandbox pushes shows up as rows at once, and the poll brings
 * any push that never came. n8n 1.x has no Data Table node of that version: there the examples are
 * left out.
 */
import type { Sandbox } from '../../sandbox';
import type { N8nServer } from '../n8n/instance';
import type { Example } from './setup';

const DATA_TABLE = 'n8n-nodes-base.dataTable';
const SET_UP = 'Set Up Table';
const FILL = 'Reconcile Now';
export const TABLE_NAME = 'Public Events ledger';
/** The node where a user picks the table; the other Data Table nodes take it from there. */
export const PICKED_IN = 'Save to Table';

export const usesDataTable = (example: Example) => example.nodes.some((n) => n.type === DATA_TABLE);
const pushes = (example: Example) =>
	example.nodes.some((n) => n.type.endsWith('.publicEventsTrigger'));

interface RunSummary {
	id: string;
	status: string;
	mode: string;
}

/** The workflow's newest runs, newest first (n8n's executions list). */
async function newestRuns(
	server: N8nServer,
	cookie: string,
	workflowId: string,
	limit = 100,
): Promise<RunSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	return (
		(await server.rest(cookie, 'GET', `/executions?filter=${filter}&limit=${limit}`)) as {
			results: RunSummary[];
		}
	).results;
}

/**
 * Runs the workflow from `trigger` as the editor's "Execute workflow" on that trigger does, waits
 * for that run to end (not a poll's that started meanwhile) and answers its ID; throws unless it
 * succeeded.
 */
export async function runFrom(
	server: N8nServer,
	cookie: string,
	workflow: { id: string; name: string },
	trigger: string,
	timeoutMs = 60_000,
): Promise<string> {
	const before = new Set((await newestRuns(server, cookie, workflow.id)).map((r) => r.id));
	const started = (await server.rest(cookie, 'POST', `/workflows/${workflow.id}/run`, {
		triggerToStartFrom: { name: trigger },
	})) as { executionId?: string } | undefined;
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const run = (await newestRuns(server, cookie, workflow.id, 20)).find((r) =>
			started?.executionId
				? String(r.id) === String(started.executionId)
				: !before.has(r.id) && r.mode === 'manual',
		);
		if (run?.status === 'success') return String(run.id);
		if (run && !['new', 'running', 'waiting'].includes(run.status))
			throw new Error(`"${workflow.name}": ${trigger} ended ${run.status}`);
		if (Date.now() > deadline)
			throw new Error(`"${workflow.name}": ${trigger} did not finish in ${timeoutMs / 1000} s`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/**
 * Picks the table named `tableName` in the workflow's Save to Table as a user does in the editor:
 * the node's own table list (Data table > From List) offers it, the choice keeps its ID, and the
 * workflow is saved.
 */
export async function pickTable(
	server: N8nServer,
	cookie: string,
	workflowId: string,
	tableName = TABLE_NAME,
): Promise<string> {
	const workflow = (await server.rest(cookie, 'GET', `/workflows/${workflowId}`)) as {
		nodes: Array<{ name: string; type: string; typeVersion: number; parameters: object }>;
	};
	const node = workflow.nodes.find((n) => n.name === PICKED_IN && n.type === DATA_TABLE);
	if (!node) throw new Error(`workflow ${workflowId} has no Data Table node "${PICKED_IN}"`);
	const project = ((await server.rest(cookie, 'GET', '/projects/personal')) as { id: string }).id;
	const { results } = (await server.rest(
		cookie,
		'POST',
		'/dynamic-node-parameters/resource-locator-results',
		{
			path: 'parameters.dataTableId',
			methodName: 'tableSearch',
			nodeTypeAndVersion: { name: DATA_TABLE, version: node.typeVersion },
			currentNodeParameters: node.parameters,
			projectId: project,
			workflowId,
		},
	)) as { results: Array<{ name: string; value: string; url?: string }> };
	const table = results.find((r) => r.name === tableName);
	if (!table) throw new Error(`the table list offers no "${tableName}"`);
	const nodes = workflow.nodes.map((n) =>
		n === node
			? {
					...n,
					parameters: {
						...n.parameters,
						dataTableId: {
							__rl: true,
							mode: 'list',
							value: table.value,
							cachedResultName: table.name,
							cachedResultUrl: table.url,
						},
					},
				}
			: n,
	);
	await server.rest(cookie, 'PATCH', `/workflows/${workflowId}`, { nodes });
	return table.value;
}

/**
 * Makes the table with the first example's "Set Up Table" branch, picks it in every Data Table
 * example, fills it with the first one's "Reconcile Now", and publishes the one that pushes and
 * polls (else the first), its Production URL subscribed to the sandbox's sales and refunds, signed
 * with `secret`. Returns the published example's name and whether sales are pushed to it.
 */
export async function startTableSync(
	server: N8nServer,
	cookie: string,
	examples: Example[],
	sandbox: Sandbox,
	secret: string,
): Promise<
	{ name: string; pushed: boolean; button: { trigger: string; polls: boolean } } | undefined
> {
	const tables = examples.filter(usesDataTable);
	const setUp = tables.find((e) => e.nodes.some((n) => n.name === SET_UP));
	if (!setUp) return undefined;
	await runFrom(server, cookie, setUp, SET_UP);
	for (const example of tables.filter((e) => e.nodes.some((n) => n.name === PICKED_IN)))
		await pickTable(server, cookie, example.id);
	await runFrom(server, cookie, setUp, FILL, 120_000);
	const published = tables.find(pushes) ?? setUp;
	await server.activateWorkflow(cookie, published.id);
	const trigger = published.nodes.find((n) => n.type.endsWith('.publicEventsTrigger'));
	if (trigger?.webhookId)
		sandbox.app.push.subscribe({
			url: `${server.url}/webhook/${trigger.webhookId}/webhook`,
			secret,
			types: ['order.sale', 'order.refund'],
			companyId: sandbox.app.store.companies.find((c) => c.slug === 'partner')!.id,
		});
	return {
		name: published.name,
		pushed: Boolean(trigger?.webhookId),
		button: bigButton(published),
	};
}

/**
 * The trigger the editor's big "Execute workflow" button starts from in a Data Table example: the
 * first listed of the package's triggers (n8n's editor ranks an app's trigger above Schedule and
 * Manual Triggers, and keeps the nodes' order between equals), and whether it is the poll.
 */
function bigButton(example: Example): { trigger: string; polls: boolean } {
	const first = example.nodes.find((n) => /^n8n-nodes-public-events\.\w+Trigger$/.test(n.type))!;
	return { trigger: first.name, polls: first.type.endsWith('.publicEventsPollTrigger') };
}
