import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	IRun,
	NodeExecutionHint,
} from 'n8n-workflow';

import type { OperationModule } from '../../../nodes/PublicEvents/resources/operation';
import { pageSettings } from '../../../nodes/shared/readFields';
import { apiRequestAllItems } from '../../../nodes/shared/transport';
import { runNode } from '../../../harness/engine';
import { credentialFor } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';

/**
 * docs/development.md says a new operation is one module registered in its resource's index.ts.
 * This registers two throwaway modules, as a maintainer would, and finds them everywhere the
 * node's description, router, run hints, tool texts and derived lists (README) take them from.
 */
let inFlight = 0;
const peaks: Record<string, number> = {};

/** A real request per item (the sandbox's venues), counting how many items run at once. */
function throwaway(value: string, kind: 'read' | 'write'): OperationModule {
	return {
		option: {
			name: `Throwaway ${kind}`,
			value,
			description: `A ${kind} for the test`,
			action: `Throwaway ${kind}`,
		},
		kind,
		eachRun: kind === 'write' ? 'each item wrote its throwaway' : undefined,
		toolText: `The agent's words for the throwaway ${kind}.`,
		properties: [
			{ displayName: 'Throwaway Label', name: 'throwawayLabel', type: 'string', default: '' },
		],
		async execute(this: IExecuteFunctions, i: number) {
			peaks[value] = Math.max(peaks[value] ?? 0, ++inFlight);
			try {
				const venues = await apiRequestAllItems.call(
					this,
					'/venues',
					{},
					pageSettings.call(this, i),
				);
				return { label: this.getNodeParameter('throwawayLabel', i), venues: venues.length };
			} finally {
				inFlight--;
			}
		},
	};
}

type Isolated = {
	node: INodeType;
	resources: typeof import('../../../nodes/PublicEvents/resources');
	readme: typeof import('../../../scripts/readme');
};

/** The node's modules loaded afresh, with the throwaways registered in the reference resource. */
function registered(): Isolated {
	let isolated: Isolated | undefined;
	jest.isolateModules(() => {
		const { reference } = jest.requireActual('../../../nodes/PublicEvents/resources/reference');
		reference.operations.push(
			throwaway('throwawayRead', 'read'),
			throwaway('throwawayWrite', 'write'),
		);
		const { PublicEvents } = jest.requireActual('../../../nodes/PublicEvents/PublicEvents.node');
		isolated = {
			node: new PublicEvents(),
			resources: jest.requireActual('../../../nodes/PublicEvents/resources'),
			readme: jest.requireActual('../../../scripts/readme'),
		};
	});
	return isolated!;
}

let sb: SandboxClient;
let isolated: Isolated;
beforeAll(async () => {
	sb = await SandboxClient.start({ events: 1 });
	isolated = registered();
});
afterAll(() => sb.stop());

describe('a new operation is one module registered in its resource', () => {
	it('appears in the Operation list, with its parameters and its tool text', () => {
		const { properties } = isolated.node.description;
		const list = properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.[0] === 'reference',
		);
		const values = (list?.options as INodePropertyOptions[]).map((o) => o.value);
		expect(values).toEqual(expect.arrayContaining(['throwawayRead', 'throwawayWrite']));
		const shown = (name: string, operation: string) =>
			properties.find(
				(p) => p.name === name && p.displayOptions?.show?.operation?.includes(operation),
			);
		expect(shown('throwawayLabel', 'throwawayRead')?.displayOptions?.show?.resource).toEqual([
			'reference',
		]);
		expect(shown('toolDescription', 'throwawayWrite')?.default).toBe(
			"The agent's words for the throwaway write.",
		);
	});

	it("is in the derived lists: the operation list the tests use and README's table", () => {
		const { allOperations, operationOf } = isolated.resources;
		expect(operationOf('reference', 'throwawayWrite')?.kind).toBe('write');
		expect(allOperations.map(({ operation }) => operation.option.value)).toContain('throwawayRead');
		expect(isolated.readme.operationsTable()).toContain(
			'| Reference | Throwaway write | A write for the test | writes | *Throwaway Label* |',
		);
	});

	it(
		'runs through the router: a read several items ' +
			'at once, a write one at a time with its hint',
		async () => {
			const { store } = credentialFor(sb);
			const items = Array.from({ length: 6 }, (_, i) => ({ label: `item ${i}` }));
			const run = async (operation: string) =>
				await runNode({
					nodeType: isolated.node,
					type: 'CUSTOM.publicEvents',
					parameters: { resource: 'reference', operation, throwawayLabel: '={{ $json.label }}' },
					credentials: store,
					inputItems: items,
				});
			const read = await run('throwawayRead');
			const write = await run('throwawayWrite');
			for (const result of [read, write]) {
				expect(result.error).toBeUndefined();
				expect(
					result.items.map((item: INodeExecutionData) => [item.json.label, item.pairedItem]),
				).toEqual(items.map((item, i) => [item.label, { item: i }]));
			}
			expect(peaks.throwawayRead).toBeGreaterThan(1);
			expect(peaks.throwawayWrite).toBe(1);
			expect(hintsOf(write.run).map((hint) => hint.message)).toEqual([
				expect.stringContaining('each item wrote its throwaway'),
			]);
		},
	);
});

describe('every operation module is registered', () => {
	it('a file under resources/<resource>/ that exports an operation is in its resource', () => {
		const root = join(__dirname, '../../../nodes/PublicEvents/resources');
		const { operationOf } = jest.requireActual('../../../nodes/PublicEvents/resources');
		const found: string[] = [];
		for (const resource of readdirSync(root).filter((name) => !name.includes('.'))) {
			for (const file of readdirSync(join(root, resource))) {
				const module = jest.requireActual(join(root, resource, file));
				if (!module.option || typeof module.execute !== 'function') continue;
				found.push(`${resource}/${module.option.value}`);
				expect([file, operationOf(resource, module.option.value)?.execute]).toEqual([
					file,
					module.execute,
				]);
			}
		}
		expect(found.length).toBeGreaterThan(10);
	});
});

function hintsOf(run: IRun): NodeExecutionHint[] {
	const [task] =
		Object.entries(run.data.resultData.runData).find(([name]) => name !== 'Start')?.[1] ?? [];
	return (task?.hints ?? []) as NodeExecutionHint[];
}
