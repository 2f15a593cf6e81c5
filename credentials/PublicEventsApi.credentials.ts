import type {
	IAuthenticateGeneric,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';

/** `{base}/api/v2` whatever the user typed: with or without the version, trailing slashes. */
export function apiUrl(baseUrl: unknown): string {
	const base = String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	return /\/api\/v2$/.test(base) ? base : `${base}/api/v2`;
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Why the key must not go to this address, if it must not: in production the key and the token
 * travel only over https. Staging, and a service on this machine, may use http.
 */
export function insecureBaseUrl(url: string, environment: unknown): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return undefined; // The request itself says what is wrong with it.
	}
	if (parsed.protocol !== 'http:' || environment === 'staging' || LOOPBACK.test(parsed.hostname))
		return undefined;
	return "Production needs an https:// address: over http the API key and the token travel in clear. Use the service's https address (or set Environment to Staging for a test service).";
}

/** A language code as X-API-Language takes it (en, de, pt-BR); it becomes a header, so nothing else passes. */
export const LANGUAGE_CODE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,4}$/;

export class PublicEventsApi implements ICredentialType {
	name = 'publicEventsApi';

	displayName = 'Public Events API';

	icon = {
		light: 'file:../nodes/PublicEvents/publicEvents.svg',
		dark: 'file:../nodes/PublicEvents/publicEvents.dark.svg',
	} as const;

	documentationUrl = 'https://github.com/public-events/n8n-nodes-public-events#credentials';

	// Not offered as its own "Public Events — HTTP request" entry in the node creator, where it
	// came before the Public Events node and was empty. The HTTP Request node still lists this
	// credential under Predefined Credential Type: it has `authenticate`.
	httpRequestNode = {
		name: 'Public Events',
		hidden: true,
		docsUrl: 'https://github.com/public-events/n8n-nodes-public-events#credentials',
		apiBaseUrlPlaceholder: 'https://tickets.example.com/api/v2/event-points',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Production', value: 'production', description: 'Real events and sales' },
				{ name: 'Staging', value: 'staging', description: 'Test events, free orders' },
			],
			default: 'production',
			description:
				'Which environment the key was issued for. It does not change where requests go (the Base URL does): Production requires an https:// Base URL, Staging also accepts http://, and errors about a refused key name the environment. Each environment has its own key and address: a staging key is refused in production.',
			hint: 'Sets no address: the Base URL below decides which service is called',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://tickets.example.com',
			hint: 'The address the Public Events service gave your company with the API key (staging and production have different ones)',
			description:
				'Address of the service for this environment. "/api/v2" is added unless the address already ends with it.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Key issued to your company for this environment; exchanged for a 24-hour token',
		},
		{
			displayName: 'Default Language',
			name: 'language',
			type: 'string',
			default: '',
			placeholder: 'en',
			description:
				'Language code sent as X-API-Language for names and descriptions. Leave empty for the service default. A node option can override it.',
		},
		{
			displayName: 'Token',
			name: 'token',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	// n8n calls this when `token` is empty and again after a 401, then stores the result in
	// the credential: one /token request per 24 h, not one per execution.
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const url = `${apiUrl(credentials.baseUrl)}/token`;
		const insecure = insecureBaseUrl(url, credentials.environment);
		if (insecure) throw new Error(`Base URL: ${insecure}`);
		let response: IDataObject;
		try {
			response = (await this.helpers.httpRequest({
				method: 'POST',
				url,
				body: { apiKey: credentials.apiKey },
				json: true,
				// A redirect would carry the key to wherever it points.
				disableFollowRedirect: true,
			})) as IDataObject;
		} catch (error) {
			// A fresh error: the original carries the request, and with it the key.
			throw new Error(tokenFailure(error, url, credentials.environment));
		}
		if (typeof response?.token !== 'string' || response.token === '') {
			throw new Error(`POST ${url} answered without a "token" field: is the Base URL right?`);
		}
		return { token: response.token };
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: { Authorization: '=Bearer {{$credentials.token}}' },
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{$credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/(\\/api\\/v2)?$/, "/api/v2")}}',
			url: '/event-points',
			qs: { page: 1, itemsPerPage: 1 },
			// The token is not carried to wherever a redirect points: a redirect fails the test instead.
			disableFollowRedirect: true,
		},
	};
}

function tokenFailure(error: unknown, url: string, environment: unknown): string {
	const e = error as {
		httpCode?: string;
		status?: number;
		response?: { status?: number };
		code?: string;
	};
	const status = Number(e?.response?.status ?? e?.status ?? e?.httpCode) || undefined;
	const env = environment === 'staging' ? 'staging' : 'production';
	if (status !== undefined && status >= 300 && status < 400) {
		return `POST ${url} answered a redirect (${status}) instead of a token: the API key is not sent on to another address. Check the Base URL (the service's current https address).`;
	}
	if (status === 401 || status === 403) {
		return `The API key was refused by POST ${url} (${status}). Staging and production keys differ: check that this key was issued for ${env} and that the Base URL is the ${env} address.`;
	}
	if (status) return `POST ${url} failed with status ${status} while requesting a token`;
	return `Could not reach ${url} to request a token (${e?.code ?? 'network error'}): check the Base URL`;
}
