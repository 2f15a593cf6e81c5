import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type ILoadOptionsFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import {
	callListSearch,
	callLoadOptions,
	CredentialStore,
	loadOptionsContext,
	runNode,
} from '../../harness/engine';
import { SandboxClient } from '../../harness/sandbox/client';
import { HOUR } from '../../harness/time';

const CREDENTIAL = 'publicEventsApi';

let sb: SandboxClient;
let apiUrl: string;

/** A throwaway node: per input item, GET /event-points (or one event when `eventId` is set). */
class Probe implements INodeType {
	description: INodeTypeDescription = {
		usableAsTool: true,
		displayName: 'Probe',
		name: 'probe',
		group: ['transform'],
		version: 1,
		description: 'Test node',
		defaults: { name: 'Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL, required: true }],
		properties: [
			{ displayName: 'Event ID', name: 'eventId', type: 'string', default: '' },
			{ displayName: 'Name Filter', name: 'nameFilter', type: 'string', default: 'e' },
		],
	};

	methods = {
		listSearch: {
			async searchEvents(this: ILoadOptionsFunctions, filter?: string) {
				const events = await getEvents(this);
				const results = events
					.filter((event) => !filter || name(event).includes(filter))
					.map((event) => ({ name: name(event), value: String(event.id) }));
				return { results };
			},
		},
		loadOptions: {
			async eventsByParameter(this: ILoadOptionsFunctions) {
				const filter = this.getCurrentNodeParameter('nameFilter') as string;
				const events = await getEvents(this);
				return events
					.filter((event) => name(event).includes(filter))
					.map((event) => ({ name: name(event), value: event.id as number }));
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			try {
				const eventId = this.getNodeParameter('eventId', i) as string;
				if (eventId) {
					const event = await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL, {
						method: 'GET',
						url: `${apiUrl}/event-points/${eventId}`,
						json: true,
					});
					out.push({ json: event, pairedItem: { item: i } });
				} else {
					out.push({ json: { count: (await getEvents(this)).length }, pairedItem: { item: i } });
				}
			} catch (error) {
				// n8n's per-item contract: with "continue" set, the failure becomes this item's output.
				if (!this.continueOnFail()) throw error;
				out.push({ json: { error: error.message }, pairedItem: { item: i } });
			}
		}
		return [out];
	}
}

async function getEvents(ctx: IExecuteFunctions | ILoadOptionsFunctions): Promise<IDataObject[]> {
	const request = {
		method: 'GET' as const,
		url: `${apiUrl}/event-points`,
		qs: { itemsPerPage: 100 },
		json: true,
	};
	return await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL, request);
}

const name = (event: IDataObject) => String(event.eventName);

function newStore() {
	const store = new CredentialStore([new PublicEventsApi()]);
	const { id } = store.add(CREDENTIAL, {
		environment: 'staging',
		baseUrl: sb.sandbox.baseUrl,
		apiKey: sb.keys.partner,
	});
	return { store, id };
}

const probe = (store: CredentialStore, extra: Partial<Parameters<typeof runNode>[0]> = {}) =>
	runNode({ nodeType: new Probe(), type: 'CUSTOM.probe', credentials: store, ...extra });

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 12, placesPerEvent: 2 });
	apiUrl = `${sb.sandbox.baseUrl}/api/v2`;
});
afterAll(() => sb.stop());
beforeEach(() => sb.admin('DELETE', '/requests'));

describe('credentials through n8n-core', () => {
	it('50 runs with one store fetch one token: it is stored and reused', async () => {
		const { store, id } = newStore();
		expect(store.data(id).token).toBeUndefined();
		for (let run = 0; run < 50; run++) {
			const { items, error } = await probe(store);
			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: { count: 12 }, pairedItem: { item: 0 } }]);
		}
		const counters = await sb.counters();
		expect(counters['POST /token']).toBe(1);
		expect(counters['GET /event-points']).toBe(50);
		expect(store.data(id).token).toEqual(expect.stringMatching(/\S{20}/));
		expect(store.updates).toHaveLength(1);
		// n8n-core asks the helper before every request; only an empty token makes it fetch one.
		expect(store.preAuthCalls).toHaveLength(50);
		expect(store.preAuthCalls.map((call) => call.refreshed)).toEqual([
			true,
			...Array(49).fill(false),
		]);
		expect(
			store.preAuthCalls.every((call) => !call.credentialsExpired && call.credentialId === id),
		).toBe(true);
	});

	it(
		'an expired token: one 401, one new token, the request ' + 'retried, every item complete',
		async () => {
			const { store, id } = newStore();
			await probe(store);
			const firstToken = store.data(id).token;
			await sb.advanceClock(25 * HOUR);
			const since = (await sb.admin('GET', '/requests')).body.lastSeq;

			const { items, error } = await probe(store, { inputItems: [{}, {}, {}] });

			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.count)).toEqual([12, 12, 12]);
			const log: Array<{ method: string; route: string; status: number }> = (
				await sb.admin('GET', `/requests?since=${since}`)
			).body.entries;
			expect(log.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
				'GET /event-points 401',
				'POST /token 200',
				'GET /event-points 200',
				// The new token was persisted, so items 2 and 3 read it from the store: no more 401s.
				'GET /event-points 200',
				'GET /event-points 200',
			]);
			expect((await sb.counters())['POST /token']).toBe(2);
			expect(store.data(id).token).not.toBe(firstToken);
			expect(store.preAuthCalls.filter((call) => call.credentialsExpired)).toEqual([
				{ type: CREDENTIAL, credentialId: id, credentialsExpired: true, refreshed: true },
			]);
		},
	);

	it(
		'getDecrypted hands out a copy with the type defaults; the ' + 'stored data stays as saved',
		async () => {
			const { store, id } = newStore();
			const decrypted = await store.getDecrypted(
				{} as never,
				{ id, name: '' },
				CREDENTIAL,
				'manual',
			);
			expect(decrypted).toMatchObject({ token: '', language: '', apiKey: sb.keys.partner });
			decrypted.apiKey = 'changed';
			expect(store.data(id)).toEqual({
				environment: 'staging',
				baseUrl: sb.sandbox.baseUrl,
				apiKey: sb.keys.partner,
			});
		},
	);
});

