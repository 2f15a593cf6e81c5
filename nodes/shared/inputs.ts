import { NodeOperationError, type INode } from 'n8n-workflow';

// A plain id, or the IRI a user copied from a response (`/api/v2/places/123`): the API wants `123`.
// The segment before the number names the collection; no segment starts with a dot, so `../` never
// passes as a path.
const IRI = new RegExp(
	// origin?, path segments, then the collection and the number
	'^(?:https?://[^/?#\\s]+)?/?(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*' +
		'([A-Za-z][A-Za-z0-9_-]*)/(\\d+)/?$',
);
const TIME = new RegExp(
	// day, then an optional time with optional seconds, fraction and offset (up to ±14:59)
	'^(\\d{4}-\\d{2}-\\d{2})(?:[T ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?' +
		'(?:Z|[+-](?:0\\d|1[0-4]):?[0-5]\\d)?)?$',
);
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const INT64_MAX = '9223372036854775807';
/** Longest id or IRI read; anything longer is not one (and is never put in a URL). */
const MAX_ID_TEXT = 2000;
const MAX_IDS = 1000;
const MAX_TEXT = 1000;
/**
 * Whole-number fields are 32-bit integers at most: a hold of 1e12 minutes is a slip, not a wish.
 */
export const MAX_WHOLE = 2_147_483_647;

/**
 * An ID field as its definition gives it: the name keys its IRI collections, the label names it in
 * errors.
 */
export type IdField = Readonly<{ name: string; displayName: string }>;

/**
 * The IRI collections of each ID parameter, by parameter name (labels may change, names stay for
 * saved workflows), as idField declared them. Kept beside the definitions, not in them: n8n would
 * show a key of their own.
 */
const COLLECTIONS = new Map<string, readonly string[]>();

/**
 * Declares `field` an ID parameter whose IRIs name one of `collections` (`/api/v2/orders/5` for
 * ['orders']; the first is the one errors show) and returns it unchanged: an IRI of another
 * resource is a mistake, not an ID. A parameter not declared takes plain IDs only.
 */
export function idField<Field extends IdField>(
	field: Field,
	collections: readonly string[],
): Field {
	const known = COLLECTIONS.get(field.name);
	// One name, one resource: Inputs.id finds the collections by name.
	if (known !== undefined && known.join() !== collections.join())
		throw new Error(`ID parameter ${field.name} is declared with two sets of collections`);
	COLLECTIONS.set(field.name, collections);
	return field;
}

/** The IRI collections of the ID parameter `name`; undefined when no definition declared it. */
export function iriCollections(name: string): readonly string[] | undefined {
	return COLLECTIONS.get(name);
}

/**
 * The numeric id (at least 1, leading zeros dropped) in a whole number, a numeric string or an
 * IRI whose collection is one of `collections` (any, when not given); undefined when there is none.
 */
export function numericId(value: unknown, collections?: readonly string[]): string | undefined {
	if (typeof value === 'number')
		return Number.isSafeInteger(value) && value > 0 ? String(value) : undefined;
	if (typeof value !== 'string' || value.length > MAX_ID_TEXT) return undefined;
	const text = value.trim();
	let digits = /^\d+$/.test(text) ? text : undefined;
	if (digits === undefined) {
		const iri = IRI.exec(text);
		if (!iri || (collections && !collections.includes(iri[1]))) return undefined;
		digits = iri[2];
	}
	digits = digits.replace(/^0+/, '');
	const tooBig =
		digits.length > INT64_MAX.length || (digits.length === INT64_MAX.length && digits > INT64_MAX);
	return digits === '' || tooBig ? undefined : digits;
}

/**
 * Checks input before any request; every failure names the field (and the item, for the action
 * node).
 */
export class Inputs {
	constructor(
		private readonly node: INode,
		private readonly itemIndex?: number,
	) {}

	fail(field: string, problem: string): never {
		// Items counted as a person reads them: the first is item 1 (n8n's itemIndex is 0).
		const item = this.itemIndex === undefined ? '' : ` of item ${this.itemIndex + 1}`;
		throw new NodeOperationError(this.node, `${field}: ${problem}`, {
			itemIndex: this.itemIndex,
			description: `Fix the "${field}" parameter${item}.`,
		});
	}

	/**
	 * A numeric-string id from a whole number, a numeric string or an IRI of the field's resource.
	 */
	id(value: unknown, { name, displayName: field }: IdField): string {
		const collections = iriCollections(name) ?? [];
		const id = numericId(value, collections);
		if (id === undefined) {
			const example = collections.length
				? ` (or its API address, such as /api/v2/${collections[0]}/123)`
				: '';
			this.fail(field, `expected a numeric ID${example}, got ${show(value)}`);
		}
		return id;
	}

