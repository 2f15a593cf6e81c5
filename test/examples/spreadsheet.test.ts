import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import fc from 'fast-check';
import { DateTime } from 'luxon';

import { checkProperty } from '../../harness/props/property';

/**
 * The spreadsheet examples' Sheet With Dates step (Code), run on generated rows. n8n's Convert to
 * File cannot write a date cell (it flattens a Date into its toString() text, on 2.40.7 and
 * 1.123.81 alike), so the step writes the sheet itself. Invariant: every value comes back from the
 * sheet as given (text as text, numbers as numbers), `at` as a date cell whose serial is the same
 * instant in the workflow's time zone, and the parts name each other. Real n8n zips and writes it
 * in test/e2e/examples.e2e.test.ts, read back with n8n's own SheetJS.
 */
const read = (file: string) =>
	JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8')) as {
		nodes: Array<{ name: string; parameters: Record<string, any> }>;
	};
const codeOf = (file: string) =>
	String(read(file).nodes.find((n) => n.name === 'Sheet With Dates')!.parameters.jsCode);
const code = codeOf('sales-and-refunds-to-spreadsheet.json');
const COLUMNS = [
	'at',
	'type',
	'channel',
	'orderId',
	'eventPointId',
	'eventName',
	'email',
	'tickets',
	'amount',
	'currency',
	'key',
];

type Part = { data: string; mimeType: string; fileName: string };
type Output = Array<{ json: { rows: number; timeZone: string }; binary: Record<string, Part> }>;

function sheetWithDates(rows: Array<Record<string, unknown>>, zone: string): Output {
	const run = new Function('$input', '$now', 'DateTime', 'Buffer', code) as (
		...args: unknown[]
	) => Output;
	const input = { all: () => rows.map((json) => ({ json })) };
	return run(input, DateTime.now().setZone(zone), DateTime, Buffer);
}

const unescape = (text: string) =>
	text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The cells of sheet1.xml by reference: `{ style, type, value }`. */
function cells(xml: string): Map<string, { style?: string; type?: string; value: string }> {
	const found = new Map<string, { style?: string; type?: string; value: string }>();
	for (const m of xml.matchAll(
		new RegExp(
			'<c r="([A-Z]+\\d+)"(?: s="(\\d+)")?(?: t="(\\w+)")?>' +
				'(?:<v>([^<]*)</v>|<is><t xml:space="preserve">([^<]*)</t></is>)</c>',
			'g',
		),
	))
		found.set(m[1], { style: m[2], type: m[3], value: m[4] ?? unescape(m[5]) });
	return found;
}

const text = fc.oneof(
	fc.string({ maxLength: 12 }),
	fc.constantFrom(
		'Rock & Roll <Live>',
		'"Quoted"',
		"L'Été",
		'Ünïcödé 🎫',
		'   ',
		'a\u0007bell\ttab',
	),
);
const instant = fc
	.date({
		min: new Date('2020-01-01T00:00:00Z'),
		max: new Date('2035-12-31T23:59:59Z'),
		noInvalidDate: true,
	})
	.map((d) => d.toISOString());
const row = fc.record({
	type: fc.constantFrom('sale', 'refund'),
	channel: fc.constantFrom('api', 'widget'),
	key: fc.integer({ min: 1, max: 9_999_999 }).map((n) => `sale:api:${n}`),
	orderId: fc.integer({ min: 1, max: 9_999_999 }).map(String),
	eventPointId: fc.integer({ min: 1, max: 99_999 }).map(String),
	eventName: fc.option(text, { nil: null }),
	at: instant,
	email: fc.option(fc.emailAddress(), { nil: '' }),
	tickets: fc.integer({ min: 1, max: 40 }),
	amount: fc
		.double({ min: -5000, max: 5000, noNaN: true })
		.map((n) => Math.round(n * 100) / 100 || 0),
	currency: fc.constantFrom('EUR', 'CZK', 'USD'),
});
const zone = fc.constantFrom(
	'UTC',
	'America/New_York',
	'Europe/Prague',
	'Asia/Kolkata',
	'Pacific/Chatham',
);

describe('spreadsheet examples: Sheet With Dates', () => {
	it('is the same step in the file on disk and in the one with no disk', () => {
		expect(codeOf('sales-and-refunds-to-spreadsheet-no-disk.json')).toBe(code);
	});

	it(
		'over generated rows and time zones: values come back as given, `at` as a date cell of the ' +
			'same instant in the workflow time zone, and the parts name each other',
		async () => {
			await checkProperty(
				'spreadsheet Sheet With Dates',
				fc.record({ rows: fc.array(row, { maxLength: 25 }), zone }),
				async ({ rows, zone: tz }) => {
					const [out] = sheetWithDates(rows, tz);
					expect(out.json).toEqual({ rows: rows.length, timeZone: tz });
					const parts = Object.fromEntries(
						Object.values(out.binary).map((p) => [
							p.fileName,
							Buffer.from(p.data, 'base64').toString(),
						]),
					);
					expect(Object.keys(parts).sort()).toEqual([
						'[Content_Types].xml',
						'_rels/.rels',
						'xl/_rels/workbook.xml.rels',
						'xl/styles.xml',
						'xl/workbook.xml',
						'xl/worksheets/sheet1.xml',
					]);
					for (const name of Object.keys(parts)) {
						if (name === '[Content_Types].xml' || name.endsWith('.rels')) continue;
						expect([name, parts['[Content_Types].xml'].includes(`PartName="/${name}"`)]).toEqual([
							name,
							true,
						]);
					}
					expect(parts['xl/styles.xml']).toContain('<xf numFmtId="164"');
					const sheet = cells(parts['xl/worksheets/sheet1.xml']);
					COLUMNS.forEach((column, c) =>
						expect(sheet.get(`${String.fromCharCode(65 + c)}1`)?.value).toBe(column),
					);
					rows.forEach((given, r) => {
						COLUMNS.forEach((column, c) => {
							const ref = `${String.fromCharCode(65 + c)}${r + 2}`;
							const value = (given as Record<string, unknown>)[column];
							const got = sheet.get(ref);
							if (value === null || value === '')
								return expect([ref, got]).toEqual([ref, undefined]);
							if (column === 'at') {
								expect([ref, got?.style, got?.type]).toEqual([ref, '1', undefined]);
								// Days since 1899-12-30 on the wall clock of that zone (an hour repeated when
								// the clocks go back reads the same twice, as in any spreadsheet).
								const at = DateTime.fromISO(String(value)).setZone(tz);
								const wallClock = (Number(got!.value) - 25569) * 86_400_000;
								expect([
									ref,
									Math.abs(wallClock - (at.toMillis() + at.offset * 60_000)) < 1,
								]).toEqual([ref, true]);
							} else if (typeof value === 'number') {
								expect([ref, got?.type, Number(got?.value)]).toEqual([ref, undefined, value]);
							} else {
								// Control characters XML cannot hold are left out.
								const kept = [...String(value)]
									.filter((c) => c >= ' ' || '\t\n\r'.includes(c))
									.join('');
								expect([ref, got?.type, got?.value]).toEqual([ref, 'inlineStr', kept]);
							}
						});
					});
				},
				200,
			);
		},
	);
});
