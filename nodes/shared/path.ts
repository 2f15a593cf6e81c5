import { UnexpectedError } from 'n8n-workflow';

/**
 * A request path whose every value is one encoded segment: `path\`/orders/${id}/status\``. Ids are
 * checked as numbers before they get here; this is the second wall, so that no value can ever
 * reach another endpoint. Dot segments are refused: URL parsers resolve `..` and `%2E%2E` alike.
 */
export function path(parts: TemplateStringsArray, ...values: Array<string | number>): string {
	return parts.reduce(
		(built, part, i) => built + part + (i < values.length ? segment(values[i]) : ''),
		'',
	);
}

function segment(value: string | number): string {
	const text = String(value);
	if (text === '' || /^(?:\.|%2e){1,2}$/i.test(text))
		throw new UnexpectedError(`Refused to build a request path with the segment "${text}"`);
	return encodeURIComponent(text);
}
