import { createHash, createHmac, timingSafeEqual } from 'crypto';

export type Security = 'none' | 'headerToken' | 'signature';

const SIGNATURE = /^(?:sha256=)?([0-9a-f]{64})$/i;

/** Digests first, so the comparison takes the same time whatever the lengths. */
function sameText(a: string, b: string): boolean {
	const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
	return timingSafeEqual(digest(a), digest(b));
}

/**
 * Why a delivery fails the check, or undefined when it passes. The reason goes back to the
 * sender in the 401, so it names the header only: never the secret or the expected value.
 * The signature is over the raw bytes received: a body parsed and serialised again would
 * differ in spacing or key order and fail.
 */
export function securityProblem(
	security: Security,
	check: { headerName: string; header?: string; secret: string; raw?: Buffer },
): string | undefined {
	if (security === 'none') return undefined;
	const { headerName, header, secret, raw } = check;
	if (secret === '') return 'The trigger has no secret to check deliveries with';
	if (header === undefined || header.trim() === '') return `Missing ${headerName} header`;
	if (security === 'headerToken') {
		return sameText(header.trim(), secret) ? undefined : `${headerName} does not match`;
	}
	const hex = SIGNATURE.exec(header.trim())?.[1];
	if (!hex) return `${headerName} is not an HMAC-SHA256 signature (sha256=<64 hex digits>)`;
	if (!raw) return 'The raw body is not available to check the signature';
	const expected = createHmac('sha256', secret).update(raw).digest();
	return timingSafeEqual(expected, Buffer.from(hex, 'hex')) ? undefined : `${headerName} does not match the body`;
}

/** A header by name, whatever its case; the first value when it came more than once. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name.trim().toLowerCase()];
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' ? first : undefined;
}
