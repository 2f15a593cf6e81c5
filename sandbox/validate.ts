import { z } from 'zod';

import { HttpError } from './http';

/**
 * Identifiers travel as numeric strings; URLs and numbers are refused
 * (docs/architecture.md, "Identifiers and fields").
 */
export const numericId = z
	.string({ invalid_type_error: 'must be a numeric id string such as "123"' })
	.regex(/^\d{1,18}$/, 'must be a numeric id string such as "123", not a URL or name');

const positiveInt = (max?: number) =>
	z
		.string()
		.regex(/^\d+$/, 'must be a positive integer')
		.transform(Number)
		.refine((n) => n >= 1, 'must be at least 1')
		.refine((n) => max === undefined || n <= max, `must be at most ${max}`);

export const pagination = {
	page: positiveInt().optional(),
	itemsPerPage: positiveInt(100).optional(),
};

export const isoDay = z
	.string()
	.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
	.refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), 'is not a real date')
	.transform((value) => Date.parse(`${value}T00:00:00Z`));

/** payAt[after] and similar: a day or a full ISO 8601 date-time. */
export const isoDayOrTime = z
	.string()
	.regex(
		/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/,
		'must be YYYY-MM-DD or an ISO 8601 date-time',
	)
	.refine(
		(value) => !Number.isNaN(Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value)),
		'is not a real date',
	)
	.transform((value) => Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value));

export const sortDirection = z.enum(['asc', 'desc'], {
	errorMap: () => ({ message: 'must be asc or desc' }),
});

function fieldName(path: Array<string | number>, fallback: string): string {
	if (path.length === 0) return fallback;
	return path.reduce<string>(
		(name, part) =>
			typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${part}` : part,
		'',
	);
}

/** Parses or answers 400 whose body names every offending field (API Platform's `violations`). */
export function check<T>(
	schema: z.ZodType<T, z.ZodTypeDef, unknown>,
	value: unknown,
	what = 'body',
): T {
	const result = schema.safeParse(value);
	if (result.success) return result.data;
	const violations = result.error.issues.map((issue) => ({
		propertyPath: fieldName(issue.path, what),
		message: issue.message,
	}));
	throw new HttpError(400, {
		code: 'validation_failed',
		message: violations.map((v) => `${v.propertyPath}: ${v.message}`).join('; '),
		violations,
	});
}
