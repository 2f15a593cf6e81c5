/**
 * Invariant: no hold the run made is left live without being in the output or named in the error
 * with how to release it; "Refused: ... NOT applied" only when the service's state proves it.
 *
 * Found by an outside review: n8n's node setting Retry On Fail runs the node again after an error
 * and keeps only the last try's outcome. A first try whose answer was lost ended "Uncertain: ...
 * order 700002"; the retry's Create was refused by that order's hold ("NOT applied"), the retry's
 * Hold Best Available held other places, and order 700002 was named nowhere. A retry now throws
 * the first try's uncertain error again, with no request (retryGuard.ts); retries against the
 * sandbox, and runs of the node that are not retries, are in nodeRuns.test.ts.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { answer, answerText, StubApi } from '../../../../../harness/net/stubApi';
import { byId } from '../../../../../harness/nodes/publicEvents';
import { PublicEvents } from '../../../../../nodes/PublicEvents/PublicEvents.node';
import { executeFromStart } from '../../../../../harness/engine/execute';
import { buildWorkflow } from '../../../../../harness/engine/runtime';

const EVENT = '1001';
const ALL = ['5001', '5002', '5003', '5004'];

interface Order {
	id: string;
	status: string;
	places: string[];
}

let api: StubApi;
beforeAll(async () => {
	api = await StubApi.start();
});
afterAll(async () => await api.stop());
beforeEach(() => api.reset());

function serve(orders: Map<string, Order>) {
	let next = 700002;
	const text = (o: Order, tickets = true) =>
		`{"id":${o.id},"status":"${o.status}","reservedToDate":"2026-12-01T10:15:00+00:00",` +
		`"totalPrice":{"amount":90,"currency":"EUR"}${
			tickets ? `,"tickets":[${o.places.map((p) => `{"placeId":${p}}`).join(',')}]` : ''
		}}`;
	const held = () =>
		new Set(
			[...orders.values()].filter((o) => o.status === 'reserved_to_time').flatMap((o) => o.places),
		);
	api.on('GET /orders/{id}', (res: ServerResponse, { path }) => {
		const o = orders.get(path.split('/')[2]);
		if (!o) return answer(res, 404, { message: 'Not found' });
		answerText(res, 200, text(o));
	});
	api.on(`GET /event-points/${EVENT}/orders`, (res) =>
		answerText(
			res,
			200,
			`[${[...orders.values()]
				.filter((o) => o.status === 'reserved_to_time')
				.map((o) => `{"id":${o.id},"status":"reserved_to_time"}`)
				.join(',')}]`,
		),
	);
	api.on(`GET /event-points/${EVENT}/places`, (res) => {
		const h = held();
		answer(
			res,
			200,
			ALL.map((id) => ({
				id: Number(id),
				sectorName: 'Parterre',
				rowName: '1',
				placeName: id.slice(-1),
				availableCount: h.has(id) ? 0 : 1,
				priceCategories: [{ id: 3001, price: { amount: 45, currency: 'EUR' } }],
			})),
		);
	});
	let posts = 0;
	api.on('POST /orders', (res, { body }) => {
		posts++;
		const places = (JSON.parse(body) as { places: string[] }).places.map(String);
		const h = held();
		if (places.some((p) => h.has(p)))
			return answer(res, 409, { message: `Place ${places.find((p) => h.has(p))} is held or sold` });
		const order = { id: String(next++), status: 'reserved_to_time', places };
		orders.set(order.id, order);
		// The first POST's answer is lost behind a gateway: the order is made all the same.
		if (posts === 1) return answer(res, 502, { message: 'Bad Gateway' });
		answerText(res, 201, text(order, false));
	});
}

async function runWithRetryOnFail(parameters: INodeParameters) {
	const { workflow, node, start } = buildWorkflow(
		{
			nodeType: new PublicEvents(),
			type: 'CUSTOM.publicEvents',
			parameters,
			credentials: api.store(),
		},
		true,
	);
	// Node Settings > Retry On Fail, as a user sets it (2 tries, the least wait n8n allows).
	node.retryOnFail = true;
	node.maxTries = 2;
	node.waitBetweenTries = 0;
	const run = await executeFromStart(workflow, start!, [{ json: {} }], api.store(), 'manual');
	const task = run.data.resultData.runData[node.name]?.[0];
	return {
		items: (task?.data?.main?.[0] ?? []) as Array<{ json: IDataObject }>,
		error: task?.error ?? run.data.resultData.error,
	};
}

/** The live orders nobody reported: neither in the output nor named in the error. */
function unnamed(
	orders: Map<string, Order>,
	result: {
		items: Array<{ json: IDataObject }>;
		error?: { message?: string; description?: string | null };
	},
) {
	const said = `${result.error?.message ?? ''} ${result.error?.description ?? ''}`;
	const output = new Set(result.items.map((i) => String(i.json.id)));
	return [...orders.values()]
		.filter((o) => o.status === 'reserved_to_time')
		.filter((o) => !output.has(o.id) && !said.includes(o.id))
		.map((o) => o.id);
}

describe("n8n's Retry On Fail on top of the node's lost-answer check", () => {
	test('Create: the first try made order 700002; the retry sends nothing, names it', async () => {
		const orders = new Map<string, Order>();
		serve(orders);
		const result = await runWithRetryOnFail({
			resource: 'order',
			operation: 'create',
			eventId: byId(EVENT),
			places: byId('5001,5002'),
			priceCategory: '3001',
			options: { confirmWaitSeconds: 1 },
		});
		expect({ message: result.error?.message, stranded: unnamed(orders, result) }).toEqual({
			message: expect.not.stringMatching(/NOT applied/),
			stranded: [],
		});
	});

	test('Hold Best Available: the retry holds nothing more; the first hold is named', async () => {
		const orders = new Map<string, Order>();
		serve(orders);
		const result = await runWithRetryOnFail({
			resource: 'order',
			operation: 'holdBestAvailable',
			eventId: byId(EVENT),
			quantity: 2,
			options: { confirmWaitSeconds: 1 },
		});
		expect({
			output: result.items.map((i) => String(i.json.id)),
			stranded: unnamed(orders, result),
		}).toEqual({ output: expect.any(Array), stranded: [] });
	});
});
