/**
 * Workflows for real n8n around the Public Events write node, with n8n's own flow nodes: Retry On
 * Fail over items where a later one is refused, Loop Over Items over copies of one item, two
 * branches into one node, Execute Once. Each is a manual workflow run with `n8n execute`.
 */
import { randomUUID } from 'node:crypto';

import { manualTrigger } from '../bench/workflows';
import type { SandboxClient } from '../sandbox/client';

type Ref = { id: string; name: string };
type Node = { name: string; type: string; typeVersion: number; parameters: object } & object;

export const RETRY_WORKFLOW_ID = 'PeE2eWfRetryHold';
export const GRAPHS_WORKFLOW_ID = 'PeE2eWfWriteGrph';
/** The nodes whose runs the tests read. */
export const HOLD_RETRIED = 'Hold, Retry On Fail';
export const HOLD_IN_LOOP = 'Hold in Loop';
export const HOLD_TWO_BRANCHES = 'Hold from Two Branches';
export const CREATE_ONCE = 'Create Once';

const items = (name: string, json: object[]): Node => ({
	name,
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	parameters: { jsCode: `return ${JSON.stringify(json.map((j) => ({ json: j })))};` },
});
const noOp = (name: string): Node => ({
	name,
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	parameters: {},
});
const publicEvents = (credential: Ref, name: string, parameters: object, settings = {}) => ({
	name,
	type: 'n8n-nodes-public-events.publicEvents',
	typeVersion: 1,
	parameters: { resource: 'order', ...parameters },
	credentials: { publicEventsApi: credential },
	...settings,
});
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const link = (node: string) => [{ node, type: 'main', index: 0 }];

function workflowOf(id: string, name: string, nodes: Node[], connections: object) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: nodes.map((node, i) => ({ id: randomUUID(), position: [240 * i, 0], ...node })),
		connections,
	};
}

/**
 * Retry On Fail (2 tries) with Keep Holds When a Later Item Fails: Hold Best Available over two
 * items, the first on `eventId`, the second on an event that does not exist.
 */
export function retryWorkflow(credential: Ref, eventId: number) {
	return workflowOf(
		RETRY_WORKFLOW_ID,
		'e2e: Retry On Fail, a later item refused',
		[
			manualTrigger,
			items('Buyers', [{ event: String(eventId) }, { event: '999999' }]),
			publicEvents(
				credential,
				HOLD_RETRIED,
				{
					operation: 'holdBestAvailable',
					eventId: byId('={{ $json.event }}'),
					quantity: 1,
					options: { keepHolds: true },
				},
				{ retryOnFail: true, maxTries: 2, waitBetweenTries: 10 },
			),
		],
		{ Start: { main: [link('Buyers')] }, Buyers: { main: [link(HOLD_RETRIED)] } },
	);
}

/**
 * One run, three graphs, each write node under On Error: Continue: Loop Over Items (a batch of 1)
 * over two copies of one item into Hold Best Available on `loop`; one item down two branches into
 * Hold Best Available on `branches`; Create with Execute Once (and Retry On Fail) over three items,
 * each naming a place of `once` (`places`).
 */
