/**
 * A string literal, or an integer of 16 digits or more standing alone (not part of a fraction or an
 * exponent): strings are matched whole so that digits inside them are never touched.
 */
const STRING_OR_LONG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<![\w.+-])-?\d{16,}(?![\w.])/g;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * JSON as the service sent it, except that an integer a JavaScript number cannot hold exactly
 * (past 2^53: a 64-bit order ID) stays its numeric string. JSON.parse would round it to a
 * neighbour's ID, and a write to that ID pays or releases another buyer's order. Throws as
 * JSON.parse does on text that is not JSON.
 */
export function parseJson(text: string): unknown {
	// Almost every answer holds no run of 16 digits: those are parsed as they are.
	if (!/\d{16}/.test(text)) return JSON.parse(text);
	const exact = text.replace(STRING_OR_LONG_INTEGER, (token) => {
		if (token.startsWith('"')) return token;
		const value = BigInt(token);
		return value > MAX_SAFE || value < -MAX_SAFE ? `"${token}"` : token;
	});
	return JSON.parse(exact);
}