describe('n8n execution semantics', () => {
	it('resolves an expression parameter from each input item', async () => {
		const events = await sb.getAll('/event-points');
		const ids = [events[3].id, events[7].id];
		const { store } = newStore();
		const { items, error } = await probe(store, {
			parameters: { eventId: '={{ $json.ref.id }}' },
			inputItems: ids.map((id) => ({ ref: { id } })),
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual(ids);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it(
		'with onError continueRegularOutput a failing item becomes an ' +
			'error item paired to its input',
		async () => {
			const okId = (await sb.getAll('/event-points'))[0].id;
			const { store } = newStore();
			const inputItems = [{ id: okId }, { id: 999999 }, { id: okId }];
			const parameters = { eventId: '={{ $json.id }}' };

			const { items, error } = await probe(store, {
				parameters,
				inputItems,
				onError: 'continueRegularOutput',
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(3);
			expect(items[0].json.id).toBe(okId);
			expect(items[1]).toEqual({
				json: { error: 'The resource you are requesting could not be found' },
				pairedItem: { item: 1 },
			});
			expect(items[2].pairedItem).toEqual({ item: 2 });

			// Without it the run stops on the node's NodeApiError and nothing is output.
			const failed = await probe(store, { parameters, inputItems });
			expect(failed.items).toEqual([]);
			expect(failed.error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		},
	);
});

class Thrower implements INodeType {
	description: INodeTypeDescription = {
		...new Probe().description,
		usableAsTool: true,
		name: 'thrower',
		credentials: [],
		properties: [],
	};

	async execute(): Promise<INodeExecutionData[][]> {
		throw new Error('boom');
	}
}

describe('n8n error handling around a node that throws', () => {
	const inputItems = [{ a: 1 }, { a: 2 }];

	it('stops the run by default', async () => {
		const { items, error, run } = await runNode({
			nodeType: new Thrower(),
			type: 'CUSTOM.thrower',
			inputItems,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe('boom');
		expect(run.data.resultData.lastNodeExecuted).toBe('Node under test');
	});

	it(
		'with continueRegularOutput passes the input through and ' + 'still records the error',
		async () => {
			const { items, error } = await runNode({
				nodeType: new Thrower(),
				type: 'CUSTOM.thrower',
				inputItems,
				onError: 'continueRegularOutput',
			});
			expect(items).toEqual([
				{ json: { a: 1 }, pairedItem: { item: 0 } },
				{ json: { a: 2 }, pairedItem: { item: 1 } },
			]);
			expect(error?.message).toBe('boom');
		},
	);
});

describe('listSearch and loadOptions through LoadOptionsContext', () => {
	it('call the methods with the current parameters and the same store (no new token)', async () => {
		const { store } = newStore();
		await probe(store);
		const events = await sb.getAll('/event-points');
		const wanted = name(events[5]);
		const matching = events.filter((event) => name(event).includes(wanted));
		expect(matching.length).toBeLessThan(events.length);

		const search = await callListSearch({
			nodeType: new Probe(),
			type: 'CUSTOM.probe',
			credentials: store,
			method: 'searchEvents',
			filter: wanted,
		});
		expect(search.results).toEqual(
			matching.map((event) => ({ name: name(event), value: String(event.id) })),
		);

		// The method reads `nameFilter` with getCurrentNodeParameter: the parameters given here.
		const options = await callLoadOptions({
			nodeType: new Probe(),
			type: 'CUSTOM.probe',
			credentials: store,
			method: 'eventsByParameter',
			parameters: { nameFilter: wanted },
		});
		expect(options).toEqual(matching.map((event) => ({ name: name(event), value: event.id })));

		expect((await sb.counters())['POST /token']).toBe(1);
	});

	it(
		'n8n-core uses the harness services (its own DI container), ' + 'not a real InstanceSettings',
		() => {
			// A real one would have written an encryption key to ~/.n8n/config.
			expect(
				loadOptionsContext({ nodeType: new Probe(), type: 'CUSTOM.probe' }).getInstanceId(),
			).toBe('engine-harness');
		},
	);
});
