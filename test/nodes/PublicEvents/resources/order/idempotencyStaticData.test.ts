/**
 * An Idempotency Key kept in the static data n8n saves, when checkouts overlap (idempotency.ts).
 * n8n loads a workflow's static data as a run starts and saves the run's copy whole as it ends
 * (WorkflowStaticDataService.saveStaticDataById, webhook and trigger runs and queue-mode workers
 * alike): of two runs that overlap, the one that ends last is what is saved. What holds:
 * - in one process (n8n outside queue mode): every run of the node holds the process's one table
 *   of keys, so whichever copy n8n saves last holds every key, and a repeat after a restart finds
 *   its purchase and holds nothing;
 * - across processes (queue-mode workers), documented in docs/usage.md: a copy saved by one worker
 *   may lack a key another worker settled while both ran; that key still holds in its own worker
 *   (memory), and that worker's next run of the node saves it again.
 * Found by an outside review: each run saved only its own copy, so of two overlapping checkouts
 * the one saved last erased the other's key, and the first buyer's repeat after a restart held
 * (and the shop charged) a second time.
 */
import * as workflow from 'n8n-workflow';
import type { IDataObject, INodeType } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../harness/nodes/orderNode';
import { sent } from '../../../../../harness/nodes/orderWrites';
import { mark, since } from '../../../../../harness/nodes/publicEvents';

const { sb, order, setStatus } = orderNodeSuite();

const hold = (key: string) => ({
	eventId: byId(String(EVENT)),
	quantity: 1,
	options: { idempotencyKey: key },
});

/** The node as a process of its own loads it: its own memory of keys (a worker, a restart). */
function anotherProcess(): INodeType {
	let node: INodeType | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => workflow);
		const { PublicEvents } = jest.requireActual<
			typeof import('../../../../../nodes/PublicEvents/PublicEvents.node')
		>('../../../../../nodes/PublicEvents/PublicEvents.node');
		node = new PublicEvents();
	});
	return node!;
}

const made: string[] = [];
afterEach(async () => {
	for (const id of made.splice(0)) await setStatus(Number(id), 'expired').catch(() => {});
});

/** A checkout's hold: its static data loaded from `database` as n8n loads it, in `nodeType`. */
async function checkout(key: string, database: string, nodeType?: INodeType) {
	const copy = JSON.parse(database) as IDataObject;
	const result = await order('holdBestAvailable', hold(key), {
		workflowStaticData: copy,
		...(nodeType ? { nodeType } : {}),
	});
	expect(result.error).toBeUndefined();
	const id = String(result.items[0].json.id);
	made.push(id);
	return { id, copy, repeated: result.items[0].json.idempotency !== undefined };
}

/** A repeat of `key` in a process of its own (`nodeType`): what it was given, what it sent. */
async function repeatElsewhere(key: string, database: string, nodeType = anotherProcess()) {
	const before = await mark(sb());
	const again = await checkout(key, database, nodeType);
	const log = (await since(sb(), before)).filter((e) => e.route !== '/token');
	return { ...again, posts: sent(log, 'POST', '/orders') };
}

describe('Idempotency Key: checkouts that overlap, and the static data n8n saves', () => {
	it.each([
		['A then B', [0, 1]],
		['B then A', [1, 0]],
	])(
		'two buyers at once in one process, saved %s: the copy saved last holds both keys; ' +
			"after a restart, each buyer's repeat gets its order and sends nothing",
		async (_, saveOrder) => {
			const keys = [`buyer-A-${saveOrder.join('')}`, `buyer-B-${saveOrder.join('')}`];
			const runs = await Promise.all(keys.map(async (key) => await checkout(key, '{}')));
			let database = '{}';
			for (const i of saveOrder) database = JSON.stringify(runs[i].copy);
			const restarted = anotherProcess();
			for (const [i, key] of keys.entries()) {
				const again = await repeatElsewhere(key, database, restarted);
				expect([key, again.posts, again.id, again.repeated]).toEqual([key, 0, runs[i].id, true]);
			}
		},
	);

	it(
		'two buyers at once on two workers (queue mode, documented): the copy saved last may lack ' +
			"the other worker's key; it holds in that worker, whose next run of the node saves it again",
		async () => {
			const [one, two] = [anotherProcess(), anotherProcess()];
			const [a, b] = await Promise.all([
				checkout('buyer-A-workers', '{}', one),
				checkout('buyer-B-workers', '{}', two),
			]);
			let database = JSON.stringify(a.copy);
			database = JSON.stringify(b.copy);
			// The limit docs/usage.md states: worker two's copy, saved last, never had A's key.
			expect([database.includes(`"o":"${a.id}"`), database.includes(`"o":"${b.id}"`)]).toEqual([
				false,
				true,
			]);
			// A's repeat on its own worker: found in that worker's memory, nothing sent.
			const onOne = await repeatElsewhere('buyer-A-workers', database, one);
			expect([onOne.posts, onOne.id]).toEqual([0, a.id]);
			// That run's copy, saved, holds A's key again: a repeat anywhere finds it.
			database = JSON.stringify(onOne.copy);
			for (const key of ['buyer-A-workers', 'buyer-B-workers']) {
				const again = await repeatElsewhere(key, database);
				expect([key, again.posts]).toEqual([key, 0]);
			}
		},
	);
});
