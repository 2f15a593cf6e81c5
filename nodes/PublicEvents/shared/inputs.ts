import { NodeOperationError, type INode } from 'n8n-workflow';

// A plain id, or the IRI a user copied from a response (`/api/v2/places/123`): the API wants `123`.
const ID = /^(?:[^?#]*\/)?(\d+)\/?$/;
const DAY = /^(\d{4}-\d{2}-\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

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
		const text = typeof value === 'number' && Number.isInteger(value) && value >= 0 ? String(value) : value;
		const match = typeof text === 'string' ? ID.exec(text.trim()) : null;
		if (!match) {
			this.fail(field, `expected a numeric ID (or an IRI such as /api/v2/event-points/123), got ${show(value)}`);
		}
		return match[1];
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
		const candidate =
			value instanceof Date
				? Number.isNaN(value.getTime())
					? ''
					: value.toISOString()
				: typeof (value as { toISODate?: unknown })?.toISODate === 'function'
					? String((value as { toISODate: () => string }).toISODate())
					: value;
		const match = typeof candidate === 'string' ? DAY.exec(candidate.trim()) : null;
		// Round trip: Date.parse accepts 2026-02-31 and rolls it over to March.
		const parsed = match ? Date.parse(`${match[1]}T00:00:00Z`) : NaN;
		if (!match || Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== match[1]) {
			this.fail(field, `expected a date such as 2026-12-31, got ${show(value)}`);
		}
		return match[1];
	}
}

function show(value: unknown): string {
	if (value === undefined || value === null || value === '') return 'nothing';
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;
}
