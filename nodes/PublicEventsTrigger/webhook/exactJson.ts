/**
 * JSON.parse turns an integer of more than 15 digits into the nearest double: order
 * 9007199254740993 becomes 9007199254740992, another buyer's order. Such integers are read as
 * text (ids are compared and sent as numeric strings anyway); everything else parses as
 * JSON.parse parses it.
 */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function parseExactJson(text: string): unknown {
	let out = '';
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const char = text[i];
		if (inString) {
			out += char;
			if (char === '\\') out += text[++i] ?? '';
			else if (char === '"') inString = false;
			continue;
		}
		if (char === '"') inString = true;
		else if (char === '-' || (char >= '0' && char <= '9')) {
			NUMBER.lastIndex = i;
			const token = NUMBER.exec(text)?.[0];
			if (token) {
				const long = /^-?\d{16,}$/.test(token);
				out += long ? `"${token}"` : token;
				i += token.length - 1;
				continue;
			}
		}
		out += char;
	}
	return JSON.parse(out);
}