export function graphsWorkflow(
	credential: Ref,
	events: { loop: number; branches: number; once: number },
	places: { ids: string[]; priceCategory: string },
) {
	const hold = (name: string, eventId: number) =>
		publicEvents(
			credential,
			name,
			{
				operation: 'holdBestAvailable',
				eventId: byId(String(eventId)),
				quantity: 1,
				options: { confirmWaitSeconds: 1 },
			},
			{ onError: 'continueRegularOutput' },
		);
	const nodes: Node[] = [
		manualTrigger,
		items('Copies', [{ buyer: 'the same' }, { buyer: 'the same' }]),
		{
			name: 'Loop Over Items',
			type: 'n8n-nodes-base.splitInBatches',
			typeVersion: 3,
			parameters: { options: {} },
		},
		hold(HOLD_IN_LOOP, events.loop),
		items('One Buyer', [{ buyer: 'the same' }]),
		noOp('Branch A'),
		noOp('Branch B'),
		hold(HOLD_TWO_BRANCHES, events.branches),
		items(
			'Places',
			places.ids.map((id) => ({ place: id })),
		),
		publicEvents(
			credential,
			CREATE_ONCE,
			{
				operation: 'create',
				eventId: byId(String(events.once)),
				places: byId('={{ $json.place }}'),
				priceCategory: places.priceCategory,
				options: { confirmWaitSeconds: 1 },
			},
			{
				executeOnce: true,
				retryOnFail: true,
				maxTries: 2,
				waitBetweenTries: 10,
				onError: 'continueRegularOutput',
			},
		),
	];
	return workflowOf(GRAPHS_WORKFLOW_ID, 'e2e: write nodes in loops and branches', nodes, {
		Start: { main: [[...link('Copies'), ...link('One Buyer'), ...link('Places')]] },
		Copies: { main: [link('Loop Over Items')] },
		'Loop Over Items': { main: [[], link(HOLD_IN_LOOP)] },
		[HOLD_IN_LOOP]: { main: [link('Loop Over Items')] },
		'One Buyer': { main: [[...link('Branch A'), ...link('Branch B')]] },
		'Branch A': { main: [link(HOLD_TWO_BRANCHES)] },
		'Branch B': { main: [link(HOLD_TWO_BRANCHES)] },
		Places: { main: [link(CREATE_ONCE)] },
	});
}

/** The partner's orders on `eventId`, as the sandbox holds them. */
export function partnerOrders(sandbox: SandboxClient, eventId: number) {
	const partner = sandbox.app.store.companies.find((c) => c.slug === 'partner')!.id;
	return [...sandbox.app.store.orders.values()].filter(
		(o) => o.eventPointId === eventId && o.companyId === partner,
	);
}

/** Ends the partner's holds on `eventId` a case left. */
export async function releaseHolds(sandbox: SandboxClient, eventId: number) {
	for (const o of partnerOrders(sandbox, eventId).filter((o) => o.status === 'reserved_to_time'))
		await sandbox.send('PUT', `/orders/${o.id}/status`, { toStatus: 'expired' });
}

/**
 * The Retry On Fail run (`run` as `n8n execute` printed it, the requests since `seq`): item 1 held
 * once, and the last try's error names its order as still held.
 */
export function expectRetriedOnce(run: any, sandbox: SandboxClient, seq: number, eventId: number) {
	expect(run.status).toBe('error');
	const posts = sandbox.app.log.since(seq).filter((e) => e.route === '/orders');
	expect(posts.map((e) => `${e.method} ${e.status}`)).toEqual(['POST 201']);
	const made = partnerOrders(sandbox, eventId);
	expect(made.map((o) => o.status)).toEqual(['reserved_to_time']);
	const { message } = run.data.resultData.runData[HOLD_RETRIED].at(-1).error;
	expect(message).toMatch(
		new RegExp(
			`Item 2 of 2 stopped the run.*order ${made[0].id} \\(item 1, places \\d+\\) is still held`,
		),
	);
	expect(message).not.toMatch(/next try/);
}

/**
 * The graphs' run, every write answer lost: each run of a node sent its write once and names its
 * own order (run n the n-th order made), never another run's.
 */
export function expectEachRunItsOwn(
	run: any,
	sandbox: SandboxClient,
	seq: number,
	events: { loop: number; branches: number; once: number },
) {
	const posts = sandbox.app.log.since(seq).filter((e) => e.route === '/orders');
	expect(posts.map((e) => e.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'POST']);
	for (const [node, eventId, runs] of [
		[HOLD_IN_LOOP, events.loop, 2],
		[HOLD_TWO_BRANCHES, events.branches, 2],
		[CREATE_ONCE, events.once, 1],
	] as const) {
		const made = partnerOrders(sandbox, eventId).map((o) => String(o.id));
		const said: string[] = run.data.resultData.runData[node].map((task: any) =>
			JSON.stringify(task.data.main[0]),
		);
		expect([node, made.length, said.length]).toEqual([node, runs, runs]);
		for (const [n, text] of said.entries())
			expect([node, n, made.filter((id) => text.includes(id))]).toEqual([node, n, [made[n]]]);
	}
}
