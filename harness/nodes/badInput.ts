/**
 * The bad-input matrix, read from the Public Events node's own description: every operation,
 * every parameter it shows (collection entries too), a kind per parameter from its type, and valid
 * parameters around the one under test (badValues.ts has the wrong values of each kind). A new
 * operation or parameter is covered without touching the tests; a parameter of a type not
 * classified here fails the suite until it is.
 */
import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { iriCollections } from '../../nodes/shared/inputs';
import { label } from './badValues';

export type Kind =
	| 'id' // one numeric ID (resource locator, "… ID" text, a dropdown declared an ID field)
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
	| 'search' // words the node searches with itself (City, Name Contains); never sent as given
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
	cityName: 'search',
	nameContains: 'search',
	maxRetryWait: 'number',
	timeout: 'number',
	overlapMinutes: 'number',
};

export const description = new PublicEvents().description;

export function kindOf(property: INodeProperties): Kind | undefined {
	const byName = KIND_BY_NAME[property.name];
	if (byName) return byName;
	const fromApi = property.typeOptions?.loadOptionsMethod !== undefined;
	// Declared with idField (nodes/shared/inputs.ts): its IRIs name a collection.
	const declaredId = iriCollections(property.name) !== undefined;
	switch (property.type) {
		case 'notice':
			return undefined;
		case 'resourceLocator':
			if (/Not sent\./.test(property.description ?? '')) return 'editorOnly';
			return property.name === 'places' ? 'someIds' : 'id';
		case 'string':
			if (property.name === 'language') return 'language';
			return declaredId || /Id$/.test(property.name) ? 'id' : 'text';
		case 'options':
			return declaredId ? 'id' : fromApi ? 'text' : 'choice';
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

/**
 * The ID every valid base parameter takes: the sandbox's first event, and no sector, place, price
 * category, order or ticket there has it (each record its own range), so a run that passes the
 * checks makes one request and gets one answer. The matrix sends nothing at all.
 */
export const SAMPLE_ID = '1001';
/** The day every date parameter outside a collection takes (a period's From, say). */
export const SAMPLE_DAY = '2026-01-01';

/**
 * Valid parameters of an operation: only the parameter under test will be wrong. Every ID
 * parameter outside a collection (a filter is optional) gets SAMPLE_ID, whatever its resource;
 * every date parameter there, SAMPLE_DAY.
 */
export function baseParameters(resource: string, operation: string): INodeParameters {
	const base: INodeParameters = { resource, operation, returnAll: false, limit: 1 };
	for (const { path, property, kind } of parametersOf(resource, operation)) {
		if (path.length === 1 && ['id', 'ids', 'someIds', 'editorOnly'].includes(kind))
			base[property.name] = property.type === 'resourceLocator' ? rl(SAMPLE_ID) : SAMPLE_ID;
		if (path.length === 1 && kind === 'date') base[property.name] = SAMPLE_DAY;
	}
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
