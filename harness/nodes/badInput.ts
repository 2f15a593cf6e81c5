/**
 * The bad-input matrix, read from the Public Events node's own description: every operation,
 * every parameter it shows (collection entries too), a kind per parameter from its type, and the
 * wrong values of that kind. A new operation or parameter is covered without touching the tests;
 * a parameter of a type not classified here fails the suite until it is.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import type { SandboxInit } from '../../sandbox';
import { credentialFor, runPublicEvents } from './publicEvents';
import { SandboxClient } from '../sandbox/client';

export type Kind =
	| 'id' // one numeric ID (resource locator, "… ID" text, dropdown from the API)
	| 'ids' // an optional list of IDs (filters)
	| 'someIds' // a list of IDs, at least one (Places)
	| 'int'
	| 'number'
	| 'date'
	| 'flag'
	| 'choice' // a fixed list (sort)
	| 'language'
	| 'json'
	| 'text' // any text, sent in a JSON body
	| 'textList' // any text, sent as query values (Status)
	| 'collection'
	| 'editorOnly'; // only lists the editor's choices; never sent

export interface Parameter {
	resource: string;
	operation: string;
	/** Where the value sits, e.g. ['filters', 'cityIds']. */
	path: string[];
	property: INodeProperties;
	kind: Kind;
	/** The name the node's errors start with. */
	field: string;
	required: boolean;
}

/** Kinds the property type alone cannot tell: free text by expression, fractions allowed. */
const KIND_BY_NAME: Record<string, Kind> = {
	status: 'textList',
	toStatus: 'text',
	promoCode: 'text',
	maxRetryWait: 'number',
	timeout: 'number',
	overlapMinutes: 'number',
};
/** Dropdowns from the API whose value is text, not an ID. */
const TEXT_LISTS = ['getPromoCodes'];

export const description = new PublicEvents().description;

export function kindOf(property: INodeProperties): Kind | undefined {
	const byName = KIND_BY_NAME[property.name];
	if (byName) return byName;
	const fromApi = property.typeOptions?.loadOptionsMethod as string | undefined;
	switch (property.type) {
		case 'notice':
			return undefined;
		case 'resourceLocator':
			if (/Not sent\./.test(property.description ?? '')) return 'editorOnly';
			return property.name === 'places' ? 'someIds' : 'id';
		case 'string':
			if (property.name === 'language') return 'language';
			return /Id$/.test(property.name) ? 'id' : 'text';
		case 'options':
			return fromApi && !TEXT_LISTS.includes(fromApi) ? 'id' : fromApi ? 'text' : 'choice';
		case 'multiOptions':
			return fromApi ? 'ids' : 'choice';
		case 'number':
			return 'int';
		case 'dateTime':
			return 'date';
		case 'boolean':
			return 'flag';
		case 'json':
			return 'json';
		case 'collection':
			return 'collection';
		default:
			throw new Error(
				`bad-input matrix: parameter "${property.name}" has ` +
					`type "${property.type}", which no kind covers yet`,
			);
	}
}

/** [resource, operation] of every operation the node offers. */
export function everyOperation(): Array<[string, string]> {
	const resources = (
		description.properties.find((p) => p.name === 'resource')!.options as INodePropertyOptions[]
	).map((o) => String(o.value));
	return resources.flatMap((resource) => {
		const selector = description.properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
		)!;
		return (selector.options as INodePropertyOptions[]).map(
			(o) => [resource, String(o.value)] as [string, string],
		);
	});
}

/** Every parameter an operation shows, collection entries after their collection. */
export function parametersOf(resource: string, operation: string): Parameter[] {
	// The plain node's parameters: those shown only on the AI tool (`'@tool': [true]`) are not
	// (test/nodes/PublicEvents/tool.test.ts).
	const shown = description.properties.filter(
		(p) =>
			p.displayOptions?.show?.resource?.includes(resource) &&
			p.displayOptions.show.operation?.includes(operation) &&
			!p.displayOptions.show['@tool']?.includes(true),
	);
	const walk = (list: INodeProperties[], parent: string[]): Parameter[] =>
		list.flatMap((property) => {
			const kind = kindOf(property);
			if (!kind) return [];
			const path = [...parent, property.name];
			const field = property.displayName;
			const self: Parameter = {
				resource,
				operation,
				path,
				property,
				kind,
				field,
				required: property.required === true,
			};
			return kind === 'collection'
				? [self, ...walk(property.options as INodeProperties[], path)]
				: [self];
		});
	return walk(shown, []);
}

