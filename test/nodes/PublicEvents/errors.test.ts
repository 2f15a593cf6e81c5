import type { IDataObject, INodeParameters, IPairedItemData } from 'n8n-workflow';

import {
	credentialFor,
	fetchToken,
	ids,
	mark,
	runPublicEvents,
	since,
	type LogEntry,
} from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { HOUR } from '../../../harness/time';

/**
 * Errors status by status (docs/architecture.md), through n8n-core against the sandbox: the human
 * message,
 * the run stopping on it, and under continueOnFail an error item per failed input item while the
 * following items still run. Statuses the seed cannot cause on demand are injected as faults.
 */
let sb: SandboxClient;
let visible: string[];
let unlinked: string;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 12, placesPerEvent: 10, privateEvents: 2 });
	visible = (await sb.getAll('/event-points')).map((e) => String(e.id));
	// Organiser-only events: on sale, but not linked to the partner.
	unlinked = (await sb.getAll('/event-points', { as: 'organiser' }))
		.map((e) => String(e.id))
		.find((id) => !visible.includes(id))!;
});
afterAll(() => sb.stop());
afterEach(() => sb.admin('DELETE', '/faults'));

const fault = (rule: IDataObject) => sb.admin('POST', '/faults', rule);
const lines = (log: LogEntry[]) => log.map((e) => `${e.method} ${e.route} ${e.status}`);
const byRef = { __rl: true as const, mode: 'id', value: '={{ $json.ref }}' };

/**
 * Runs the node after a warm-up (so the token is cached), returning the run, its requests and the
 * secrets to look for.
 */
