/**
 * Output schemas as n8n reads them (`<node dir>/__schema__/v1.0.0/<resource>/<operation>.json`,
 * JSON Schema): the editor shows them as a preview of a node's output before it has run, so a
 * workflow can be mapped without a test execution. Inferred from real outputs and checked
 * against them (test/nodes/PublicEvents/outputSchemas.test.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface JsonSchema {
	type: string | string[];
	properties?: Record<string, JsonSchema>;
	required?: string[];
	items?: JsonSchema;
}

export const SCHEMA_DIR = join(
	__dirname,
	'..',
	'..',
	'nodes',
	'PublicEvents',
	'__schema__',
	'v1.0.0',
);
/**
 * The push trigger's (no resource/operation: n8n reads `<node dir>/__schema__/v<version>.json`).
 */
export const PUSH_TRIGGER_SCHEMA = join(
	__dirname,
	'..',
	'..',
	'nodes',
	'PublicEventsTrigger',
	'__schema__',
	'v1.0.0.json',
);
export const schemaFile = (resource: string, operation: string) =>
	join(SCHEMA_DIR, resource, `${operation}.json`);

function typeOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	return typeof value; // string, number, boolean, object
}

/** The narrowest schema every sample fits: keys present in all samples are required. */
export function inferSchema(samples: unknown[]): JsonSchema {
	const types = [...new Set(samples.map(typeOf))].sort();
	const schema: JsonSchema = { type: types.length === 1 ? types[0] : types };
	const objects = samples.filter((s): s is Record<string, unknown> => typeOf(s) === 'object');
	if (objects.length > 0) {
		const keys = [...new Set(objects.flatMap(Object.keys))].sort();
		schema.properties = Object.fromEntries(
			keys.map((key) => [key, inferSchema(objects.filter((o) => key in o).map((o) => o[key]))]),
		);
		schema.required = keys.filter((key) => objects.every((o) => key in o));
	}
	const elements = samples.filter(Array.isArray).flat();
	if (elements.length > 0) schema.items = inferSchema(elements);
	return schema;
}

/**
 * Where `value` does not fit `schema`: wrong types, missing required keys, keys the schema lacks.
 */
export function misfits(value: unknown, schema: JsonSchema, path = '$'): string[] {
	const types = Array.isArray(schema.type) ? schema.type : [schema.type];
	const type = typeOf(value);
	if (!types.includes(type)) return [`${path}: ${type}, schema says ${types.join(' or ')}`];
	if (type === 'object') {
		const object = value as Record<string, unknown>;
		const missing = (schema.required ?? [])
			.filter((key) => !(key in object))
			.map((key) => `${path}.${key}: missing`);
		const rest = Object.entries(object).flatMap(([key, v]) =>
			schema.properties?.[key]
				? misfits(v, schema.properties[key], `${path}.${key}`)
				: [`${path}.${key}: not in the schema`],
		);
		return [...missing, ...rest];
	}
	if (type === 'array' && schema.items)
		return (value as unknown[]).flatMap((v, i) => misfits(v, schema.items!, `${path}[${i}]`));
	return [];
}

export function readSchema(resource: string, operation: string): JsonSchema | undefined {
	const file = schemaFile(resource, operation);
	return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as JsonSchema) : undefined;
}

export function writeSchema(resource: string, operation: string, schema: JsonSchema): void {
	const file = schemaFile(resource, operation);
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(file, `${JSON.stringify(schema, null, '\t')}\n`);
}

/**
 * An operation's output checked against its shipped schema, for its own test: every item fits.
 * `UPDATE_SCHEMAS=1` (npm run schemas) writes the schema from these items first.
 */
export function expectOutputSchema(resource: string, operation: string, items: unknown[]): void {
	expect(items.length).toBeGreaterThan(0);
	if (process.env.UPDATE_SCHEMAS === '1') writeSchema(resource, operation, inferSchema(items));
	const schema = readSchema(resource, operation);
	expect(schema).toMatchObject({ type: 'object', properties: expect.any(Object) });
	expect(items.flatMap((item) => misfits(item, schema!))).toEqual([]);
}