export const rl = (value: string) => ({ __rl: true, mode: 'id', value });

/** IDs the valid base parameters use; the matrix file sends nothing, so they need not exist. */
export interface BaseIds {
	event: string;
	sector: string;
	place: string;
	priceCategory: string;
	order: string;
	ticket: string;
}

/** Valid parameters of an operation: only the parameter under test will be wrong. */
export function baseParameters(resource: string, operation: string, ids: BaseIds): INodeParameters {
	const base: INodeParameters = { resource, operation, returnAll: false, limit: 1 };
	const names = new Set(parametersOf(resource, operation).map((p) => p.path.join('.')));
	const valid: Record<string, INodeParameters[string]> = {
		eventId: rl(ids.event),
		sectorId: rl(ids.sector),
		places: rl(ids.place),
		priceCategory: ids.priceCategory,
		priceCategoryId: ids.priceCategory,
		orderId: ids.order,
		ticketId: ids.ticket,
	};
	for (const [name, value] of Object.entries(valid)) if (names.has(name)) base[name] = value;
	return base;
}

export const EXPRESSION = '={{ $json.v }}';

/** The base with the parameter under test read from each input item's `v`. */
export function withValueFromItem(shownOn: INodeParameters, parameter: Parameter): INodeParameters {
	const value = parameter.property.type === 'resourceLocator' ? rl(EXPRESSION) : EXPRESSION;
	// A parameter shown only on another's choice (Price Category Name or ID on Price: A Price
	// Category).
	const base = { ...shownOn };
	for (const [name, values] of Object.entries(parameter.property.displayOptions?.show ?? {}))
		if (!['resource', 'operation', '@tool'].includes(name) && values?.length)
			base[name] = values[0] as INodeParameters[string];
	if (parameter.path.length === 1) return { ...base, [parameter.path[0]]: value };
	const [collection, entry] = parameter.path;
	return {
		...base,
		[collection]: { ...((base[collection] as IDataObject) ?? {}), [entry]: value },
	} as INodeParameters;
}

/** One input item per value, the value in `v`. */
export const itemsOf = (values: unknown[]) => values.map((v) => ({ v }) as IDataObject);

const KB100 = 100 * 1024;
/**
 * Strings that try to leave the value they are in: a path, a query, a header, a SQL string, HTML.
 */
export const INJECTIONS = [
	'1/../../token',
	'../../5',
	'1?status=paid',
	'1&page=99',
	'1%2F2',
	'1#x',
	"1' OR '1'='1",
	'<script>alert(1)</script>',
	'\r\nX-Injected: 1',
	'1\r\nX-Injected: 1',
	'1/2',
	'1;2',
	'１２３',
	'٣',
	'1\u00002',
	'😀',
];
const HUGE = ['x'.repeat(KB100), '1'.repeat(KB100)];
const WRONG_TYPES = [{ id: 1001 }, [[1]], true, false];
const BLANK = ['', '   ', '\t\r\n'];

