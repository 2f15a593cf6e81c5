import {
	NodeConnectionTypes,
	Workflow,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { buildNode, NodeTypeRegistry, type CredentialStore } from '../engine';
import { executeFromStart } from '../engine/execute';
import { START_NODE_TYPE } from '../engine/runtime';

/** The node as n8n loads its tool variant (usableAsTool): `publicEventsTool`, output ai_tool. */
export class PublicEventsTool extends PublicEvents {
	description = {
		...new PublicEvents().description,
		name: 'publicEventsTool',
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	} as INodeTypeDescription;
}

/** One tool call of a script: the tool node's name and the arguments a model would give. */
export interface ToolCall {
	tool: string;
	args: IDataObject;
}

/** What the agent read: the tool's answer as JSON (n8n hands it over as one JSON text). */
export interface ToolAnswer extends ToolCall {
	answer: unknown;
	/** The tool's input schema as n8n built it from the `$fromAI()` parameters: its keys. */
	schemaKeys: string[];
	/** Those of its keys the model must give (no default in their `$fromAI()`). */
	requiredKeys: string[];
}

/**
 * Stands in for an AI agent (AI Agent 2.x, the MCP Server Trigger): gets its tools from n8n-core
 * (getInputConnectionData, where `$fromAI()` becomes the tool's schema and its arguments) and calls
 * them in the order of its input item's `script`.
 */
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
			schema?: { shape?: Record<string, { isOptional(): boolean }> };
			metadata?: { sourceNodeName?: string };
			invoke: (args: IDataObject) => Promise<string>;
		}>;
		const script = this.getInputData()[0].json.script as unknown as ToolCall[];
		const out: INodeExecutionData[] = [];
		for (const { tool, args } of script) {
			const found = [tools].flat().find((t) => t.metadata?.sourceNodeName === tool);
			if (!found) throw new Error(`no tool ${tool}`);
			let answer: unknown;
			try {
				answer = JSON.parse(await found.invoke(args));
			} catch (error) {
				answer = { error: (error as Error).message };
			}
			const shape = Object.entries(found.schema?.shape ?? {});
			const schemaKeys = shape.map(([key]) => key).sort();
			const requiredKeys = shape.filter(([, v]) => !v.isOptional()).map(([key]) => key);
			const json = { tool, args, answer, schemaKeys, requiredKeys: requiredKeys.sort() };
			out.push({ json: json as unknown as IDataObject });
		}
		return [out];
	}
}

/**
 * One agent run: Start -> Agent, each of `tools` (name -> the tool node's parameters, such as an
 * example's) connected to it as ai_tool, then the calls of `script` in order.
 */
export async function runToolAgent(
	store: CredentialStore,
	tools: Record<string, INodeParameters>,
	script: ToolCall[],
): Promise<ToolAnswer[]> {
	const node = (name: string, type: string, index: number, nodeType: INodeType): INode => ({
		...buildNode({ nodeType, type, name, parameters: tools[name] ?? {}, credentials: store }),
		id: `node-${index}`,
		position: [200, 100 * index],
	});
	const start: INode = {
		id: 'start',
		name: 'Start',
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const agent = node('Agent', 'CUSTOM.scriptedAgent', 1, new ScriptedAgent());
	const toolNodes = Object.keys(tools).map((name, i) =>
		node(name, 'CUSTOM.publicEventsTool', i + 2, new PublicEventsTool()),
	);
	const connections: IConnections = {
		Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
		...Object.fromEntries(
			toolNodes.map((t) => [t.name, { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] }]),
		),
	};
	const workflow = new Workflow({
		id: 'tool-agent',
		name: 'tool agent',
		nodes: [start, agent, ...toolNodes],
		connections,
		active: false,
		nodeTypes: new NodeTypeRegistry({
			'CUSTOM.scriptedAgent': new ScriptedAgent(),
			'CUSTOM.publicEventsTool': new PublicEventsTool(),
		}),
		settings: { executionOrder: 'v1' },
	});
	const input = [{ json: { script } as unknown as IDataObject }];
	const run = await executeFromStart(workflow, start, input, store, 'manual');
	const error = run.data.resultData.error;
	if (error) throw new Error(`the agent run failed: ${error.message}`);
	const items = run.data.resultData.runData.Agent?.[0]?.data?.main?.[0] ?? [];
	return items.map((item) => item.json as unknown as ToolAnswer);
}
