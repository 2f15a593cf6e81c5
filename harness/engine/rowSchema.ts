import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shipped JSON Schema of "Rows for a Table" (nodes/PublicEvents/__schema__/rows.json) and a
 * checker for the part of draft-07 it uses: oneOf, const, enum, type (with null), pattern,
 * format date-time, required, additionalProperties false. Errors are listed, not thrown.
 */
export const ROWS_SCHEMA_FILE = join(
	__dirname,
	'..',
	'..',
	'nodes',
	'PublicEvents',
	'__schema__',
	'rows.json',
);

export interface RowSchema {
	type?: string | string[];
	const?: unknown;
	enum?: unknown[];
	pattern?: string;
	format?: string;
	properties?: Record<string, RowSchema>;
	required?: string[];
	additionalProperties?: boolean;
	oneOf?: RowSchema[];
	title?: string;
}

export const rowsSchema = () => JSON.parse(readFileSync(ROWS_SCHEMA_FILE, 'utf8')) as RowSchema;

const typeOf = (value: unknown) =>
	value === null
		? 'null'
		: Array.isArray(value)
			? 'array'
			: Number.isInteger(value)
				? 'integer'
				: typeof value;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function schemaErrors(value: unknown, schema: RowSchema, path = '$'): string[] {
	if (schema.oneOf) {
		const fits = schema.oneOf.filter((branch) => schemaErrors(value, branch, path).length === 0);
		if (fits.length === 1) return [];
		const detail = schema.oneOf
			.map((branch) => `${branch.title ?? '?'}: ${schemaErrors(value, branch, path).join('; ')}`)
			.join(' | ');
		return [`${path}: fits ${fits.length} of oneOf (${detail})`];
	}
	const errors: string[] = [];
	if ('const' in schema && value !== schema.const)
		errors.push(`${path}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
	if (schema.enum && !schema.enum.includes(value))
		errors.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
	if (schema.type) {
		const types = Array.isArray(schema.type) ? schema.type : [schema.type];
		const type = typeOf(value);
		if (!types.includes(type) && !(type === 'integer' && types.includes('number')))
			errors.push(`${path}: ${type}, schema says ${types.join(' or ')}`);
	}
	if (typeof value === 'string') {
		if (schema.pattern && !new RegExp(schema.pattern).test(value))
			errors.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
		if (schema.format === 'date-time' && (!ISO.test(value) || Number.isNaN(Date.parse(value))))
			errors.push(`${path}: ${JSON.stringify(value)} is no date-time`);
	}
	if (typeOf(value) === 'object' && (schema.properties || schema.required)) {
		const object = value as Record<string, unknown>;
		for (const key of schema.required ?? [])
			if (!(key in object)) errors.push(`${path}.${key}: missing`);
		for (const [key, v] of Object.entries(object)) {
			const property = schema.properties?.[key];
			if (property) errors.push(...schemaErrors(v, property, `${path}.${key}`));
			else if (schema.additionalProperties === false)
				errors.push(`${path}.${key}: not in the schema`);
		}
	}
	return errors;
}
