/**
 * Past the 2,000 keys static data keeps, a key in doubt is kept before made-order keys: another
 * process (a restart, a queue-mode worker) that loads the saved copy still says "Uncertain" and
 * holds nothing (outside review: the doubt entry, ending soonest, was dropped first, and the
 * repeat held a second time).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { executeFromStart } from '../../../../../../harness/engine/execute';
import { buildWorkflow } from '../../../../../../harness/engine/runtime';
import { byId, EVENT, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';
import { loseTheHoldsAnswer } from '../../../../../../harness/nodes/orderWrites';
import { credentialFor } from '../../../../../../harness/nodes/publicEvents';
import { PublicEvents } from '../../../../../../nodes/PublicEvents/PublicEvents.node';

const { sb, setStatus } = orderNodeSuite();

const KEY = 'checkout-doubt-evicted-1';
const parameters = {
	resource: 'order',
	operation: 'holdBestAvailable',
	eventId: byId(String(EVENT)),
	quantity: 1,
	reservedMinutes: 15,
	options: { idempotencyKey: KEY, confirmWaitSeconds: 0, maxRetries: 0 },
} as unknown as INodeParameters;

/** One webhook-mode run in "process" `proc` (a fresh in-memory key scope), with static data. */
async function runIn(proc: string, staticData: IDataObject) {
	const { store } = credentialFor(sb());
	const { workflow, start, node } = buildWorkflow(
		{
			nodeType: new PublicEvents(),
			type: 'CUSTOM.publicEvents',
			parameters,
			credentials: store,
			workflowStaticData: staticData,
			onError: 'continueErrorOutput',
		},
		true,
	);
	// Same workflow, same node name (so same static data), but another process's memory.
	node.id = proc;
	const run = await executeFromStart(workflow, start!, [{ json: {} }], store, 'webhook');
	const task = run.data.resultData.runData[node.name]?.[0];
	const outputs = (task?.data?.main ?? []).map((o) => o ?? []);
	// What n8n would save: the run's static data, as JSON.
	return { outputs, saved: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject };
}

afterEach(() => sb().admin('DELETE', '/faults'));

it('a key in doubt survives in static data beside 2,000 sold keys', async () => {
	// 2,000 keys of today's sales, as a busy shop's node keeps them (any hash, made orders).
	const keys: IDataObject = {};
	for (let n = 0; n < 2000; n++)
		keys[`sale-${n}`] = { f: 'x', o: String(900000 + n), e: Date.now() + 20 * 3600_000 };
	const loaded = { 'node:Node under test': { idempotencyKeys: keys } };

	// Process A: the hold's answer is lost and cannot be read back: the key is in doubt.
	await loseTheHoldsAnswer(sb());
	const first = await runIn('process-A', loaded);
	await sb().admin('DELETE', '/faults');
	expect(String(first.outputs[1]?.[0]?.json.error)).toMatch(/^Uncertain/);
	const stored = (first.saved['node:Node under test'] as IDataObject)
		.idempotencyKeys as IDataObject;

	// Process B (restart, or another worker) loads what A saved; the buyer asks again at once.
	const second = await runIn('process-B', first.saved);
	const live = await sb().getAll<{ id: number }>(`/event-points/${EVENT}/orders`, {
		query: { status: 'reserved_to_time' },
	});
	for (const { id } of live) await setStatus(Number(id), 'expired').catch(() => {});

	expect({
		doubtEntriesSaved: Object.values(stored).filter((e) => (e as IDataObject).u !== undefined)
			.length,
		secondAnswer: String(
			second.outputs[1]?.[0]?.json.error ?? 'HELD ' + second.outputs[0]?.[0]?.json.id,
		).slice(0, 40),
		liveHolds: live.length,
	}).toEqual({
		doubtEntriesSaved: 1,
		secondAnswer: expect.stringMatching(/^Uncertain/),
		liveHolds: 1,
	});
});
