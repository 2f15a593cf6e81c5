/**
 * The credential as the transport uses it: API address, language, secrets to blank out, token
 * renewal state.
 */
import {
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
	type IWebhookFunctions,
} from 'n8n-workflow';

import {
	apiUrl,
	identityOf,
	insecureBaseUrl,
	LANGUAGE_CODE,
	originOf,
	tokenBound,
} from './connection';

export type ApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IPollFunctions
	| IHookFunctions
	| IWebhookFunctions;

export const CREDENTIAL_TYPE = 'publicEventsApi';

export interface Target {
	apiUrl: string;
	/** The only origin the token is sent to. */
	origin: string;
	/** The service's clock minus this machine's (ms), from the Date header of its latest answer. */
	serviceOffsetMs?: number;
	language: string;
	/**
	 * Blanked out of error texts: a service may echo the key bare, where no field name gives it away.
	 */
	secrets: string[];
	/** The credential as n8n gave it; n8n's preAuthentication writes a renewed token into it. */
	credentials: ICredentialDataDecryptedObject;
	/**
	 * The latest token renewal (settled once done) and how many started: requests wait for one under
	 * way.
	 */
	renewal?: Promise<unknown>;
	renewals: number;
	/**
	 * Until when (epoch ms) the service asked, with a 429's Retry-After, to send nothing: every
	 * request of the run waits.
	 */
	quietUntil: number;
	/** This process's token for the credential, shared by every execution the process runs. */
	shared: ProcessToken;
	/** When (in renewal order) the credential was read: only tokens renewed later are taken over. */
	readAt: number;
}

/**
 * n8n has no lock around preAuthentication: executions running at once (a queue-mode worker
 * runs several, and so does a main process with webhooks) that find no token, or a refused one,
 * would each fetch one. Within one process they share this: the first renews, the others wait
 * for it and take its token. Across processes n8n's stored credential is the only link.
 */
export interface ProcessToken {
	token?: string;
	/** When (in renewal order) `token` came. */
	tokenAt: number;
	/** Tokens the service refused (401): never taken over again. */
	refused: Set<string>;
	renewing?: Promise<unknown>;
}

const processTokens = new Map<string, ProcessToken>();
/** Orders credential reads and renewals in this process. */
let clock = 0;
export const tick = () => ++clock;
const REFUSED_KEPT = 20;

/** Per credential and identity (address, key, environment, language): an edit starts afresh. */
function processTokenOf(
	context: ApiContext,
	credentials: ICredentialDataDecryptedObject,
): ProcessToken {
	const id = context.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? '';
	const key = `${id}\n${identityOf(credentials)}`;
	let shared = processTokens.get(key);
	if (!shared) processTokens.set(key, (shared = { refused: new Set(), tokenAt: 0 }));
	return shared;
}

export function refuseToken(shared: ProcessToken, token: string): void {
	shared.refused.add(token);
	if (shared.refused.size > REFUSED_KEPT)
		shared.refused.delete(shared.refused.values().next().value as string);
}

/**
 * This process's token, if a run may take it over: renewed after the run read its credential (an
 * older one is in n8n's stored credential already, or was replaced there), and not refused.
 */
export function processTokenFor(target: Target): string | undefined {
	const { token, refused, tokenAt } = target.shared;
	return token && !refused.has(token) && tokenAt > target.readAt ? token : undefined;
}

/**
 * Adds a credential value to those blanked out of errors (a token renewed mid-run, one taken over).
 */
export function keepSecret(target: Target, value: unknown): void {
	if (typeof value === 'string' && value !== '' && !target.secrets.includes(value))
		target.secrets.push(value);
}

/**
 * Reads the service's own time from an answer's Date header (whole seconds: the middle of that
 * second is taken).
 */
export function noteServiceTime(target: Target, headers: { date?: unknown } | undefined): void {
	const date = typeof headers?.date === 'string' ? Date.parse(headers.date) : NaN;
	if (!Number.isNaN(date)) target.serviceOffsetMs = date + 500 - Date.now();
}

/**
 * The service's current time (epoch ms) by the Date header of the latest answer this run got,
 * or undefined before any. A poll trusts it over this machine's clock for where records end.
 */
export async function serviceNow(context: ApiContext): Promise<number | undefined> {
	const { serviceOffsetMs } = await targetOf(context);
	return serviceOffsetMs === undefined ? undefined : Date.now() + serviceOffsetMs;
}

/**
 * Which service the credential speaks to: its API address and environment (not the key, so a
 * rotated key is the same service). What one order number means depends on it.
 */
export async function serviceOf(context: ApiContext): Promise<string> {
	const { apiUrl, credentials } = await targetOf(context);
	// One address however it is written (HTTP://Host:443/ is https://host).
	let url = apiUrl;
	try {
		const parsed = new URL(apiUrl);
		url = `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
	} catch {
		// Kept as written: the request itself says what is wrong with it.
	}
	return `${url} ${credentials.environment === 'staging' ? 'staging' : 'production'}`;
}

/** Takes this process's token when the run's own is missing or refused. */
export function adoptProcessToken(target: Target): void {
	const token = processTokenFor(target);
	const own = target.credentials.token;
	if (
		!token ||
		token === own ||
		(typeof own === 'string' && own !== '' && !target.shared.refused.has(own))
	)
		return;
	target.credentials.token = token;
	keepSecret(target, token);
}

// The credential is read once per node run (per poll for a poll trigger), not once per page.
const targets = new WeakMap<object, Promise<Target>>();
/** The service's clock as a context's last target saw it, kept when its credential is re-read. */
const clocks = new WeakMap<object, number>();

/**
 * n8n builds a poll trigger's context once per activation and polls with it until the workflow
 * is unpublished; it does not re-activate on a credential edit. Each poll reads the credential
 * again here, so a key (or Base URL, environment, language) saved since is what the poll uses.
 */
export async function rereadCredential(context: ApiContext): Promise<void> {
	const old = targets.get(context);
	if (!old) return;
	targets.delete(context);
	const offset = (await old.catch(() => undefined))?.serviceOffsetMs;
	if (offset !== undefined) clocks.set(context, offset);
}

export function targetOf(context: ApiContext): Promise<Target> {
	let target = targets.get(context);
	if (!target) {
		target = context.getCredentials(CREDENTIAL_TYPE).then((credentials) => {
			const language = String(credentials.language ?? '').trim();
			if (language !== '' && !LANGUAGE_CODE.test(language)) {
				throw new NodeOperationError(
					context.getNode(),
					`The credential's Default Language must be a language ` +
						`code such as en or pt-BR, got "${language.slice(0, 40)}"`,
				);
			}
			const url = apiUrl(credentials.baseUrl);
			const insecure = insecureBaseUrl(url, credentials.environment);
			if (insecure)
				throw new NodeOperationError(context.getNode(), `The credential's Base URL: ${insecure}`);
			const secrets = [credentials.apiKey, credentials.token].filter(
				(v): v is string => typeof v === 'string' && v !== '',
			);
			// A token goes only where, and as whom, it was issued: after the Base URL, key, environment
			// or language was edited, the stored one is not sent; n8n's preAuthentication fetches one
			// for the credential as saved first.
			if (!tokenBound(credentials)) credentials.token = '';
			return {
				apiUrl: url,
				origin: originOf(url),
				language,
				secrets,
				credentials,
				renewals: 0,
				quietUntil: 0,
				shared: processTokenOf(context, credentials),
				readAt: tick(),
				serviceOffsetMs: clocks.get(context),
			};
		});
		targets.set(context, target);
	}
	return target;
}
