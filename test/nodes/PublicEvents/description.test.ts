import {
	Workflow,
	type INode,
	type INodeProperties,
	type INodePropertyCollection,
	type INodePropertyOptions,
	type INodeType,
} from 'n8n-workflow';

import { PublicEvents } from '../../../nodes/PublicEvents/PublicEvents.node';
import { allOperations, operationOf } from '../../../nodes/PublicEvents/resources';
import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import pkg from '../../../package.json';

/**
 * n8n's conventions for what the editor shows, checked on the assembled description: the lint
 * rules read literals only, and the resource list, the reference operations and every Options
 * collection are built at run time.
 */
const { properties, subtitle, usableAsTool } = new PublicEvents().description;
const resource = properties.find((p) => p.name === 'resource')!;
const resources = (resource.options as INodePropertyOptions[]).map((o) => String(o.value));
const selectorOf = (r: string) =>
	properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(r))!;
const operationsOf = (r: string) => selectorOf(r).options as INodePropertyOptions[];
const shownFor = (r: string, op: string) =>
	properties.filter(
		(p) =>
			p.displayOptions?.show?.resource?.includes(r) &&
			p.displayOptions.show.operation?.includes(op),
	);
const everyOperation = resources.flatMap((r) =>
	operationsOf(r).map((o) => [r, String(o.value)] as const),
);

/** Every property, with the entries of its collections, depth first. */
function flatten(list: INodeProperties[]): INodeProperties[] {
	return list.flatMap((p) => [
		p,
		...(p.type === 'collection' ? flatten(p.options as INodeProperties[]) : []),
	]);
}

/** The writes, as their modules declare them. */
const WRITES = allOperations
	.filter(({ operation }) => operation.kind === 'write')
	.map(({ resource, operation }) => `${resource.value}:${operation.option.value}`);

