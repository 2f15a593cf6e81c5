import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

import { ExecutionLifecycleHooks, InstanceSettings } from 'n8n-core';
import {
	LoggerProxy,
	NodeConnectionTypes,
	Workflow,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeCredentials,
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
	type INodeTypes,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { capturedText } from '../secrets';
import { CredentialStore } from './credentials';

/**
 * What every engine helper shares: the DI services n8n-core reaches for, a node-type registry,
 * and `additionalData`. Execute (runNode), load-options, and later poll and webhook helpers
 * each build a `Workflow` with `buildWorkflow` and a context or `WorkflowExecute` on top.
 */

/**
 * n8n-core resolves its services from @n8n/di, and the container lives in the module: n8n-core
 * gets its own nested copy (0.17) next to the top-level one (0.16), so the container and config
 * must be loaded as n8n-core sees them, not with a plain import.
 */
const coreRequire = createRequire(require.resolve('n8n-core'));
const { Container } = coreRequire('@n8n/di') as typeof import('@n8n/di');
const { GlobalConfig } = coreRequire('@n8n/config') as typeof import('@n8n/config');
const { Logger } = coreRequire('@n8n/backend-common') as typeof import('@n8n/backend-common');

/**
 * What n8n-core and n8n-workflow logged (any level, also when silent), as text: the newest lines,
 * for leak scans.
 */
const logged = { lines: [] as string[], dropped: 0 };

/** A position in the log, for `logSince`. */
export const logPosition = () => logged.dropped + logged.lines.length;

/** Log lines written since `position` (those still kept). */
export const logSince = (position: number) =>
	logged.lines.slice(Math.max(0, position - logged.dropped));

type LogMethod = (message: string, metadata?: Record<string, unknown>) => void;
type LevelLogger = Record<'error' | 'warn' | 'info' | 'debug', LogMethod>;

/** The real logger (which prints per N8N_LOG_LEVEL), with each call also kept as text. */
function capturingLogger(real: LevelLogger) {
	const at =
		(level: keyof LevelLogger): LogMethod =>
		(message, metadata = {}) => {
			logged.lines.push(`${level}: ${capturedText(message, metadata)}`);
			if (logged.lines.length > 1000) logged.dropped += logged.lines.splice(0, 500).length;
			real[level](message, metadata);
		};
	const logger = {
		error: at('error'),
		warn: at('warn'),
		info: at('info'),
		debug: at('debug'),
		scoped: () => logger,
	};
	return logger;
}

let servicesReady = false;

/**
 * The DI services n8n-core reaches for. Built from defaults on first use: Logger, ErrorReporter,
 * OutboundHttp (the real HTTP client; SSRF protection is off by default), ExecutionContextService.
 * Two set up here:
 * - InstanceSettings would write an encryption key to ~/.n8n/config; the stand-in has what the
 *   contexts read (instance id, HMAC secret for resume URLs, role). Nothing is encrypted here.
 * - The log level is 'silent' unless N8N_LOG_LEVEL is set: the ErrorReporter logs every node
 *   error with its stack, also the expected ones.
 */
export function ensureEngineServices() {
	if (servicesReady) return;
	Container.set(InstanceSettings, {
		instanceId: 'engine-harness',
		hmacSignatureSecret: 'engine-harness',
		instanceType: 'main',
		instanceRole: 'leader',
		isLeader: true,
		isFollower: false,
		n8nFolder: '/nonexistent/engine-harness',
	} as unknown as InstanceSettings);
	if (!process.env.N8N_LOG_LEVEL) Container.get(GlobalConfig).logging.level = 'silent';
	// Set before any service resolves the Logger, so the ErrorReporter's lines are kept too.
	const logger = capturingLogger(Container.get(Logger));
	Container.set(Logger, logger as unknown as InstanceType<typeof Logger>);
	LoggerProxy.init(logger);
	servicesReady = true;
}

export type AnyNodeType = INodeType | IVersionedNodeType;

/** Type name of the harness's start node. */
export const START_NODE_TYPE = 'engineHarness.start';

/** Pass-through start node: the items put on the execution stack for it are its output. */
class StartNode implements INodeType {
	description = {
		displayName: 'Start',
		name: 'start',
		group: ['input'],
		version: 1,
		description: 'Feeds the input items',
		defaults: { name: 'Start' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	} satisfies INodeTypeDescription;

	async execute(this: IExecuteFunctions) {
		return [this.getInputData()];
	}
}

/** INodeTypes over a fixed map, plus the start node. */
export class NodeTypeRegistry implements INodeTypes {
	private readonly types = new Map<string, AnyNodeType>([[START_NODE_TYPE, new StartNode()]]);

	constructor(types: Record<string, AnyNodeType> = {}) {
		for (const [name, type] of Object.entries(types)) this.types.set(name, type);
	}

	getByName(name: string): AnyNodeType {
		const type = this.types.get(name);
		if (!type) throw new Error(`Unknown node type "${name}"`);
		return type;
	}

	getByNameAndVersion(name: string, version?: number): INodeType {
		const type = this.getByName(name);
		return 'nodeVersions' in type ? type.getNodeType(version) : type;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** The description of a (possibly versioned) node type at a version. */
export function describeNodeType(type: AnyNodeType, version?: number) {
	return 'nodeVersions' in type ? type.getNodeType(version).description : type.description;
}

/** The version a node runs at when none is given: the type's default, else its latest. */
export function defaultVersion(type: AnyNodeType): number {
	if ('nodeVersions' in type) return type.currentVersion;
	const { version } = type.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

export interface NodeUnderTest {
	nodeType: AnyNodeType;
	/** Registered type name; `node.type` in the workflow. */
	type: string;
	/** As saved in a workflow; expressions start with '='. IDataObject accepted for convenience. */
	parameters?: INodeParameters | IDataObject;
	typeVersion?: number;
	credentials?: CredentialStore;
	/**
	 * `node.credentials` as saved in a workflow; default: the store's first credential per declared
	 * type.
	 */
	nodeCredentials?: INodeCredentials;
	onError?: INode['onError'];
	/** Node Settings as a user sets them: Retry On Fail (tries, wait), Execute Once. */
	settings?: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'executeOnce'>;
	/**
	 * The workflow's static data as n8n loads it for a run (changed in place by the run, as n8n
	 * saves it after a run that is not a manual one); a new, empty one when not given.
	 */
	workflowStaticData?: IDataObject;
	name?: string;
	/** The workflow's time zone (Settings > Timezone); unset: n8n's default, America/New_York. */
	timezone?: string;
}

export const NODE_NAME = 'Node under test';

/** The node as a workflow would hold it (parameters as saved: defaults are not filled in). */
export function buildNode(options: NodeUnderTest): INode {
	const typeVersion = options.typeVersion ?? defaultVersion(options.nodeType);
	const declared = (describeNodeType(options.nodeType, typeVersion).credentials ?? []).map(
		(c) => c.name,
	);
	const credentials = options.nodeCredentials ?? options.credentials?.nodeCredentials(declared);
	return {
		id: 'node-under-test',
		name: options.name ?? NODE_NAME,
		type: options.type,
		typeVersion,
		position: [200, 0],
		parameters: (options.parameters ?? {}) as INodeParameters,
		...(credentials && Object.keys(credentials).length ? { credentials } : {}),
		...(options.onError ? { onError: options.onError } : {}),
		...options.settings,
	};
}

/** A workflow of the node under test, fed by the start node when `withStart`. */
export function buildWorkflow(options: NodeUnderTest, withStart: boolean) {
	const node = buildNode(options);
	const start: INode = {
		id: 'start',
		name: 'Start',
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const connections: IConnections = withStart
		? { [start.name]: { main: [[{ node: node.name, type: 'main', index: 0 }]] } }
		: {};
	const workflow = new Workflow({
		id: 'engine-harness',
		name: 'Engine harness',
		nodes: withStart ? [start, node] : [node],
		connections,
		active: false,
		nodeTypes: new NodeTypeRegistry({ [options.type]: options.nodeType }),
		settings: {
			executionOrder: 'v1',
			...(options.timezone === undefined ? {} : { timezone: options.timezone }),
		},
		staticData: options.workflowStaticData,
	});
	return { workflow, node: workflow.getNode(node.name)!, start: workflow.getNode(start.name) };
}

/**
 * The `additionalData` an execution gets from n8n's CLI, cut to the fields n8n-core reads on the
 * paths we use (found by reading it; n8n's own harness passes a deep mock instead). Sub-workflows
 * and task runners throw: a node reaching them fails loudly rather than getting a mock's undefined.
 */
export function buildAdditionalData(
	credentialsHelper: CredentialStore | undefined,
	extra: {
		hooks?: ExecutionLifecycleHooks;
		currentNodeParameters?: INodeParameters;
		mode?: WorkflowExecuteMode;
	} = {},
): IWorkflowExecuteAdditionalData {
	ensureEngineServices();
	const unsupported = (what: string) => () => {
		throw new Error(`engine harness: ${what} is not supported`);
	};
	const base = 'http://localhost:5678';
	// A new id per run, as n8n gives: the node keeps what it must per execution (retryGuard.ts).
	const executionId = `harness-${randomUUID()}`;
	return {
		// Without a store, credential access fails as in n8n with nothing saved.
		credentialsHelper: credentialsHelper ?? new CredentialStore([]),
		// Contexts call hooks (e.g. sendMessageToUI); without handlers they do nothing.
		hooks:
			extra.hooks ?? new ExecutionLifecycleHooks(extra.mode ?? 'manual', executionId, {} as never),
		executionId,
		currentNodeExecutionIndex: 0,
		currentNodeParameters: extra.currentNodeParameters,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		variables: {},
		executeWorkflow: unsupported('executeWorkflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: unsupported('startRunnerTask'),
	} as unknown as IWorkflowExecuteAdditionalData;
}
