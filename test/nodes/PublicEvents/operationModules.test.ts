import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	IRun,
	NodeExecutionHint,
} from 'n8n-workflow';

import type { OperationModule } from '../../../nodes/PublicEvents/resources/operation';
import { pageSettings } from '../../../nodes/shared/readFields';
import { apiRequestAllItems } from '../../../nodes/shared/transport';
import { runNode } from '../../../harness/engine';
import { INJECTIONS } from '../../../harness/nodes/badValues';
import { credentialFor } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';

/**
 * docs/development.md says a new operation is one module registered in its resource's index.ts.
 * This registers three throwaway modules, as a maintainer would, and finds them everywhere the
 * node's description, router, run hints, tool texts and derived lists (README, the bad-input
 * matrix and wire cases) take them from.
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

/**
 * A Get Venue-like read (`GET /venues/{id}`, a route the sandbox lacks: each request answers 404)
 * with an ID field declared as a maintainer declares one; built from the isolated modules, whose
 * registry of ID fields the isolated node reads.
 */
function throwawayGetVenue(): OperationModule {
	const { idField, Inputs } = jest.requireActual('../../../nodes/shared/inputs');
	const { optionsCollection } = jest.requireActual('../../../nodes/shared/commonFields');
	const { idParameter, requestSettings } = jest.requireActual('../../../nodes/shared/readFields');
	const { apiRequest } = jest.requireActual('../../../nodes/shared/transport');
	const { path } = jest.requireActual('../../../nodes/shared/path');
	const venueField: INodeProperties = idField(
		{
			displayName: 'Throwaway Venue ID',
			name: 'throwawayVenueId',
			type: 'string',
			default: '',
			required: true,
		},
		['venues'],
	);
	return {
		option: {
			name: 'Throwaway Get Venue',
			value: 'throwawayGetVenue',
			description: 'A read of one venue for the test',
			action: 'Throwaway get venue',
		},
		kind: 'read',
		properties: [venueField, optionsCollection()],
		async execute(this: IExecuteFunctions, i: number) {
			const settings = requestSettings.call(this, i);
			const id = idParameter.call(this, i, new Inputs(this.getNode(), i), venueField);
			return await apiRequest.call(this, 'GET', path`/venues/${id}`, {}, settings);
		},
	};
}

type Isolated = {
	node: INodeType;
	resources: typeof import('../../../nodes/PublicEvents/resources');
	readme: typeof import('../../../scripts/readme');
	badInput: typeof import('../../../harness/nodes/badInput');
	badValues: typeof import('../../../harness/nodes/badValues');
	runs: typeof import('../../../harness/nodes/badInputRuns');
	wire: typeof import('../../../harness/nodes/badInputWire');
	publicEvents: typeof import('../../../harness/nodes/publicEvents');
	inputs: typeof import('../../../nodes/shared/inputs');
};

/**
 * The node's modules loaded afresh, with the throwaways registered in the reference resource, and
 * the bad-input harness as the suites load it, reading that node.
 */
function registered(): Isolated {
	let isolated: Isolated | undefined;
	jest.isolateModules(() => {
		const { reference } = jest.requireActual('../../../nodes/PublicEvents/resources/reference');
		reference.operations.push(
			throwaway('throwawayRead', 'read'),
			throwaway('throwawayWrite', 'write'),
			throwawayGetVenue(),
		);
		const { PublicEvents } = jest.requireActual('../../../nodes/PublicEvents/PublicEvents.node');
		isolated = {
			node: new PublicEvents(),
			resources: jest.requireActual('../../../nodes/PublicEvents/resources'),
			readme: jest.requireActual('../../../scripts/readme'),
			badInput: jest.requireActual('../../../harness/nodes/badInput'),
			badValues: jest.requireActual('../../../harness/nodes/badValues'),
			runs: jest.requireActual('../../../harness/nodes/badInputRuns'),
			wire: jest.requireActual('../../../harness/nodes/badInputWire'),
			publicEvents: jest.requireActual('../../../harness/nodes/publicEvents'),
			inputs: jest.requireActual('../../../nodes/shared/inputs'),
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

describe('a new operation with an ID parameter is in the bad-input suites, untouched', () => {
	const operation = 'throwawayGetVenue';
	const parameters = () => isolated.badInput.parametersOf('reference', operation);
	const name = (p: { path: string[]; kind: string }) => `${p.path.join('.')} (${p.kind})`;

	it('the matrix reads its parameters, the ID among them, from the description', () => {
		expect(isolated.inputs.iriCollections('throwawayVenueId')).toEqual(['venues']);
		expect(isolated.badInput.everyOperation()).toContainEqual(['reference', operation]);
		expect(parameters().map(name)).toEqual(
			expect.arrayContaining(['throwawayVenueId (id)', 'options.language (language)']),
		);
		expect(isolated.badInput.baseParameters('reference', operation)).toMatchObject({
			throwawayVenueId: isolated.badInput.SAMPLE_ID,
		});
	});

	it('each wrong value of each stops its item, naming field and item; nothing sent', async () => {
		const { store } = isolated.publicEvents.credentialFor(sb);
		await isolated.publicEvents.fetchToken(store);
		const cases = parameters().filter((p) => isolated.badValues.badValues(p).length > 0);
		expect(cases.map(name)).toContain('throwawayVenueId (id)');
		for (const parameter of cases) {
			const wrong = await isolated.runs.matrixCase(sb, store, parameter, true);
			expect([name(parameter), wrong]).toEqual([name(parameter), []]);
		}
	});

	it('the wire case: its ID goes into the path reduced; no bad value is sent', async () => {
		const { store } = isolated.publicEvents.credentialFor(sb);
		await isolated.publicEvents.fetchToken(store);
		const [id] = parameters().filter((p) => p.kind === 'id');
		const outcome = await isolated.wire.wireCase(sb, store, id, 1);
		expect(outcome).toMatchObject({ error: undefined, extra: 0, where: 'path', wrong: [] });
		// Every injection refused before any request; a hostile string may happen to be a number.
		expect(outcome.bad - outcome.sentBad).toBeGreaterThanOrEqual(INJECTIONS.length);
	});
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
