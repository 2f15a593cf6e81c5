import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	apiKeyMistake,
	baseUrlMistake,
	STAGING_ADDRESS_SHOWN,
	TEST_KEY_SHOWN,
} from '../nodes/shared/credentialChecks';
import {
	apiUrl,
	issuedFor,
	originOf,
	shownUrl,
	requestOrigin,
	tokenBound,
	tokenFailure,
} from '../nodes/shared/transport';

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

	// Base URL and API Key are not `required`: n8n's dialog skips the test while a required field
	// is empty, and would save one empty without a word; the test names the empty field instead.
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
				'Which environment the key was issued for. It does not change where requests go ' +
				'(the Base URL does): Production requires an https:// Base URL, Staging also ' +
				'accepts http://, errors about a refused key name the environment, and the test ' +
				'fails when the service names the other environment in its token. Each ' +
				'environment has its own key and address: a staging key is refused in production.',
			hint: 'The environment your key was issued for. The address goes in Base URL below.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://tickets.example.com',
			hint:
				'The address the Public Events service gave your company with ' +
				'the API key (staging and production have different ones)',
			description:
				'Address of the service for this environment. "/api/v2" ' +
				'is added unless the address already ends with it.',
		},
		{
			displayName:
				'This address is named like a staging or test service, and Environment is ' +
				"Production. If it is the staging service's address, set Environment to Staging.",
			name: 'stagingAddressNotice',
			type: 'notice',
			default: '',
			displayOptions: {
				show: { environment: ['production'], baseUrl: STAGING_ADDRESS_SHOWN },
			},
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Key issued to your company for this environment; exchanged for a 24-hour token',
			hint:
				'The secret key the Public Events service sent your company for this environment. ' +
				'n8n keeps it encrypted; after saving, this field shows a placeholder.',
		},
		{
			displayName:
				'This key is named like a test key, and Environment is Production. Staging keys are ' +
				'refused in production: check which environment the service issued it for.',
			name: 'testKeyNotice',
			type: 'notice',
			default: '',
			displayOptions: {
				show: { environment: ['production'], apiKey: TEST_KEY_SHOWN },
			},
		},
		{
			displayName: 'Default Language',
			name: 'language',
			type: 'string',
			default: '',
			placeholder: 'en',
			hint: 'A language code such as en, de or pt-BR, not a language name',
			description:
				'The language the service answers event names and descriptions in. ' +
				'Leave empty for the service default. A node option can override it.',
		},
		{
			displayName: 'Token',
			name: 'token',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			// Where the token came from: it is sent to that origin only (authenticate below).
			displayName: 'Token Issued By',
			name: 'issuedBy',
			type: 'hidden',
			default: '',
		},
		{
			// Which key, environment and language the token was issued for (a digest, never the key):
			// n8n keeps the hidden token when the credential is edited, so an edit must unbind it.
			displayName: 'Token Issued For',
			name: 'issuedFor',
			type: 'hidden',
			default: '',
		},
	];

	// n8n calls this when `token` is empty and again after a 401, then stores the result in
	// the credential: one /token request per 24 h, not one per execution.
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const url = `${apiUrl(credentials.baseUrl)}/token`;
		// An empty or malformed field is named before anything is sent (none is marked required, so
		// that the dialog's test runs on an empty one).
		const mistake =
			baseUrlMistake(credentials.baseUrl, credentials.environment) ??
			apiKeyMistake(credentials.apiKey);
		if (mistake) throw new Error(mistake);
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
			throw new Error(
				`POST ${shownUrl(url)} answered without a "token" field: is the Base URL right?`,
			);
		}
		// n8n stores every field returned here with the credential: the token, where it came from and
		// what it was issued for.
		return {
			token: response.token,
			issuedBy: originOf(url),
			issuedFor: issuedFor(credentials, response.token),
		};
	}

	/**
	 * The token as a Bearer header, only on a request whose address is on the origin that issued it
	 * and while the credential holds what it was issued for (Base URL, key, environment, language).
	 * Otherwise no header goes out, also when the request's
	 * address cannot be read (fail closed: n8n hands over whatever options its caller built, such as
	 * the HTTP Request node's `uri`). The API answers 401 without it, and n8n calls preAuthentication
	 * for a token of the address now set before repeating the request.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const origin = originOf(apiUrl(credentials.baseUrl));
		if (!tokenBound(credentials) || requestOrigin(requestOptions) !== origin) return requestOptions;
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.token)}` },
		};
	}

	// No declarative `test`: n8n would run it instead of the nodes' `testedBy` function
	// (nodes/shared/credentialTests.ts), which checks the fields before any request and reads the
	// environment the service names in its token.
}
