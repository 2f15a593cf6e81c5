/**
 * The credential tests n8n runs from the credential dialog (the nodes name them with `testedBy`).
 * n8n runs a credential's own declarative `test` when it has one, and a node's function otherwise:
 * the API credential has none, so its test can refuse a field before any request and read the
 * environment the token names.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import {
	apiKeyMistake,
	baseUrlMistake,
	environmentGuess,
	environmentMismatch,
	languageMistake,
	secretMistake,
	tokenEnvironment,
} from './credentialChecks';
import { apiUrl, readListPage, shownUrl, tokenFailure } from './transport';

type Answer = { status: number; body: unknown } | { code: string };

/**
 * One request of the test: a redirect is not followed (the key or the token would go where it
 * points), and an error status is an answer. What a failed request throws carries the request, and
 * with it the key: only its code is kept.
 */
async function send(context: ICredentialTestFunctions, request: IDataObject): Promise<Answer> {
	try {
		const answer = (await context.helpers.request({
			...request,
			json: true,
			followRedirect: false,
			followAllRedirects: false,
			simple: false,
			resolveWithFullResponse: true,
			timeout: 30_000,
		})) as { statusCode: number; body: unknown };
		return { status: answer.statusCode, body: answer.body };
	} catch (error) {
		const { code, cause } = error as { code?: unknown; cause?: { code?: unknown } };
		return { code: String(code ?? cause?.code ?? 'network error') };
	}
}

const failed = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/** POST /token with the API key: the token, or why the test fails. */
async function issuedToken(
	context: ICredentialTestFunctions,
	data: ICredentialDataDecryptedObject,
	api: string,
	guess: string | undefined,
): Promise<{ token: string } | { failure: string }> {
	const tokenUrl = `${api}/token`;
	const issued = await send(context, {
		method: 'POST',
		uri: tokenUrl,
		body: { apiKey: data.apiKey },
	});
	if ('code' in issued) return { failure: tokenFailure(issued, tokenUrl, data.environment) };
	if (issued.status < 200 || issued.status >= 300) {
		const refused = tokenFailure(issued, tokenUrl, data.environment);
		return { failure: guess && issued.status === 401 ? `${refused} ${guess}` : refused };
	}
	const token = (issued.body as IDataObject | undefined)?.token;
	if (typeof token === 'string' && token !== '') return { token };
	return {
		failure: `POST ${shownUrl(tokenUrl)} answered without a "token" field: is the Base URL right?`,
	};
}

/** GET /event-points (one item) with the token, as the nodes ask: why the test fails, if so. */
async function eventListFailure(
	context: ICredentialTestFunctions,
	api: string,
	token: string,
	language: string,
): Promise<string | undefined> {
	const listUrl = `${api}/event-points?page=1&itemsPerPage=1`;
	const shownList = shownUrl(listUrl);
	const listed = await send(context, {
		method: 'GET',
		uri: listUrl,
		headers: {
			Authorization: `Bearer ${token}`,
			...(language ? { 'X-API-Language': language } : {}),
		},
	});
	if ('code' in listed) return `Could not reach GET ${shownList} (${listed.code})`;
	if (listed.status >= 300 && listed.status < 400)
		return (
			`GET ${shownList} answered a redirect (${listed.status}): the token is not sent on to ` +
			"another address. Check the Base URL (the service's current https address)."
		);
	if (listed.status === 429 || listed.status >= 500)
		return (
			`The API key was accepted, but GET ${shownList} answered ${listed.status}: the service is ` +
			'busy or failing. Test again in a minute.'
		);
	if (listed.status < 200 || listed.status >= 300)
		return (
			`The API key was accepted, but GET ${shownList} answered ${listed.status}: ` +
			'check that the Base URL is the Public Events API and not a proxy or web page.'
		);
	if (!readListPage(listed.body))
		return (
			`The API key was accepted, but GET ${shownList} answered something that is not a list ` +
			'of events: is the Base URL the Public Events API?'
		);
	return undefined;
}

/**
 * The Public Events API credential: its fields, then a token (POST /token) and one event (GET
 * /event-points, one item), as the nodes would ask for them. Nothing is booked or stored.
 */
export async function publicEventsApiConnection(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const mistake =
		baseUrlMistake(data.baseUrl, data.environment) ??
		apiKeyMistake(data.apiKey) ??
		languageMistake(data.language);
	if (mistake) return failed(mistake);

	const api = apiUrl(data.baseUrl);
	const guess = environmentGuess(data);
	const issued = await issuedToken(this, data, api, guess);
	if ('failure' in issued) return failed(issued.failure);
	const { token } = issued;
	const mismatch = environmentMismatch(token, data.environment);
	if (mismatch) return failed(mismatch);
	// The service named its environment and it agrees: a name that looks like staging is no clue.
	const told = tokenEnvironment(token) !== undefined;

	const language = String(data.language ?? '').trim();
	const listFailure = await eventListFailure(this, api, token, language);
	if (listFailure) return failed(listFailure);
	return {
		status: 'OK',
		message: guess && !told ? `Connection successful. ${guess}` : 'Connection successful!',
	};
}

/**
 * The push trigger's secret. No request can check it (the service has no API that knows it): a
 * wrong one shows as 401s to the sender. Its form can be checked.
 */
export async function webhookSecretForm(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const mistake = secretMistake(credential.data?.secret);
	if (mistake) return failed(mistake);
	return {
		status: 'OK',
		message: "Well formed. Only a delivery can tell whether it matches the service's secret.",
	};
}
