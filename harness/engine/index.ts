/**
 * Runs our nodes inside n8n's real execution engine (n8n-core), with real HTTP to the sandbox.
 * One module per kind of context, all on the shared runtime in ./engine/runtime.ts:
 * - execute.ts: `runNode`, a Start -> node workflow through WorkflowExecute;
 * - loadOptions.ts: listSearch / loadOptions methods through LoadOptionsContext;
 * - credentials.ts: `CredentialStore`, the in-memory ICredentialsHelper all of them use.
 * Poll (PollContext) and webhook (WebhookContext) helpers go next to these, built the same way:
 * `buildWorkflow(options, false)` + `buildAdditionalData(store)` + the context class.
 */
export { CredentialStore, type PreAuthCall } from './credentials';
export { runNode, type RunNodeOptions, type RunNodeResult } from './execute';
export {
	callListSearch,
	callLoadOptions,
	loadOptionsContext,
	type LoadOptionsCall,
} from './loadOptions';
export { DurablePollSession, PollSession, runPoll, type PollCall, type PollResult } from './poll';
export {
	callWebhookMethod,
	WebhookTrigger,
	type WebhookCall,
	type WebhookTriggerOptions,
} from './webhook';
export {
	runWorkflow,
	type Link,
	type RunWorkflowOptions,
	type RunWorkflowResult,
	type WorkflowNode,
} from './workflow';
export {
	buildAdditionalData,
	buildNode,
	buildWorkflow,
	ensureEngineServices,
	NodeTypeRegistry,
	NODE_NAME,
	type NodeUnderTest,
} from './runtime';
