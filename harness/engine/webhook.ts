import {
	createServer,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { parse as parseForm } from 'node:querystring';

import { HookContext, WebhookContext } from 'n8n-core';
import {
	ObservableObject,
	type IDataObject,
	type INodeExecutionData,
	type INodeType,
	type IWebhookData,
	type IWebhookResponseData,
	type WorkflowActivateMode,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { expectNoLeak, leakChecked } from '../secrets';
import {
	buildAdditionalData,
	buildWorkflow,
	describeNodeType,
	type NodeUnderTest,
} from './runtime';

/**
 * A trigger node's webhook() behind a real loopback HTTP server, handed each request the way
 * n8n 2.40 does it for a production webhook (read in packages/cli/src: abstract-server.ts,
 * middlewares/body-parser.ts, webhooks/live-webhooks.ts, webhooks/webhook-helpers.ts):
 * - the raw bytes are read into `req.rawBody`, `req.contentType` / `req.encoding` come from the
 *   Content-Type header; the body is then parsed by type (JSON only for application/json;
 *   malformed JSON is answered 422 by n8n and the node never runs). Above version 1 a body whose
 *   type n8n does not parse is not read at all: the node calls `req.readRawBody()` for it;
 * - the node runs in n8n-core's WebhookContext on a fresh Workflow built from the saved static
 *   data, which is saved again only when the node changed it, did not throw, and answered the
 *   sender itself (below);
 * - a result with `noWebhookResponse` leaves the answer to the node; its `workflowData` starts a
 *   run after that answer. `workflowData` without it is answered in responseMode onReceived only
 *   once n8n has created the run (2.40's `shouldDeferOnReceivedResponse`; 1.x answered first):
 *   200 with the description's `responseData` as text (n8n's default is the very text
 *   "firstEntryJson"), or empty for 'noData' (webhook-on-received-response-extractor.ts); 500
 *   when creating the run failed. The runner then builds a second Workflow over the same static
 *   data, which clears its changed flag, so what webhook() changed is not saved
 *   (live-webhooks.ts saves it in the answer's callback). A run is recorded here, not run;
 *   `createRun` is n8n creating or queueing it: a test makes it slow or fail;
 * - `webhookResponse` alone is sent with 200 (objects as JSON); a throw is answered 500.
 */

export interface WebhookCall {
	headers: IncomingHttpHeaders;
	/** The body as received. */
	raw: string;
	/** The answer sent to the caller. */
	status: number;
	response: string;
	/** From the last byte received to the answer. */
	durationMs: number;
	/** The items of the run n8n created (undefined: nothing started). */
	workflowData?: INodeExecutionData[][];
	/** What webhook() threw, if it did. */
	error?: Error;
	/** Why n8n could not create the run the node asked for, if it could not. */
	runError?: Error;
}

export interface WebhookTriggerOptions extends NodeUnderTest {
	/** 'webhook' for a production URL (default), 'manual' for a test URL. */
	mode?: WorkflowExecuteMode;
	/** The workflow's static data as saved in the database, e.g. from a previous instance. */
	staticData?: IDataObject;
	/** Distinct per workflow, as in n8n; default: a fresh id per instance. */
	workflowId?: string;
}

let instances = 0;

const dbTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * What n8n stores for `workflow.staticData` (a JSON column): a plain copy without the change
 * marker.
 */
const plain = (data: IDataObject): IDataObject => {
	const copy = JSON.parse(JSON.stringify(data)) as IDataObject;
	delete copy.__dataChanged;
	return copy;
};

function contentTypeOf(req: IncomingMessage) {
	const header = req.headers['content-type'];
	if (!header) return;
	const [type, ...parameters] = header.split(';');
	req.contentType = type.toLowerCase();
	const charset = parameters
		.map((p) => p.trim().split('='))
		.find(([key]) => key.toLowerCase() === 'charset')?.[1];
	req.encoding = (charset ?? 'utf-8').toLowerCase() as BufferEncoding;
}

/** webhook-helpers.ts isParsableContentType: what n8n parses for a node above version 1. */
const parsable = (contentType?: string) =>
	!!contentType &&
	['application/json', 'text/plain', 'application/x-www-form-urlencoded'].some((type) =>
		contentType.startsWith(type),
	);

/** n8n's parseBody; throws what n8n would answer. */
function parseBody(req: IncomingMessage & { body?: unknown }) {
	const { rawBody, contentType, encoding } = req;
	if (
		contentType?.startsWith('multipart/') ||
		contentType?.endsWith('/xml') ||
		contentType?.endsWith('+xml')
	) {
		throw new Error(`engine harness: ${contentType} bodies are not supported`);
	}
	if (!rawBody.length) return;
	const text = rawBody.toString(encoding).replace(/^\uFEFF/, '');
	if (contentType === 'application/json') {
		try {
			req.body = JSON.parse(text);
		} catch (error) {
			throw Object.assign(new Error('Failed to parse request body'), {
				status: 422,
				hint: (error as Error).message,
			});
		}
	} else if (contentType === 'application/x-www-form-urlencoded') {
		req.body = parseForm(text);
	} else if (contentType === 'text/plain') {
		req.body = text;
	}
}

export class WebhookTrigger {
	private readonly answered: WebhookCall[] = [];
	/**
	 * A secret found in an answer, execution or static data: raised by the next read of the trigger
	 * and by close().
	 */
	private leak?: Error;
	/** The static data as n8n would have saved it after the last request. */
	staticData: IDataObject;
	readonly workflowId: string;
	private readonly sockets = new Set<Socket>();
	/**
	 * n8n creating the run (in the database, or queued in Redis): throw to make it fail, wait to
	 * make it slow.
	 */
	createRun: (call: Pick<WebhookCall, 'headers' | 'raw'>) => Promise<void> = async () => {};

	private constructor(
		private options: WebhookTriggerOptions,
		private readonly server: Server,
		readonly url: string,
	) {
		this.staticData = plain(options.staticData ?? {});
		this.workflowId = options.workflowId ?? `engine-harness-webhook-${++instances}`;
		server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
		server.on('request', (req, res) => void this.handle(req, res));
	}

	static async start(options: WebhookTriggerOptions): Promise<WebhookTrigger> {
		const server = createServer();
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(0, '127.0.0.1', resolve);
		});
		const address = server.address();
		if (!address || typeof address !== 'object') throw new Error('webhook trigger has no address');
		const path = describeNodeType(options.nodeType).webhooks?.[0]?.path ?? '';
		return new WebhookTrigger(
			options,
			server,
			`http://127.0.0.1:${address.port}/webhook/engine-harness/${path}`,
		);
	}

	/**
	 * Changes the node (parameters, credentials) for the requests still to come, as a saved edit
	 * would.
	 */
	configure(changes: Partial<NodeUnderTest>) {
		this.options = { ...this.options, ...changes };
	}

	/** Every request answered so far, in order. */
	get calls(): WebhookCall[] {
		this.raiseLeak();
		return this.answered;
	}

	/** The items of each execution started so far (main output 0). */
	get executions(): INodeExecutionData[][] {
		return this.calls
			.filter((call) => call.workflowData)
			.map((call) => call.workflowData![0] ?? []);
	}

	/** Waits (bounded, polling every few ms) until `count` requests have been answered. */
	async waitForCalls(count: number, timeoutMs = 5000): Promise<WebhookCall[]> {
		const deadline = Date.now() + timeoutMs;
		while (this.calls.length < count) {
			if (Date.now() > deadline)
				throw new Error(
					`webhook trigger: expected ${count} request(s), ` +
						`got ${this.calls.length} within ${timeoutMs} ms`,
				);
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		return this.calls;
	}

	async close(): Promise<void> {
		this.sockets.forEach((socket) => socket.destroy());
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.raiseLeak();
	}

	private raiseLeak() {
		if (this.leak) throw this.leak;
	}

	private async handle(req: IncomingMessage, res: ServerResponse) {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const raw = Buffer.concat(chunks);
		const receivedAt = performance.now();
		// The final end() is held until the call is recorded, so a caller that has its answer
		// finds the call in `calls`; status and body are what the node or n8n wrote.
		const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
		let ended: unknown[] | undefined;
		res.end = ((...args: unknown[]) => {
			ended ??= args;
			return res;
		}) as ServerResponse['end'];
		// As Express sends it: text as HTML, anything else as JSON, undefined as an empty body.
		const answer = (status: number, body: unknown) => {
			if (ended) return;
			const text = typeof body === 'string';
			res.writeHead(status, {
				'content-type': text ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
			});
			res.end(body === undefined ? '' : text ? body : JSON.stringify(body));
		};

		const call: Omit<WebhookCall, 'status' | 'response' | 'durationMs'> = {
			headers: req.headers,
			raw: raw.toString('utf8'),
		};
		const started = async (workflowData: INodeExecutionData[][]) => {
			try {
				await dbTurn();
				await this.createRun(call);
				call.workflowData = workflowData;
				return true;
			} catch (error) {
				call.runError = error as Error;
				return false;
			}
		};
		try {
			const result = await this.run(req, res, raw);
			if (result.noWebhookResponse === true) {
				if (result.workflowData) await started(result.workflowData);
			} else if (!result.workflowData) {
				answer(200, result.webhookResponse ?? { message: 'Webhook call received' });
			} else if (await started(result.workflowData)) {
				answer(200, this.startedAnswer(result));
			} else {
				answer(500, { code: 0, message: 'There was a problem executing the workflow' });
			}
		} catch (error) {
			const { status, hint } = error as { status?: number; hint?: string };
			if (status) answer(status, { code: status, message: (error as Error).message, hint });
			else {
				call.error = error as Error;
				answer(500, { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' });
			}
		}
		const body = ended?.[0];
		const response = typeof body === 'string' || Buffer.isBuffer(body) ? String(body) : '';
		const answered = {
			...call,
			status: res.statusCode,
			response,
			durationMs: performance.now() - receivedAt,
		};
		try {
			// What left the trigger: the answer, the execution's items, the error, the saved static data.
			const { status, workflowData, error } = answered;
			expectNoLeak(
				`webhook call ${this.answered.length + 1}`,
				[{ status, response, workflowData, error, staticData: this.staticData }],
				this.options.credentials?.secrets(),
			);
		} catch (leak) {
			this.leak ??= leak as Error;
		}
		this.answered.push(answered);
		end(...(ended ?? []));
	}

	/**
	 * n8n's extractWebhookOnReceivedResponse, for a `responseData` that is plain text (no
	 * expression).
	 */
	private startedAnswer(result: IWebhookResponseData): unknown {
		const { responseData = 'firstEntryJson' } = describeNodeType(this.options.nodeType)
			.webhooks![0];
		if (responseData === 'noData') return undefined;
		return responseData || (result.webhookResponse ?? { message: 'Workflow was started' });
	}

	private async run(
		req: IncomingMessage,
		res: ServerResponse,
		raw: Buffer,
	): Promise<IWebhookResponseData> {
		const request = req as IncomingMessage & { body?: unknown; params: object; query: object };
		contentTypeOf(request);
		// middlewares/body-parser.ts rawBodyReader: the bytes are read on demand, once.
		request.readRawBody = async () => {
			request.rawBody ??= raw;
		};
		request.params = {};
		request.query = Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams);

		const mode = this.options.mode ?? 'webhook';
		const { workflow, node } = buildWorkflow(this.options, false);
		// webhook-helpers.ts parseRequestBody: above version 1, a body of another type is left unread.
		if (node.typeVersion === 1 || parsable(request.contentType)) {
			await request.readRawBody();
			parseBody(request);
		}
		workflow.id = this.workflowId;
		workflow.staticData = ObservableObject.create(plain(this.staticData), undefined, {
			ignoreEmptyOnFirstChild: true,
		});
		// n8n reads the workflow from the database for each request, and records the execution
		// before saving: requests handled at once interleave there. A turn of the event loop each.
		await dbTurn();
		const additionalData = buildAdditionalData(this.options.credentials, { mode });
		additionalData.httpRequest = request as never;
		additionalData.httpResponse = res as never;
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: this.url,
			webhookDescription: describeNodeType(this.options.nodeType, node.typeVersion).webhooks![0],
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
		};
		const nodeType = workflow.nodeTypes.getByNameAndVersion(
			node.type,
			node.typeVersion,
		) as INodeType;
		const context = new WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
		const result = await nodeType.webhook!.call(context);
		// live-webhooks.ts saves changed static data once the answer is settled, in webhook mode only;
		// an answer n8n defers until the run exists finds the flag cleared by then.
		await dbTurn();
		const deferred = result.workflowData !== undefined && result.noWebhookResponse !== true;
		if (mode === 'webhook' && workflow.staticData.__dataChanged === true && !deferred)
			this.staticData = plain(workflow.staticData);
		return result;
	}
}

/**
 * Calls one of `webhookMethods.default` (checkExists, create, delete) in n8n-core's HookContext, as
 * activation does.
 */
export async function callWebhookMethod(
	options: NodeUnderTest,
	method: 'checkExists' | 'create' | 'delete',
	activation: WorkflowActivateMode = 'activate',
): Promise<boolean | undefined> {
	const { workflow, node } = buildWorkflow(options, false);
	const additionalData = buildAdditionalData(options.credentials, { mode: 'webhook' });
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion) as INodeType;
	const fn = nodeType.webhookMethods?.default?.[method];
	if (!fn) throw new Error(`${node.type} has no webhookMethods.default.${method}`);
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: 'engine-harness',
		webhookDescription: describeNodeType(options.nodeType, node.typeVersion).webhooks![0],
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
	};
	return await leakChecked(
		`webhookMethods.${method}`,
		options.credentials,
		async () =>
			await fn.call(
				new HookContext(workflow, node, additionalData, 'webhook', activation, webhookData),
			),
	);
}
