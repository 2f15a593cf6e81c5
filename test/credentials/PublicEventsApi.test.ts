import { Workflow, type IDataObject } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { apiUrl } from '../../nodes/shared/transport/connection';
import { NodeTypeRegistry } from '../../harness/engine';
import { START_NODE_TYPE } from '../../harness/engine/runtime';

const credential = new PublicEventsApi();

/** Resolves an expression of the credential the way n8n does, with `$credentials` set. */
function resolve(expression: string, credentials: IDataObject): unknown {
	const workflow = new Workflow({
		nodes: [
			{
				id: '1',
				name: 'Node',
				type: START_NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
		],
		connections: {},
		active: false,
		nodeTypes: new NodeTypeRegistry(),
	});
	return workflow.expression.getParameterValue(expression, null, 0, 0, 'Node', [], 'internal', {
		$credentials: credentials,
	} as IDataObject);
}

describe('the API address', () => {
	it.each([
		['https://tickets.example', 'https://tickets.example/api/v2'],
		['https://tickets.example/', 'https://tickets.example/api/v2'],
		[' https://tickets.example/api/v2// ', 'https://tickets.example/api/v2'],
		['http://127.0.0.1:4010/partner', 'http://127.0.0.1:4010/partner/api/v2'],
	])('%j -> %s, in the transport and in the credential test alike', (baseUrl, expected) => {
		expect(apiUrl(baseUrl)).toBe(expected);
		expect(resolve(credential.test.request.baseURL as string, { baseUrl })).toBe(expected);
	});
});

describe('the credential', () => {
	it('sends the stored token as a bearer token', () => {
		const header = (credential.authenticate.properties.headers as IDataObject)
			.Authorization as string;
		expect(resolve(header, { token: 'abc.def.ghi' })).toBe('Bearer abc.def.ghi');
	});

	it('keeps the key and the token out of sight', () => {
		const byName = Object.fromEntries(credential.properties.map((p) => [p.name, p]));
		expect(byName.apiKey.typeOptions?.password).toBe(true);
		expect(byName.token.type).toBe('hidden');
		expect(byName.token.typeOptions?.expirable).toBe(true);
	});
});
