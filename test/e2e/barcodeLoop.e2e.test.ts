import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { Workflow, type IConnections, type INode } from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { executeFromStart } from '../../harness/engine/execute';
import { buildNode, NodeTypeRegistry, START_NODE_TYPE } from '../../harness/engine/runtime';
import { credentialFor } from '../../harness/nodes/publicEvents';
import { SandboxClient } from '../../harness/sandbox/client';
import { findInstall } from '../../scripts/n8n/install';

/**
 * examples/nightly-barcode-export-no-disk.json (and, same graph, nightly-barcode-export.json) run
 * through n8n-core's engine with its own connections. Each Event is n8n's real Loop Over Items
 * (SplitInBatches v3, from the installed n8n of the line under test); To CSV and Deliver CSV are
 * stood in
 * by n8n's real No Operation node (they turn each item set into one file and pass it on, which is
 * all the loop depends on); Any File Written? / Nothing Exported are left out (a NoOp "Done"
 * on the loop's done output).
 *
 * Invariant: every event ahead is visited; an event with no barcodes yet (an empty export list,
 * e.g. a standing event whose tickets are not generated) must not end the loop before the events
 * after it are exported.
 */
// n8n's own Loop Over Items and No Operation nodes, from the installed n8n (an e2e suite: the
// install is made before e2e runs, not before unit tests).
const install = findInstall() ?? findInstall(undefined, '2.40.7');
const nodesDir = join(install!.dir, 'node_modules', 'n8n-nodes-base', 'dist', 'nodes');
const load = createRequire(__filename);
const { SplitInBatchesV3 } = load(join(nodesDir, 'SplitInBatches/v3/SplitInBatchesV3.node.js'));
const { NoOp } = load(join(nodesDir, 'NoOp/NoOp.node.js'));

const example = JSON.parse(
	readFileSync(
		join(__dirname, '..', '..', 'examples', 'nightly-barcode-export-no-disk.json'),
		'utf8',
	),
) as { nodes: any[]; connections: IConnections };

let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];
beforeAll(async () => {
	sb = await SandboxClient.start({
		events: 3,
		placesPerEvent: 5,
		privateEvents: 0,
		archivedEvents: 0,
		widgetOrders: 0,
	});
	store = credentialFor(sb, { apiKey: sb.keys.organiser ?? sb.keys.partner }).store;
});
afterAll(() => sb.stop());
afterEach(() => sb.admin('DELETE', '/faults'));

async function run() {
	const types: Record<string, string> = {
		'n8n-nodes-public-events.publicEvents': 'CUSTOM.publicEvents',
		'n8n-nodes-base.splitInBatches': 'base.splitInBatches',
		'n8n-nodes-base.convertToFile': 'base.noOp',
		'n8n-nodes-base.noOp': 'base.noOp',
	};
	const nodes: INode[] = [];
	for (const n of example.nodes) {
		if (n.type === 'n8n-nodes-base.manualTrigger')
			nodes.push({
				id: n.id,
				name: n.name,
				type: START_NODE_TYPE,
				typeVersion: 1,
				position: n.position,
				parameters: {},
			});
		else if (n.type === 'n8n-nodes-public-events.publicEvents')
			nodes.push({
				...buildNode({
					nodeType: new PublicEvents(),
					type: 'CUSTOM.publicEvents',
					name: n.name,
					parameters: n.parameters,
					credentials: store,
				}),
				id: n.id,
				position: n.position,
				...(n.onError ? { onError: n.onError } : {}),
				...(n.alwaysOutputData ? { alwaysOutputData: true } : {}),
			});
		else if (types[n.type])
			nodes.push({
				id: n.id,
				name: n.name,
				type: types[n.type],
				typeVersion: n.type.endsWith('splitInBatches') ? 3 : 1,
				position: n.position,
				parameters: n.type.endsWith('splitInBatches') ? n.parameters : {},
			});
	}
	nodes.push({
		id: 'done',
		name: 'Done',
		type: 'base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	});
	const connections = structuredClone(example.connections) as any;
	delete connections['Every Night at 2'];
	delete connections['Any File Written?'];
	connections['Each Event'].main[0] = [{ node: 'Done', type: 'main', index: 0 }];
	const workflow = new Workflow({
		id: 'bc',
		name: 'bc',
		nodes,
		connections,
		active: false,
		nodeTypes: new NodeTypeRegistry({
			'CUSTOM.publicEvents': new PublicEvents(),
			'base.splitInBatches': new SplitInBatchesV3(),
			'base.noOp': new NoOp(),
		}),
		settings: { executionOrder: 'v1' },
	});
	const r = await executeFromStart(
		workflow,
		workflow.getNode('Run Now')!,
		[{ json: {} }],
		store,
		'manual',
	);
	const data = r.data.resultData.runData;
	return {
		error: r.data.resultData.error?.message,
		eventsAhead: (data['Events Ahead']?.[0]?.data?.main?.[0] ?? []).map((i: any) => i.json.id),
		exported: (data['Export Barcodes'] ?? []).map((run: any) => ({
			ok: run.data?.main?.[0]?.length ?? 0,
			failed: run.data?.main?.[1]?.length ?? 0,
		})),
		delivered: (data['Deliver CSV (replace me)'] ?? []).length,
		done: Boolean(data['Done']),
	};
}

describe('nightly barcode export (no disk), its loop', () => {
	it('control: every event ahead exported, loop done', async () => {
		const r = await run();
		expect(r.error).toBeUndefined();
		expect(r.eventsAhead.length).toBeGreaterThan(1);
		expect([r.delivered, r.done]).toEqual([r.eventsAhead.length, true]);
	});

	it('an event with no barcodes yet does not stop the events after it being exported', async () => {
		const first = (await run()).eventsAhead[0];
		// The first event's export answers an empty list (a 200, no records).
		await sb.admin('POST', '/faults', {
			kind: 'status',
			status: 200,
			body: [],
			method: 'GET',
			path: `/api/v2/event-points/${first}/barcodes`,
			count: 0,
		});
		await sb.admin('POST', '/faults', {
			kind: 'status',
			status: 200,
			body: [],
			method: 'GET',
			path: `/event-points/${first}/barcodes`,
			count: 0,
		});
		const r = await run();
		expect({
			error: r.error ?? null,
			exported: r.exported,
			delivered: r.delivered,
			done: r.done,
		}).toEqual({
			error: null,
			exported: [
				{ ok: 1, failed: 0 }, // one empty item (Always Output Data)
				...Array(r.eventsAhead.length - 1).fill({ ok: expect.any(Number), failed: 0 }),
			],
			// its file is empty: the loop goes on (Always Output Data on Export Barcodes)
			delivered: r.eventsAhead.length,
			done: true,
		});
	});
});
