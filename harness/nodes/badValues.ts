/**
 * The wrong values of each kind of parameter (badInput.ts tells the kind), and how a value is
 * named in failure lists.
 */
import { iriCollections } from '../../nodes/shared/inputs';
import type { Parameter } from './badInput';

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
				wrongIri(parameter.property.name),
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
		case 'search':
			return [
				...(optional ? ['   ', '\t\r\n'] : [...BLANK, null]),
				{},
				[],
				['paid'],
				true,
				'x'.repeat(KB100),
				'\uD800',
				// Words to search with have a letter or a digit.
				...(parameter.kind === 'search' ? ['?!', ' - '] : []),
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

/** An IRI of a resource the parameter does not take (nodes/shared/inputs.ts, idField). */
export function wrongIri(name: string): string {
	return iriCollections(name)?.includes('cities') ? '/api/v2/orders/5' : '/api/v2/cities/5';
}

/** A short name for a value in failure lists. */
export function label(value: unknown): string {
	const text =
		typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
	return text.length > 30 ? `${text.slice(0, 30)}…(${text.length})` : text;
}
