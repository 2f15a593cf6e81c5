/** The credential as the transport uses it: API address, language, secrets to blank out, token renewal state. */
import {
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { apiUrl, LANGUAGE_CODE } from '../../../credentials/PublicEventsApi.credentials';

export type ApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IPollFunctions
	| IHookFunctions
	| IWebhookFunctions;

export const CREDENTIAL_TYPE = 'publicEventsApi';

export interface Target {
	apiUrl: string;
	language: string;
	/** Blanked out of error texts: a service may echo the key bare, where no field name gives it away. */
	secrets: string[];
	/** The credential as n8n gave it; n8n's preAuthentication writes a renewed token into it. */
	credentials: ICredentialDataDecryptedObject;
	/** The latest token renewal (settled once done) and how many started: requests wait for one under way. */
	renewal?: Promise<unknown>;
	renewals: number;
	/** Until when (epoch ms) the service asked, with a 429's Retry-After, to send nothing: every request of the run waits. */
	quietUntil: number;
}

// The credential is read once per node run (per activation for a poll trigger), not once per page.
const targets = new WeakMap<object, Promise<Target>>();

export function targetOf(context: ApiContext): Promise<Target> {
	let target = targets.get(context);
	if (!target) {
		target = context.getCredentials(CREDENTIAL_TYPE).then((credentials) => {
			const language = String(credentials.language ?? '').trim();
			if (language !== '' && !LANGUAGE_CODE.test(language)) {
				throw new NodeOperationError(context.getNode(), `The credential's Default Language must be a language code such as en or pt-BR, got "${language.slice(0, 40)}"`);
			}
			return {
				apiUrl: apiUrl(credentials.baseUrl),
				language,
				secrets: [credentials.apiKey, credentials.token].filter((v): v is string => typeof v === 'string' && v !== ''),
				credentials,
				renewals: 0,
				quietUntil: 0,
			};
		});
		targets.set(context, target);
	}
	return target;
}
