/**
 * The Data Table example in the demo (n8n 2.x): its "Set Up Table" branch is run once, as a user
 * runs it from the editor, so the table exists; then the workflow is published, so every sale
 * the sandbox records shows up as a row within a minute. n8n 1.x has no Data Table node of that
 * version: there the example is left out.
 */
import type { N8nServer } from '../n8n/instance';
import type { Example } from './setup';

const DATA_TABLE = 'n8n-nodes-base.dataTable';
const SET_UP = 'Set Up Table';

export const usesDataTable = (example: Example) => example.nodes.some((n) => n.type === DATA_TABLE);

/** Sets up and publishes the first example with a "Set Up Table" branch; returns its name. */
export async function startTableSync(
	server: N8nServer,
	cookie: string,
	examples: Example[],
	timeoutMs = 60_000,
): Promise<string | undefined> {
	const example = examples.find((e) => usesDataTable(e) && e.nodes.some((n) => n.name === SET_UP));
	if (!example) return undefined;
	const filter = encodeURIComponent(JSON.stringify({ workflowId: example.id }));
	await server.rest(cookie, 'POST', `/workflows/${example.id}/run`, {
		triggerToStartFrom: { name: SET_UP },
	});
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const { results } = (await server.rest(
			cookie,
			'GET',
			`/executions?filter=${filter}&limit=1`,
		)) as { results: Array<{ status: string }> };
		const status = results[0]?.status;
		if (status === 'success') break;
		if (status && !['new', 'running', 'waiting'].includes(status))
			throw new Error(`"${example.name}": ${SET_UP} ended ${status}`);
		if (Date.now() > deadline)
			throw new Error(`"${example.name}": ${SET_UP} did not finish in ${timeoutMs / 1000} s`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	await server.activateWorkflow(cookie, example.id);
	return example.name;
}
