import { NodeOperationError, type INode } from 'n8n-workflow';

// A plain id, or the IRI a user copied from a response (`/api/v2/places/123`): the API wants `123`.
const ID = /^(?:[^?#]*\/)?(\d+)\/?$/;
const DAY = /^(\d{4}-\d{2}-\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** The numeric id in a number, a numeric string or an IRI; undefined when there is none. */
export function numericId(value: unknown): string | undefined {
	const text = typeof value === 'number' && Number.isInteger(value) && value >= 0 ? String(value) : value;
	return typeof text === 'string' ? ID.exec(text.trim())?.[1] : undefined;
}

/** Checks input before any request; every failure names the field and the item. */
export class Inputs {
	constructor(
		private readonly node: INode,
		private readonly itemIndex: number,
	) {}

	fail(field: string, problem: string): never {
		throw new NodeOperationError(this.node, `${field}: ${problem}`, {
			itemIndex: this.itemIndex,
			description: `Fix the "${field}" parameter of item ${this.itemIndex}.`,
		});
	}

	/** A numeric-string id from a number, a numeric string or an IRI. */
	id(value: unknown, field: string): string {
		const id = numericId(value);
		if (id === undefined) {
			this.fail(field, `expected a numeric ID (or an IRI such as /api/v2/event-points/123), got ${show(value)}`);
		}
		return id;
	}

	/** Ids from an array, or from text separated by commas. */
	ids(value: unknown, field: string): string[] {
		const list = Array.isArray(value)
			? value
			: typeof value === 'string'
				? value.split(',').filter((part) => part.trim() !== '')
				: value === undefined || value === null
					? []
					: [value];
		return list.map((entry) => this.id(entry, field));
	}

	/** `YYYY-MM-DD` from a day, an ISO date-time, a Date or a Luxon DateTime. */
	day(value: unknown, field: string): string {
		const candidate = isoText(value, 'toISODate');
		const match = typeof candidate === 'string' ? DAY.exec(candidate.trim()) : null;
		// Round trip: Date.parse accepts 2026-02-31 and rolls it over to March.
		const parsed = match ? Date.parse(`${match[1]}T00:00:00Z`) : NaN;
		if (!match || Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== match[1]) {
			this.fail(field, `expected a date such as 2026-12-31, got ${show(value)}`);
		}
		return match[1];
	}

	/** An ISO 8601 day or date-time, sent as given (with its offset, if any); Dates and Luxon DateTimes too. */
	time(value: unknown, field: string): string {
		const candidate = isoText(value, 'toISO');
		const match = typeof candidate === 'string' ? TIME.exec(candidate.trim()) : null;
		if (!match) this.fail(field, `expected a date or date-time such as 2026-12-31T18:00:00Z, got ${show(value)}`);
		this.day(match[1], field);
		return match[0].replace(' ', 'T');
	}

	/** Ids as `ids()` reads them, at least one. */
	someIds(value: unknown, field: string): string[] {
		const ids = this.ids(value, field);
		if (ids.length === 0) this.fail(field, 'expected at least one ID');
		return ids;
	}

	/** A whole number of at least 1, from a number or a numeric string. */
	positiveInt(value: unknown, field: string): number {
		const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
			this.fail(field, `expected a whole number of at least 1, got ${show(value)}`);
		}
		return number;
	}

	/** Text that is not blank, trimmed. */
	text(value: unknown, field: string): string {
		const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
		if (text === '') this.fail(field, `expected a value, got ${show(value)}`);
		return text;
	}
}

/** A Date, or a Luxon DateTime (what n8n expressions give) through `method`, as ISO text; anything else as given. */
function isoText(value: unknown, method: 'toISODate' | 'toISO'): unknown {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
	const convert = (value as Record<string, unknown> | null | undefined)?.[method];
	return typeof convert === 'function' ? String((convert as () => unknown).call(value)) : value;
}

function show(value: unknown): string {
	if (value === undefined || value === null || value === '') return 'nothing';
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;
}