async function run(
	key: 'partner' | 'organiser',
	parameters: INodeParameters,
	extra: { refs?: string[]; continueOnFail?: boolean } = {},
) {
	const { store, id } = credentialFor(sb, { apiKey: sb.keys[key] });
	await fetchToken(store);
	const before = await mark(sb);
	const result = await runPublicEvents(store, parameters, {
		inputItems: (extra.refs ?? ['', '']).map((ref) => ({ ref })),
		...(extra.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	});
	const log = await since(sb, before);
	const everything =
		JSON.stringify(result.run) + String(result.error?.stack) + JSON.stringify(result.error);
	return { ...result, log, everything, secrets: [sb.keys[key], String(store.data(id).token)] };
}

interface Case {
	status: number;
	key: 'partner' | 'organiser';
	parameters: INodeParameters;
	/** The `ref` of input items 0 and 1: item 0 fails, item 1 runs after it. */
	refs: [string, string];
	/** Whether item 1 succeeds (403: the partner organises no seeded event, so it fails too). */
	secondFails?: boolean;
	fault?: IDataObject;
	message: RegExp;
	/** What item 0 sends before failing. */
	sent: string[];
	body: IDataObject;
}

const cases: Case[] = [
	{
		status: 401,
		key: 'partner',
		parameters: { resource: 'widget', operation: 'getManyOrders', returnAll: true },
		refs: ['', ''],
		fault: {
			kind: 'status',
			status: 401,
			path: '/widget-orders',
			count: 2,
			body: { code: 'invalid_token', message: 'Token rejected' },
		},
		message: /^The service refused the token even after requesting a new one: check the API key/,
		sent: ['GET /widget-orders 401', 'POST /token 200', 'GET /widget-orders 401'],
		body: { code: 'invalid_token', message: 'Token rejected' },
	},
	{
		status: 403,
		key: 'partner',
		parameters: {
			resource: 'barcode',
			operation: 'exportForEvent',
			eventId: byRef,
			returnAll: true,
		},
		refs: ['1001', '1002'],
		secondFails: true,
		message: new RegExp(
			'^The barcode export is only for events your company organise' +
				's\\. .*take the barcodes from the paid order \\(Order > Get\\)\\.' +
				'$',
		),
		sent: ['GET /event-points/{id}/barcodes 403'],
		body: { code: 'barcodes_forbidden' },
	},
	{
		status: 404,
		key: 'partner',
		parameters: { resource: 'event', operation: 'get', eventId: byRef },
		refs: ['999999', '1001'],
		message: new RegExp(
			'^Event 999999 was not found\\. .*not linked to your co' +
				'mpany.*an access setting on the service side, not a fault\\.$',
		),
		sent: ['GET /event-points/{id} 404'],
		body: { code: 'not_found' },
	},
	{
		status: 422,
		key: 'organiser',
		parameters: {
			resource: 'barcode',
			operation: 'exportForEvent',
			eventId: byRef,
			returnAll: true,
		},
		refs: ['1001', '1002'],
		fault: {
			kind: 'status',
			status: 422,
			path: '/event-points/1001/barcodes',
			count: 0,
			body: {
				code: 'limit_exceeded',
				message: 'Too many tickets reserved on the account',
				limit: 40,
				current: 41,
			},
		},
		message: new RegExp(
			'^A limit of the service was exceeded \\(limit 40, current 41\\)' +
				': Too many tickets reserved on the account$',
		),
		sent: ['GET /event-points/{id}/barcodes 422'],
		body: { limit: 40, current: 41 },
	},
	{
		status: 429,
		key: 'partner',
		parameters: {
			resource: 'reference',
			operation: 'getManyGenres',
			returnAll: true,
			options: { maxRetries: 2 },
		},
		refs: ['', ''],
		// Retry-After 0: the retries are counted without waiting wall-clock time.
		fault: { kind: 'status', status: 429, retryAfter: 0, path: '/genres', count: 3 },
		message:
			/^The service kept answering 429 Too Many Requests: gave up after 3 tries, 0.5 s of waiting$/,
		sent: ['GET /genres 429', 'GET /genres 429', 'GET /genres 429'],
		body: { code: 'injected_fault' },
	},
];

describe.each(cases)('$status', (c) => {
	it(
		'without continueOnFail: the run stops at item 0 with the ' +
			'human message, nothing secret in it',
		async () => {
			if (c.fault) await fault(c.fault);
			const { items, error, log, everything, secrets } = await run(c.key, c.parameters, {
				refs: c.refs,
			});
			expect(items).toEqual([]);
			expect(error?.message).toMatch(c.message);
			expect(error?.name).toBe('NodeApiError');
			expect((error as any).httpCode).toBe(String(c.status));
			// Item 1 never ran.
			expect(lines(log)).toEqual(c.sent);
			for (const secret of secrets) expect(everything).not.toContain(secret);
		},
	);

	it(
		'with continueOnFail: an error item {error, description, ' +
			'httpCode, body}, and item 1 still runs',
		async () => {
			if (c.fault) await fault(c.fault);
			const { items, error, log, everything, secrets } = await run(c.key, c.parameters, {
				refs: c.refs,
				continueOnFail: true,
			});
			expect(error).toBeUndefined();
			const failed = items.filter((item) => (item.pairedItem as IPairedItemData).item === 0);
			expect(failed).toHaveLength(1);
			expect(Object.keys(failed[0].json).sort()).toEqual([
				'body',
				'description',
				'error',
				'httpCode',
			]);
			expect(failed[0].json.error).toMatch(c.message);
			expect(failed[0].json.httpCode).toBe(String(c.status));
			expect(failed[0].json.description).toMatch(new RegExp(`^GET /\\S+ answered ${c.status}`));
			expect(failed[0].json.body).toEqual(expect.objectContaining(c.body));
			expect(lines(log).slice(0, c.sent.length)).toEqual(c.sent);

			const second = items.filter((item) => (item.pairedItem as IPairedItemData).item === 1);
			expect(second.length).toBeGreaterThan(0);
			if (c.secondFails) {
				expect(second.map((item) => item.json.httpCode)).toEqual([String(c.status)]);
				expect(lines(log).slice(c.sent.length)).toEqual(c.sent);
			} else {
				expect(
					second.every((item) => item.json.error === undefined && item.json.httpCode === undefined),
				).toBe(true);
				expect(
					lines(log)
						.slice(c.sent.length)
						.every((line) => line.endsWith(' 200')),
				).toBe(true);
			}
			for (const secret of secrets) expect(everything).not.toContain(secret);
		},
	);
});

describe('On Error: Continue (using error output)', () => {
	it(
		'a failed item goes down the error output, with the input ' +
			"item and the request's outcome as message; the rest down the " +
			'success output',
		async () => {
			const { store } = credentialFor(sb);
			const result = await runPublicEvents(
				store,
				{ resource: 'event', operation: 'get', eventId: byRef },
				{ inputItems: [{ ref: '999999' }, { ref: visible[0] }], onError: 'continueErrorOutput' },
			);
			expect(result.error).toBeUndefined();
			const [success, failed] = result.outputs;
			expect(success.map((item) => String(item.json.id))).toEqual([visible[0]]);
			expect(failed).toHaveLength(1);
			// n8n merges the input item in, which is how a later step (Release Hold) finds its order.
			expect(failed[0].json).toEqual(
				expect.objectContaining({
					ref: '999999',
					error: expect.stringMatching(/404|not found|access/i),
					message: expect.stringMatching(/^GET \/event-points\/999999 answered 404\b/),
				}),
			);
		},
	);
});

describe('404: a missing event is an access setting, not a fault', () => {
	it(
		'a missing and an unlinked event each give the hint; the ' +
			'visible one after them is returned',
		async () => {
			const { items, error } = await run(
				'partner',
				{ resource: 'event', operation: 'get', eventId: byRef },
				{ refs: ['999999', unlinked, visible[0]], continueOnFail: true },
			);
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.httpCode ?? 'ok')).toEqual(['404', '404', 'ok']);
			expect(items[1].json.error).toBe(
				`Event ${unlinked} was not found. An event that is missing is ` +
					`usually not linked to your company or its sale has ended (see Get ` +
					`Many Archived): an access setting on the service side, not a fault.`,
			);
			expect(ids([items[2]])).toEqual([visible[0]]);
		},
	);
});

