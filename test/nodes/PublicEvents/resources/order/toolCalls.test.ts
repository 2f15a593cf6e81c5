/**
 * An AI agent's tool calls are runs of their own: each call of a Public Events tool sends its
 * write, names only its own holds, and releases nothing another call holds; n8n's Retry On Fail
 * of one call still sends its write once (retryGuard.ts).
 *
 * n8n-core runs a tool for AI Agent 2.x, an AI Agent Tool's sub-agent and the MCP Server Trigger
 * through getInputConnectionData -> makeHandleToolInvocation: every call, and every try of a
 * call, gets a new SupplyDataContext with the agent's own execute data and a run index of its
 * own; the tries of one call share the arguments object of the model's call (the json of the one
 * input item). The agent here is a stand-in that gets its tools from n8n-core the same way and
 * calls them in the order its script says.
 *
 * Found by an outside review: the node keyed "one node run" by the execute data alone, so an
 * agent's tool calls were taken for tries of one run: a second Hold Best Available call for
 * another event answered the first call's order and sent nothing, a Release Hold call answered
 * Hold Best Available's order and released nothing, and a failing Get Order call released the
 * hold another call had just made.
 */
import {
	NodeConnectionTypes,
	Workflow,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { PublicEvents } from '../../../../../nodes/PublicEvents/PublicEvents.node';
import { NodeTypeRegistry, buildNode } from '../../../../../harness/engine';
import { START_NODE_TYPE } from '../../../../../harness/engine/runtime';
import { executeFromStart } from '../../../../../harness/engine/execute';
import { credentialFor, mark, since } from '../../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../../harness/sandbox/client';
import { onlyEvents } from '../../../../../harness/sandbox/suite';

/** The node as n8n loads its tool variant (usableAsTool): `publicEventsTool`, output ai_tool. */
class PublicEventsTool extends PublicEvents {
	description = {
		...new PublicEvents().description,
		name: 'publicEventsTool',
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	} as INodeTypeDescription;
}

/** What the agent calls, in order: tool name -> arguments. Answers, in order, in its output. */
let script: Array<{ tool: string; args: IDataObject }> = [];

/** Stands in for AI Agent 2.x: gets its tools from n8n-core and calls them one after another. */
class ScriptedAgent implements INodeType {
	description: INodeTypeDescription = {
		usableAsTool: true,
		displayName: 'Scripted Agent',
		name: 'scriptedAgent',
		group: ['transform'],
		version: 1,
		description: 'calls tools',
		defaults: { name: 'Agent' },
		inputs: [NodeConnectionTypes.Main, NodeConnectionTypes.AiTool],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tools = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as Array<{
			name: string;
			metadata?: { sourceNodeName?: string };
			invoke: (args: IDataObject) => Promise<string>;
		}>;
		const out: INodeExecutionData[] = [];
		for (const { tool, args } of script) {
			const found = tools.find((t) => t.metadata?.sourceNodeName === tool);
			if (!found) throw new Error(`no tool ${tool}: ${tools.map((t) => t.name).join(', ')}`);
			let answer: unknown;
			try {
				answer = JSON.parse(await found.invoke(args));
			} catch (error) {
				answer = { error: (error as Error).message };
			}
			out.push({ json: { tool, args, answer } as IDataObject });
		}
		return [out];
	}
}

let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(3, 40, { limits: { reservedPerAccount: 100 } }));
});
afterAll(() => sb.stop());
afterEach(() => sb.admin('DELETE', '/faults'));

type Settings = Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries'>;

