import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { operations } from '../../nodes/PublicEvents/resources';

/**
 * n8n's conventions for what the editor shows, checked on the assembled description: the lint
 * rules read literals only, and the resource list, the reference operations and every Options
 * collection are built at run time.
 */
const { properties, subtitle, usableAsTool } = new PublicEvents().description;
const resource = properties.find((p) => p.name === 'resource')!;
const resources = (resource.options as INodePropertyOptions[]).map((o) => String(o.value));
const selectorOf = (r: string) => properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(r))!;
const operationsOf = (r: string) => selectorOf(r).options as INodePropertyOptions[];
const shownFor = (r: string, op: string) =>
	properties.filter((p) => p.displayOptions?.show?.resource?.includes(r) && p.displayOptions.show.operation?.includes(op));
const everyOperation = resources.flatMap((r) => operationsOf(r).map((o) => [r, String(o.value)] as const));

/** Every property, with the entries of its collections, depth first. */
function flatten(list: INodeProperties[]): INodeProperties[] {
	return list.flatMap((p) => [p, ...(p.type === 'collection' ? flatten(p.options as INodeProperties[]) : [])]);
}

const WRITES = ['order:create', 'order:addPlace', 'order:removeTicket', 'order:extendHold', 'order:changeStatus', 'order:changeTicketStatus'];

describe('the Public Events node description', () => {
	it('every operation offered runs, and every operation that runs is offered', () => {
		const offered = everyOperation.map(([r, op]) => `${r}:${op}`).sort();
		const runnable = Object.entries(operations).flatMap(([r, ops]) => Object.keys(ops).map((op) => `${r}:${op}`)).sort();
		expect(offered).toEqual(runnable);
		expect(offered).toHaveLength(25);
	});

	it('resource and operation take no expressions; the subtitle shows both; usable as a tool', () => {
		expect(resource.noDataExpression).toBe(true);
		for (const r of resources) expect([r, selectorOf(r).noDataExpression]).toEqual([r, true]);
		expect(subtitle).toContain('$parameter["operation"]');
		expect(subtitle).toContain('$parameter["resource"]');
		expect(usableAsTool).toBe(true);
	});

	it('each operation has an action in sentence case; Get Many operations say "Get many"', () => {
		for (const r of resources) {
			for (const option of operationsOf(r)) {
				const action = String(option.action);
				expect([option.name, action]).toEqual([option.name, action[0] + action.slice(1).toLowerCase()]);
				if (option.name.startsWith('Get Many')) expect(action).toMatch(/^Get many /);
			}
		}
	});

	it('lists of five or more entries are alphabetical, as n8n lint wants them', () => {
		const lists: Array<[string, string[]]> = [['Resource', (resource.options as INodePropertyOptions[]).map((o) => o.name)]];
		for (const r of resources) lists.push([`${r} operations`, operationsOf(r).map((o) => o.name)]);
		for (const p of flatten(properties)) {
			if (p.name === 'resource' || p.name === 'operation' || !Array.isArray(p.options)) continue;
			const names = (p.options as Array<INodePropertyOptions | INodeProperties | INodePropertyCollection>).map((o) => ('displayName' in o ? o.displayName : o.name));
			lists.push([p.displayName, names]);
		}
		for (const [list, names] of lists.filter(([, names]) => names.length >= 5)) {
			expect([list, names]).toEqual([list, [...names].sort((a, b) => a.localeCompare(b))]);
		}
	});

	it('every operation has Options with the language; every list Return All and Limit; every write Additional Body Fields', () => {
		for (const [r, op] of everyOperation) {
			const shown = shownFor(r, op);
			const options = shown.find((p) => p.name === 'options')?.options as INodeProperties[] | undefined;
			const names = (options ?? []).map((o) => o.name);
			expect([r, op, names]).toEqual([r, op, expect.arrayContaining(['language', 'maxRetries', 'maxRetryWait'])]);
			expect([r, op, names.includes('additionalBodyFields')]).toEqual([r, op, WRITES.includes(`${r}:${op}`)]);
			const limit = shown.find((p) => p.name === 'limit');
			if (shown.some((p) => p.name === 'returnAll')) {
				expect([r, op, limit?.default, limit?.typeOptions?.minValue, limit?.displayOptions?.show?.returnAll]).toEqual([r, op, 50, 1, [false]]);
			}
		}
	});

	it('dropdowns filled from the API say "Name or ID" and link to expressions', () => {
		const dynamic = flatten(properties).filter((p) => p.typeOptions?.loadOptionsMethod);
		expect(dynamic.length).toBeGreaterThan(5);
		for (const p of dynamic) {
			expect(p.displayName).toMatch(p.type === 'multiOptions' ? / Names or IDs$/ : / Name or ID$/);
			expect(p.description).toContain('<a href="https://docs.n8n.io/code/expressions/">expression</a>');
		}
	});

	it('resource locators offer a searchable list and an ID mode', () => {
		const locators = flatten(properties).filter((p) => p.type === 'resourceLocator');
		expect(new Set(locators.map((p) => p.name))).toEqual(new Set(['eventId', 'sectorId', 'places']));
		for (const p of locators) {
			expect(p.modes?.map((m) => [m.name, m.typeOptions?.searchable ?? false])).toEqual([
				['list', true],
				['id', false],
			]);
		}
	});
});