describe('the Public Events node description', () => {
	it('every operation offered runs, and every operation that runs is offered', () => {
		const offered = everyOperation.map(([r, op]) => `${r}:${op}`).sort();
		const runnable = allOperations
			.map(({ resource, operation }) => `${resource.value}:${operation.option.value}`)
			.sort();
		expect(offered).toEqual(runnable);
		expect(new Set(offered).size).toBe(offered.length);
		for (const [r, op] of everyOperation) expect(operationOf(r, op)?.option.value).toBe(op);
	});

	it('every write says what each run changed, for the run hint', () => {
		for (const { resource, operation } of allOperations) {
			const { kind, eachRun } = operation;
			const name = `${resource.value}:${operation.option.value}`;
			expect([name, kind === 'write' ? typeof eachRun : 'read']).toEqual([
				name,
				kind === 'write' ? 'string' : 'read',
			]);
		}
		expect(WRITES.length).toBeGreaterThan(0);
	});

	it(
		'resource and operation take no expressions; ' + 'the subtitle shows both; usable as a tool',
		() => {
			expect(resource.noDataExpression).toBe(true);
			for (const r of resources) expect([r, selectorOf(r).noDataExpression]).toEqual([r, true]);
			expect(subtitle).toContain('$parameter.operation');
			expect(subtitle).toContain('$parameter.resource');
			expect(usableAsTool).toBe(true);
		},
	);

	it('each operation has an action in sentence case; Get Many operations say "Get many"', () => {
		for (const r of resources) {
			for (const option of operationsOf(r)) {
				const action = String(option.action);
				expect([option.name, action]).toEqual([
					option.name,
					action[0] + action.slice(1).toLowerCase(),
				]);
				if (option.name.startsWith('Get Many')) expect(action).toMatch(/^Get many /);
			}
		}
	});

	it('the canvas subtitle, as n8n evaluates it, names resource and operation in words', () => {
		const shown = (node: INodeType, parameters: Record<string, unknown>) => {
			const { description } = node;
			const on = {
				id: 'n1',
				name: 'Node',
				type: `CUSTOM.${description.name}`,
				typeVersion: 1,
				position: [0, 0] as [number, number],
				parameters: parameters as INode['parameters'],
			};
			const workflow = new Workflow({
				nodes: [on],
				connections: {},
				active: false,
				nodeTypes: {
					getByName: () => node,
					getByNameAndVersion: () => node,
					getKnownTypes: () => ({}),
				} as never,
			});
			return workflow.expression.getSimpleParameterValue(on, description.subtitle!, 'internal', {});
		};
		const words = everyOperation.map(([r, op]) =>
			shown(new PublicEvents(), { resource: r, operation: op }),
		);
		expect(words).toContain('Order: Hold Best Available');
		expect(words).toContain('Reference: Get Many Countries');
		expect(words).toContain('Hall Plan: Get Places');
		for (const text of words)
			expect(text).toMatch(/^[A-Z][a-z]+( [A-Z][a-z]+)*: [A-Z][a-z]+( [A-Z][a-z]+)*$/);
		expect(shown(new PublicEventsTrigger(), { events: ['sale', 'refund', 'newEvent'] })).toBe(
			'Sale, Refund, New Event',
		);
	});

	it('lists of five or more entries are alphabetical, as n8n lint wants them', () => {
		const lists: Array<[string, string[]]> = [
			['Resource', (resource.options as INodePropertyOptions[]).map((o) => o.name)],
		];
		for (const r of resources) lists.push([`${r} operations`, operationsOf(r).map((o) => o.name)]);
		for (const p of flatten(properties)) {
			if (p.name === 'resource' || p.name === 'operation' || !Array.isArray(p.options)) continue;
			const names = (
				p.options as Array<INodePropertyOptions | INodeProperties | INodePropertyCollection>
			).map((o) => ('displayName' in o ? o.displayName : o.name));
			lists.push([p.displayName, names]);
		}
		for (const [list, names] of lists.filter(([, names]) => names.length >= 5)) {
			expect([list, names]).toEqual([list, [...names].sort((a, b) => a.localeCompare(b))]);
		}
	});

	it(
		'every operation has Options with the language; every list ' +
			'Return All and Limit; every write Additional Body Fields',
		() => {
			for (const [r, op] of everyOperation) {
				const shown = shownFor(r, op);
				const options = shown.find((p) => p.name === 'options')?.options as
					| INodeProperties[]
					| undefined;
				const names = (options ?? []).map((o) => o.name);
				expect([r, op, names]).toEqual([
					r,
					op,
					expect.arrayContaining(['language', 'maxRetries', 'maxRetryWait']),
				]);
				expect([r, op, names.includes('additionalBodyFields')]).toEqual([
					r,
					op,
					WRITES.includes(`${r}:${op}`),
				]);
				const limit = shown.find((p) => p.name === 'limit');
				if (shown.some((p) => p.name === 'returnAll')) {
					expect([
						r,
						op,
						limit?.default,
						limit?.typeOptions?.minValue,
						limit?.displayOptions?.show?.returnAll,
					]).toEqual([r, op, 50, 1, [false]]);
				}
			}
		},
	);

	it('dropdowns filled from the API say "Name or ID" and link to expressions', () => {
		const dynamic = flatten(properties).filter((p) => p.typeOptions?.loadOptionsMethod);
		expect(dynamic.length).toBeGreaterThan(5);
		for (const p of dynamic) {
			expect(p.displayName).toMatch(p.type === 'multiOptions' ? / Names or IDs$/ : / Name or ID$/);
			expect(p.description).toContain(
				'<a href="https://docs.n8n.io/code/expressions/">expression</a>',
			);
		}
	});

	it('resource locators offer a searchable list and an ID mode', () => {
		const locators = flatten(properties).filter((p) => p.type === 'resourceLocator');
		expect(new Set(locators.map((p) => p.name))).toEqual(
			new Set(['eventId', 'sectorId', 'places']),
		);
		for (const p of locators) {
			expect(p.modes?.map((m) => [m.name, m.typeOptions?.searchable ?? false])).toEqual([
				['list', true],
				['id', false],
			]);
		}
	});
});