	/** Ids from an array, or from text separated by commas. */
	ids(value: unknown, field: IdField): string[] {
		const list = Array.isArray(value)
			? value
			: typeof value === 'string'
				? value.split(',').filter((part) => part.trim() !== '')
				: value === undefined || value === null
					? []
					: [value];
		if (list.length > MAX_IDS)
			this.fail(field.displayName, `expected at most ${MAX_IDS} IDs, got ${list.length}`);
		return list.map((entry) => this.id(entry, field));
	}

	/** Ids as `ids()` reads them, at least one. */
	someIds(value: unknown, field: IdField): string[] {
		const ids = this.ids(value, field);
		if (ids.length === 0) this.fail(field.displayName, 'expected at least one ID');
		return ids;
	}

	/** `YYYY-MM-DD` from a day, an ISO date-time, a Date or a Luxon DateTime. */
	day(value: unknown, field: string): string {
		const moment = isoMoment(isoText(value, 'toISODate'));
		if (!moment) this.fail(field, `expected a date such as 2026-12-31, got ${show(value)}`);
		return moment.day;
	}

	/**
	 * An ISO 8601 day or date-time, sent as given (with its offset, if any); Dates and Luxon
	 * DateTimes too.
	 */
	time(value: unknown, field: string): string {
		const moment = isoMoment(isoText(value, 'toISO'));
		if (!moment)
			this.fail(
				field,
				`expected a date or date-time such as 2026-12-31T18:00:00Z, got ${show(value)}`,
			);
		return moment.text;
	}

	/**
	 * A number from `min` to `max` (whole when asked), from a number or a decimal numeric string.
	 * Booleans, arrays and blank text are not numbers, though JavaScript would make them one.
	 */
	number(
		value: unknown,
		field: string,
		{ min, max = MAX_WHOLE, whole = false }: { min: number; max?: number; whole?: boolean },
	): number {
		const number = typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value) : value;
		if (
			typeof number !== 'number' ||
			!Number.isFinite(number) ||
			(whole && !Number.isInteger(number)) ||
			number < min ||
			number > max
		) {
			const upTo =
				max < MAX_WHOLE || (typeof number === 'number' && number > max)
					? ` and at most ${max}`
					: '';
			this.fail(
				field,
				`expected a ${whole ? 'whole ' : ''}number of at least ${min}${upTo}, got ${show(value)}`,
			);
		}
		return number;
	}

	/** A whole number of at least 1 (and at most MAX_WHOLE), from a number or a numeric string. */
	positiveInt(value: unknown, field: string): number {
		return this.number(value, field, { min: 1, whole: true });
	}

	/** true or false; the text "true" / "false" too (a spreadsheet cell), nothing else. */
	flag(value: unknown, field: string): boolean {
		const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
		if (text === true || text === 'true') return true;
		if (text === false || text === 'false') return false;
		this.fail(field, `expected true or false, got ${show(value)}`);
	}

	/** Text that is not blank, trimmed, of sane length and well-formed (it may go into a URL). */
	text(value: unknown, field: string): string {
		const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
		if (text === '') this.fail(field, `expected a value, got ${show(value)}`);
		if (text.length > MAX_TEXT)
			this.fail(field, `expected at most ${MAX_TEXT} characters, got ${text.length}`);
		if (/\p{Surrogate}/u.test(text))
			this.fail(field, `contains a broken character (a lone UTF-16 surrogate): ${show(value)}`);
		return text;
	}
}

/** A day or date-time whose parts exist (no 2026-02-31, no 25:00, offsets up to ±14:59). */
export function isoMoment(candidate: unknown): { day: string; text: string } | undefined {
	const match = typeof candidate === 'string' ? TIME.exec(candidate.trim()) : null;
	if (!match) return undefined;
	// Round trip: Date.parse accepts 2026-02-31 and rolls it over to March.
	const parsed = Date.parse(`${match[1]}T00:00:00Z`);
	if (Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== match[1])
		return undefined;
	return { day: match[1], text: match[0].replace(' ', 'T') };
}

/**
 * A Date, or a Luxon DateTime (what n8n expressions give) through `method`, as ISO text; anything
 * else as given.
 */
function isoText(value: unknown, method: 'toISODate' | 'toISO'): unknown {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
	const convert = (value as Record<string, unknown> | null | undefined)?.[method];
	return typeof convert === 'function' ? String((convert as () => unknown).call(value)) : value;
}

/** The value as an error message quotes it: short, control characters escaped. */
export function show(value: unknown): string {
	if (value === undefined || value === null || value === '') return 'nothing';
	const chars = Array.from(
		typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)),
	);
	const shown = chars.slice(0, 40).map((c) => {
		const code = c.charCodeAt(0);
		const control =
			code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
		return control ? `\\u${code.toString(16).padStart(4, '0')}` : c;
	});
	return `"${shown.join('')}${chars.length > 40 ? '…' : ''}"`;
}