describe('429: Too Many Requests', () => {
	it('waits out Retry-After, then the operation completes', async () => {
		await fault({ kind: 'status', status: 429, retryAfter: 1, path: '/categories', count: 1 });
		const { items, error, log } = await run(
			'partner',
			{ resource: 'reference', operation: 'getManyCategories', returnAll: true },
			{ refs: [''] },
		);
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		expect(lines(log)).toEqual(['GET /categories 429', 'GET /categories 200']);
		expect(log[1].at - log[0].at).toBeGreaterThanOrEqual(1000);
	});
});

// Last: moving the clock a day ends the sale of the soonest events.
describe('401: the token expired', () => {
	it(
		'25 hours later, Reference gets a new token and repeats the ' + 'call; the next run needs none',
		async () => {
			const { store, id } = credentialFor(sb);
			const cities = await sb.getAll('/cities');
			const getCities = { resource: 'reference', operation: 'getManyCities', returnAll: true };
			await runPublicEvents(store, getCities);
			const oldToken = store.data(id).token;
			await sb.advanceClock(25 * HOUR);
			sb.forgetTokens();
			let before = await mark(sb);

			const { items, error } = await runPublicEvents(store, getCities);

			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(cities);
			expect(lines(await since(sb, before))).toEqual([
				'GET /cities 401',
				'POST /token 200',
				'GET /cities 200',
			]);
			expect(store.data(id).token).not.toBe(oldToken);

			before = await mark(sb);
			await runPublicEvents(store, getCities);
			expect(lines(await since(sb, before))).toEqual(['GET /cities 200']);
		},
	);
});