describe('Output: Ledger Rows', () => {
	const outputOf = (list: INodeProperties[]) =>
		(list.find((p) => p.name === 'options')?.options as INodeProperties[] | undefined)?.find(
			(o) => o.name === 'output',
		);

	it('is an option of the sales and refund lists only, defaulting to Full Records', () => {
		const offering = everyOperation
			.filter(([r, op]) => outputOf(shownFor(r, op)))
			.map(([r, op]) => `${r}:${op}`);
		expect(offering.sort()).toEqual([
			'order:getManyForEvent',
			'widget:getManyOrders',
			'widget:getManyRefunds',
		]);
		const output = outputOf(shownFor('widget', 'getManyOrders'))!;
		expect([output.displayName, output.type, output.default]).toEqual([
			'Output',
			'options',
			'records',
		]);
		expect((output.options as INodePropertyOptions[]).map((o) => [o.name, o.value])).toEqual([
			['Full Records', 'records'],
			['Ledger Rows', 'rows'],
		]);
	});

	it('is an option of the poll trigger, shown for Sales and Refunds', () => {
		const output = outputOf(new PublicEventsPollTrigger().description.properties)!;
		expect([output.default, output.displayOptions?.show?.['/source']]).toEqual([
			'records',
			['salesAndRefunds'],
		]);
	});
});

describe("builderHint (read by n8n's AI workflow builder)", () => {
	const own = (node: string) => `${pkg.name}.${node}`;
	const nodes = [
		[
			'Public Events',
			new PublicEvents().description,
			[
				own('publicEventsTrigger'),
				own('publicEventsPollTrigger'),
				'n8n-nodes-base.dataTable',
				'n8n-nodes-base.googleSheets',
			],
		],
		[
			'Public Events Poll Trigger',
			new PublicEventsPollTrigger().description,
			[
				own('publicEventsTrigger'),
				own('publicEvents'),
				'n8n-nodes-base.dataTable',
				'n8n-nodes-base.googleSheets',
			],
		],
		[
			'Public Events Trigger',
			new PublicEventsTrigger().description,
			[
				own('publicEventsPollTrigger'),
				own('publicEvents'),
				'n8n-nodes-base.dataTable',
				'n8n-nodes-base.googleSheets',
			],
		],
	] as const;

	it.each(nodes)(
		'%s says what it is for and names its related nodes, each with a reason',
		(_, description, related) => {
			const hint = description.builderHint!;
			expect(hint.relatedNodes?.map((r) => r.nodeType)).toEqual(related);
			for (const node of hint.relatedNodes ?? [])
				expect(node.relationHint.length).toBeGreaterThan(20);
			expect(hint.searchHint?.length).toBeGreaterThan(200);
		},
	);

	it(
		'the hints pair the nodes: hold then pay, barcodes for ' +
			'organisers, poll or push, rows into a Data Table or Google Sheets',
		() => {
			const [action, poll, push] = nodes.map(
				([, description]) => description.builderHint!.searchHint!,
			);
			expect(action).toMatch(/Order > Create holds.*Order > Change Status to Paid/);
			expect(action).toContain('Barcode > Export for Event gives an organiser');
			for (const text of [action, poll])
				expect(text).toMatch(/Ledger Rows.*Data Table or Google Sheets by key/);
			expect(poll).toContain('Prefer Public Events Trigger');
			expect(push).toContain('use Public Events Poll Trigger when push is not enabled');
		},
	);

	it('the related nodes of this package are nodes it ships', () => {
		const shipped = pkg.n8n.nodes.map((file) =>
			own(file.replace(/^.*\/(\w+)\.node\.js$/, '$1').replace(/^./, (c) => c.toLowerCase())),
		);
		const named = nodes
			.flatMap(([, description]) => description.builderHint!.relatedNodes!.map((r) => r.nodeType))
			.filter((type) => type.startsWith(`${pkg.name}.`));
		for (const type of named) expect(shipped).toContain(type);
	});
});
