/**
 * Shared by the Public Events Trigger suites: credentials, triggers behind the engine harness, raw
 * POSTs.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { request } from 'undici';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { PublicEventsWebhookApi } from '../../credentials/PublicEventsWebhookApi.credentials';
import { PublicEventsTrigger } from '../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import { CredentialStore, WebhookTrigger, type WebhookTriggerOptions } from '../engine';
import type { SandboxInit } from '../../sandbox';
import { FIRST_RETRY, SECRET, signAt, subscribe } from '../sandbox/push';
import type { SandboxClient } from '../sandbox/client';
import { sandboxSuite } from '../sandbox/suite';

export const TRIGGER_TYPE = 'CUSTOM.publicEventsTrigger';
export const SIGNED = { authentication: 'signature' };
/** Header Token under the default header name; deliveries carry TOKEN_HEADER. */
export const TOKEN = { authentication: 'headerToken' };
export const TOKEN_HEADER = { 'x-webhook-token': SECRET };
/** Security None: every delivery is checked with the API. */
export const NONE = { authentication: 'none' };

/** Credential 1: the webhook secret; credential 2: the API key of the sandbox's partner. */
export function triggerCredentials(sb: SandboxClient, secret = SECRET) {
	const store = new CredentialStore([new PublicEventsApi(), new PublicEventsWebhookApi()]);
	store.add('publicEventsWebhookApi', { secret });
	store.add('publicEventsApi', {
		environment: 'staging',
		baseUrl: sb.sandbox.baseUrl,
		apiKey: sb.keys.partner,
	});
	return store;
}

/** Triggers started by a suite, closed together after each test. */
export class Triggers {
	private readonly started: WebhookTrigger[] = [];

	constructor(private readonly sandbox: () => SandboxClient) {}

	async start(
		parameters: INodeParameters,
		extra: Partial<WebhookTriggerOptions> & { secret?: string } = {},
	) {
		const { secret, ...options } = extra;
		const trigger = await WebhookTrigger.start({
			nodeType: new PublicEventsTrigger(),
			type: TRIGGER_TYPE,
			parameters,
			credentials: triggerCredentials(this.sandbox(), secret),
			...options,
		});
		this.started.push(trigger);
		return trigger;
	}

	/**
	 * A trigger the sandbox pushes to, signed with SECRET (the trigger checks with `secret`, SECRET
	 * by default).
	 */
	async subscribed(
		parameters: INodeParameters,
		extra: { secret?: string; subscription?: IDataObject; typeVersion?: number } = {},
	) {
		const trigger = await this.start(parameters, {
			secret: extra.secret,
			typeVersion: extra.typeVersion,
		});
		const subscription = await subscribe(this.sandbox(), {
			url: trigger.url,
			secret: SECRET,
			...extra.subscription,
		});
		return { trigger, subscription };
	}

	closeAll() {
		return Promise.all(this.started.splice(0).map((trigger) => trigger.close()));
	}
}

/** A sandbox that pushes to the triggers subscribed: retries FIRST_RETRY apart, 5 attempts. */
export const pushSandbox = (events: number): SandboxInit => ({
	events,
	placesPerEvent: 40,
	push: { retryBaseMs: FIRST_RETRY, maxAttempts: 5 },
});

/**
 * One sandbox per suite and the triggers its tests start. After each test: the sandbox's
 * subscriptions deleted, `reset` run, the triggers closed.
 */
export function triggerSuite(init: SandboxInit, reset?: (sb: SandboxClient) => Promise<unknown>) {
	const sb = sandboxSuite(init);
	const triggers = new Triggers(sb);
	afterEach(async () => {
		await sb().admin('DELETE', '/webhooks');
		await reset?.(sb());
		await triggers.closeAll();
	});
	return { sb, triggers };
}

/** A POST as another sender would make it: JSON content type unless told otherwise. */
export async function post(url: string, body: string, headers: Record<string, string> = {}) {
	const res = await request(url, {
		method: 'POST',
		body,
		headers: { 'content-type': 'application/json', ...headers },
	});
	return { status: res.statusCode, text: await res.body.text() };
}

/**
 * A POST signed with SECRET over `<t>.<body>`, t now on this machine's clock unless `atMs` is
 * given.
 */
export const postSigned = (
	url: string,
	body: string,
	headers: Record<string, string> = {},
	atMs?: number,
) => post(url, body, { 'x-signature': signAt(SECRET, body, atMs), ...headers });