/** The wrong values for a parameter: its kind decides, its description gives ranges and choices. */
export function badValues(parameter: Parameter): unknown[] {
	const optional = !parameter.required;
	const { minValue, maxValue } = parameter.property.typeOptions ?? {};
	switch (parameter.kind) {
		case 'id':
		case 'ids':
		case 'someIds': {
			const list = parameter.kind !== 'id';
			const nothing = [...BLANK, null, undefined];
			const blank =
				parameter.kind === 'someIds'
					? [...nothing, []]
					: parameter.kind === 'id'
						? optional
							? ['   ']
							: nothing
						: [];
			return [
				...WRONG_TYPES,
				...(list ? [['1', 'x'], [{}], '1, x', '1,'.repeat(1001)] : [['1001', '1002'], []]),
				...blank,
				0,
				-1,
				1.5,
				-5,
				2 ** 53 + 2,
				1e21,
				'0',
				'-1',
				'1.5',
				'1e3',
				'0x1F',
				'+5',
				'9'.repeat(20),
				'abc',
				'next week',
				'/api/v2/event-points/',
				wrongIri(parameter.field),
				...INJECTIONS,
				...HUGE,
			];
		}
		case 'int':
		case 'number': {
			const min = Number(minValue ?? 0);
			const over = maxValue === undefined ? 1e12 : Number(maxValue) + 1;
			const fraction = parameter.kind === 'int' ? [1.5, '2.5'] : [];
			return [
				{},
				[5],
				[],
				true,
				false,
				min - 1,
				min - 0.5,
				over,
				-1,
				...fraction,
				...BLANK,
				'abc',
				'5 minutes',
				'1e3',
				'0x10',
				'Infinity',
				'\r\nX-Injected: 1',
				...HUGE,
			];
		}
		case 'date':
			return [
				'2026-13-40',
				'2026-13-01',
				'31.12.2026',
				'31/12/2026',
				'12/31/2026',
				'yesterday',
				'next tuesday',
				'2026-02-30',
				'2026-02-10T25:00:00',
				'2026-01-01T10:99',
				'2026-01-01T10:00:00+99:00',
				'2026-1-5',
				'20261231',
				'2026-12-31T',
				1e12,
				0,
				true,
				{},
				[],
				['2026-01-01'],
				'   ',
				'\r\nX-Injected: 1',
				'2026-12-31\r\nX-Injected: 1',
				'2026-12-31&x=1',
				'2026-12-31#x',
				'<script>',
				...HUGE,
			];
		case 'flag':
			return ['yes', 'no', 1, 0, 'on', {}, [], [true], '', '   ', 'true\r\nX-Injected: 1', ...HUGE];
		case 'choice':
			return [
				'sideways',
				'ASC',
				'random',
				['asc'],
				{},
				true,
				1,
				'<script>',
				'asc\r\nX-Injected: 1',
				'   ',
				...HUGE,
			];
		case 'language':
			return [
				'English',
				'en\r\nX-Injected: 1',
				'e',
				'en-',
				'12',
				'en US',
				'de;q=0.9',
				'<script>',
				'en?x=1',
				{},
				[],
				true,
				5,
				`en${'-abcdefgh'.repeat(KB100 / 9)}`,
				...HUGE,
			];
		case 'json':
			return [
				'[1,2]',
				'null',
				'"text"',
				'42',
				'true',
				'{bad json',
				'{"a":',
				[1],
				42,
				true,
				`{${'x'.repeat(KB100)}`,
			];
		case 'text':
			return [
				...(optional ? ['   ', '\t\r\n'] : [...BLANK, null]),
				{},
				[],
				['paid'],
				true,
				'x'.repeat(KB100),
				'\uD800',
			];
		case 'textList':
			return [{ a: 1 }, [{ a: 1 }], [['paid']], true, 'x'.repeat(KB100), '\uD800'];
		// n8n hands the node an object whatever the workflow holds
		// (test/nodes/PublicEvents/badInputWire)
		case 'collection':
		case 'editorOnly':
			return [];
	}
}

/** An IRI of a resource the field does not take. */
export function wrongIri(field: string): string {
	return field.startsWith('City') ? '/api/v2/orders/5' : '/api/v2/cities/5';
}

/** A short name for a value in failure lists. */
export function label(value: unknown): string {
	const text =
		typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
	return text.length > 30 ? `${text.slice(0, 30)}…(${text.length})` : text;
}

/**
 * Values whose error item does not name the field and its item: each input item k must give one
 * output item, paired with k,
 * `{ error: "<field>: …", description: 'Fix the "<field>" parameter of item k.' }`.
 */
export function misjudged(items: INodeExecutionData[], values: unknown[], field: string): string[] {
	return values.flatMap((value, k) => {
		const out = items.filter(
			(item) => (item.pairedItem as { item: number } | undefined)?.item === k,
		);
		const json = out[0]?.json ?? {};
		const ok =
			out.length === 1 &&
			String(json.error).startsWith(`${field}: `) &&
			json.description === `Fix the "${field}" parameter of item ${k + 1}.`;
		return ok
			? []
			: [
					`${label(value)} -> ` +
						`${out.length === 1 ? label(json.error ?? json) : `${out.length} items`}`,
				];
	});
}