/** One agent run over three tools; `holdOptions` and `settings` go to Hold Best Available. */
async function runAgent(holdOptions: IDataObject = {}, settings: Settings = {}) {
	const { store } = credentialFor(sb);
	const start: INode = {
		id: 'start',
		name: 'Start',
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const agent: INode = {
		id: 'agent',
		name: 'Agent',
		type: 'CUSTOM.scriptedAgent',
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const tool = (name: string, parameters: IDataObject, index: number, extra: Settings = {}) => ({
		...buildNode({
			nodeType: new PublicEventsTool(),
			type: 'CUSTOM.publicEventsTool',
			name,
			parameters: parameters as never,
			credentials: store,
			settings: extra,
		}),
		id: `tool-${index}`,
		position: [200, 200 + 100 * index] as [number, number],
	});
	const hold = tool(
		'Hold Best Available',
		{
			resource: 'order',
			operation: 'holdBestAvailable',
			eventId: { __rl: true, mode: 'id', value: "={{ $fromAI('eventId', 'event', 'number') }}" },
			quantity: "={{ $fromAI('quantity', 'how many', 'number') }}",
			options: holdOptions,
			toolDescription: 'Holds places',
		},
		1,
		settings,
	);
	const release = tool(
		'Release Hold',
		{
			resource: 'order',
			operation: 'changeStatus',
			orderId: "={{ $fromAI('orderId', 'the order', 'number') }}",
			toStatus: 'expired',
			toolDescription: 'Releases a hold',
		},
		2,
	);
	const get = tool(
		'Get Order',
		{
			resource: 'order',
			operation: 'get',
			orderId: "={{ $fromAI('orderId', 'the order', 'number') }}",
			toolDescription: 'Reads an order',
		},
		3,
	);
	const connections: IConnections = {
		[get.name]: { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
		Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
		[hold.name]: { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
		[release.name]: { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
	};
	const workflow = new Workflow({
		id: 'agent-tool-calls',
		name: 'agent tool calls',
		nodes: [start, agent, hold, release, get],
		connections,
		active: false,
		nodeTypes: new NodeTypeRegistry({
			'CUSTOM.scriptedAgent': new ScriptedAgent(),
			'CUSTOM.publicEventsTool': new PublicEventsTool(),
		}),
		settings: { executionOrder: 'v1' },
	});
	const before = await mark(sb);
	const run = await executeFromStart(workflow, start, [{ json: {} }], store, 'manual');
	const log = (await since(sb, before)).filter((e) => e.route !== '/token');
	const answers = (run.data.resultData.runData.Agent?.[0]?.data?.main?.[0] ?? []).map(
		(i) => i.json as { tool: string; args: IDataObject; answer: any },
	);
	return { run, log, answers };
}

const posts = (log: Array<{ method: string; route: string }>) =>
	log.filter((e) => e.method === 'POST' && e.route === '/orders').length;

/** A tool's answer: the order (a list of one item), or `{ error }`. */
const first = (answer: any) => (Array.isArray(answer) ? answer[0] : answer);

describe('an AI agent calling Public Events tools: each call is a run of its own', () => {
	it(
		'two Hold Best Available calls for two events in one agent run hold two orders, each for ' +
			'its event',
		async () => {
			script = [
				{ tool: 'Hold Best Available', args: { eventId: 1001, quantity: 1 } },
				{ tool: 'Hold Best Available', args: { eventId: 1002, quantity: 1 } },
			];
			const { log, answers, run } = await runAgent();
			expect(run.data.resultData.error).toBeUndefined();
			const orders = answers.map((a) => first(a.answer));
			expect({
				posts: posts(log),
				events: orders.map((o) => String(o?.eventPoint?.id ?? o?.eventPoint ?? o?.error)),
			}).toEqual({ posts: 2, events: ['1001', '1002'] });
		},
	);

	it(
		'Release Hold after Hold Best Available in one agent run releases the order it names, ' +
			'not the one just held',
		async () => {
			script = [{ tool: 'Hold Best Available', args: { eventId: 1002, quantity: 1 } }];
			const earlier = await runAgent();
			const held = first(earlier.answers[0].answer);
			script = [
				{ tool: 'Hold Best Available', args: { eventId: 1002, quantity: 1 } },
				{ tool: 'Release Hold', args: { orderId: Number(held.id) } },
			];
			const { log, answers } = await runAgent();
			const made = first(answers[0].answer);
			const released = first(answers[1].answer);
			const status = (await sb.get(`/orders/${held.id}`)).body.status;
			expect({
				puts: log.filter((e) => e.method === 'PUT').length,
				releasedAnswerId: String(released?.id),
				status,
			}).toEqual({ puts: 1, releasedAnswerId: String(held.id), status: 'expired' });
			expect(String(made.id)).not.toBe(String(held.id));
			await sb.send('PUT', `/orders/${made.id}/status`, { toStatus: 'expired' });
		},
	);

	it(
		'a failing Get Order call in one agent run releases nothing: the hold another call made ' +
			'stays held',
		async () => {
			const event = (await sb.admin('POST', '/events', { places: 10 })).body.id as number;
			script = [
				{ tool: 'Hold Best Available', args: { eventId: event, quantity: 1 } },
				{ tool: 'Get Order', args: { orderId: 999999 } },
			];
			const { answers, log } = await runAgent();
			const made = first(answers[0].answer);
			expect(made?.status).toBe('reserved_to_time');
			expect(String(answers[1].answer.error)).toMatch(/Order 999999 was not found/);
			expect(String(answers[1].answer.error)).not.toMatch(/order \d+ \(item/);
			expect(log.filter((e) => e.method === 'PUT')).toEqual([]);
			expect((await sb.get(`/orders/${made.id}`)).body.status).toBe('reserved_to_time');
		},
	);

	it(
		"Retry On Fail on a tool: a call whose write's answer was lost is not sent again by n8n's " +
			'next try (its error is given again); the next call, with the same arguments, is sent',
		async () => {
			const event = (await sb.admin('POST', '/events', { places: 10 })).body.id as number;
			// The first POST /orders is applied and its answer lost; every read back fails.
			await sb.admin('POST', '/faults', {
				kind: 'drop',
				phase: 'after',
				method: 'POST',
				path: '/orders',
			});
			await sb.admin('POST', '/faults', {
				kind: 'status',
				status: 500,
				method: 'GET',
				path: '/event-points/{id}/orders',
				count: 0,
			});
			script = [
				{ tool: 'Hold Best Available', args: { eventId: event, quantity: 1 } },
				{ tool: 'Hold Best Available', args: { eventId: event, quantity: 1 } },
			];
			const { answers, log, run } = await runAgent(
				{ confirmWaitSeconds: 0, maxRetries: 0 },
				{ retryOnFail: true, maxTries: 3, waitBetweenTries: 1 },
			);
			// n8n tried the first call three times, each a run index of its own.
			const tries = run.data.resultData.runData['Hold Best Available'] ?? [];
			expect(tries.length).toBe(4);
			expect(String(answers[0].answer.error)).toMatch(/Uncertain:/);
			expect(posts(log)).toBe(2);
			const second = first(answers[1].answer);
			expect(second?.status).toBe('reserved_to_time');
		},
	);
});