/** The counts of docs/reliability.md, one part per suite, merged into one summary. */
export interface Tally {
	operations: Set<string>;
	parameters: Set<string>;
	badValues: number;
	rejectedWithZeroRequests: number;
	sentEncoded: number;
}

export const newTally = (): Tally => ({
	operations: new Set(),
	parameters: new Set(),
	badValues: 0,
	rejectedWithZeroRequests: 0,
	sentEncoded: 0,
});

const RESULTS = resolve(__dirname, '../../.ci-results');
const RESULTS_DIR = join(RESULTS, 'reliability');

/**
 * Prints the suite's counts; with RELIABILITY_REPORT=1 also merges them into
 * .ci-results/bad-input-summary.json.
 */
export function report(suite: string, tally: Tally): void {
	const counts = {
		operations: [...tally.operations].sort(),
		parameters: [...tally.parameters].sort(),
		badValues: tally.badValues,
		rejectedWithZeroRequests: tally.rejectedWithZeroRequests,
		sentEncoded: tally.sentEncoded,
	};
	process.stdout.write(
		`bad input (${suite}): ${counts.operations.length} operations, ` +
			`${counts.parameters.length} parameters, ${counts.badValues} bad values, ` +
			`${counts.rejectedWithZeroRequests} rejected with ` +
			`zero requests, ${counts.sentEncoded} sent encoded\n`,
	);
	if (process.env.RELIABILITY_REPORT !== '1') return;
	const parts = join(RESULTS, 'bad-input-parts');
	mkdirSync(parts, { recursive: true });
	mkdirSync(RESULTS_DIR, { recursive: true });
	writeFileSync(join(parts, `${suite}.json`), JSON.stringify(counts));
	// Suites finish in parallel workers: write, read the parts again, and rewrite until nothing new
	// came in.
	const read = () =>
		readdirSync(parts)
			.filter((name) => name.endsWith('.json'))
			.sort()
			.map((name) => readFileSync(join(parts, name), 'utf8'));
	for (let round = 0; round < 5; round++) {
		const seen = read();
		const all = seen.map((text) => JSON.parse(text) as typeof counts);
		const summary = {
			operations: new Set(all.flatMap((part) => part.operations)).size,
			parameters: new Set(all.flatMap((part) => part.parameters)).size,
			badValues: all.reduce((sum, part) => sum + part.badValues, 0),
			rejectedWithZeroRequests: all.reduce((sum, part) => sum + part.rejectedWithZeroRequests, 0),
			sentEncoded: all.reduce((sum, part) => sum + part.sentEncoded, 0),
		};
		const file = join(RESULTS, 'bad-input-summary.json');
		writeFileSync(`${file}.${process.pid}`, `${JSON.stringify(summary, null, 2)}\n`);
		renameSync(`${file}.${process.pid}`, file);
		writeFileSync(
			join(RESULTS_DIR, 'bad-input.json'),
			JSON.stringify({
				title: 'Bad input',
				lines: [
					`${summary.badValues} wrong values over ${summary.parameters} ` +
						`parameters of ${summary.operations} operations (types, ranges, ` +
						`formats, empty, huge, injection-looking ids and filters): ` +
						`${summary.rejectedWithZeroRequests} refused with an error ` +
						`naming the field and item and **zero requests sent**; ` +
						`${summary.sentEncoded} legitimate texts sent as ` +
						`encoded query values, never spliced into a path.`,
				],
			}),
		);
		if (read().join('\n') === seen.join('\n')) return;
	}
}

/**
 * A sandbox and an organiser credential whose token is already fetched, so that "no request"
 * in the bad-input suites means none at all, not even a token request.
 */
export async function warmSandbox(options: SandboxInit) {
	const sb = await SandboxClient.start(options);
	const { store } = credentialFor(sb, { apiKey: sb.keys.organiser });
	await runPublicEvents(store, {
		resource: 'reference',
		operation: 'getManyCountries',
		returnAll: false,
		limit: 1,
	});
	return { sb, store };
}
