import { createHash, createHmac, timingSafeEqual } from 'crypto';

export type Security = 'none' | 'headerToken' | 'signature';

/** Five minutes, as Stripe, Luma and Ticket Tailor allow between a signed time and its receipt. */
export const DEFAULT_REPLAY_WINDOW_S = 300;

const BARE = /^(?:sha256=)?([0-9a-f]{64})$/i;
const HEX = /^[0-9a-f]{64}$/i;
/** Signatures one header may carry: a sender rotating its secret signs with both for a while. */
const MAX_SIGNATURES = 4;
const SIGNATURE_FORMS = 'sha256=<64 hex digits>, or t=<unix seconds>,sha256=<64 hex digits>';

/** Digests first, so the comparison takes the same time whatever the lengths. */
function sameText(a: string, b: string): boolean {
	const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
	return timingSafeEqual(digest(a), digest(b));
}

interface Parsed {
	/** Unix seconds, when the sender signed a time with the body. */
	signedAt?: number;
	signatures: Buffer[];
}

/**
 * `sha256=<hex>` or bare hex: the HMAC of the body. `t=<seconds>,sha256=<hex>` (Stripe's layout,
 * pairs in any order): the HMAC of `<t>.<body>`, so the time cannot be changed without the secret.
 */
function parseSignature(header: string): Parsed | undefined {
	const bare = BARE.exec(header)?.[1];
	if (bare) return { signatures: [Buffer.from(bare, 'hex')] };
	const pairs = header.split(',').map((pair) => pair.trim().split('='));
	const times = pairs.filter(([key]) => key === 't').map(([, value]) => value);
	const signatures = pairs
		.filter(([key, value]) => key === 'sha256' && HEX.test(value ?? ''))
		.map(([, hex]) => Buffer.from(hex, 'hex'));
	if (
		times.length !== 1 ||
		!/^\d{1,12}$/.test(times[0] ?? '') ||
		signatures.length === 0 ||
		signatures.length > MAX_SIGNATURES
	)
		return undefined;
	return { signedAt: Number(times[0]), signatures };
}

export interface Verdict {
	/** Why the delivery fails the check; undefined when it passes. */
	problem?: string;
	/** Unix seconds the sender signed with the body, when it did. */
	signedAt?: number;
}

/**
 * Whether a delivery passes the check. The reason goes back to the sender in the 401, so it names
 * the header only: never the secret or the expected value. The signature is over the raw bytes
 * received: a body parsed and serialised again would differ in spacing or key order and fail.
 * A signed time outside the window either way, or none when one is required, is refused after the
 * signature passed, so only the sender learns that its clock or its queue is off.
 */
export function verifyDelivery(
	security: Security,
	check: {
		headerName: string;
		header?: string;
		secret: string;
		raw?: Buffer;
		windowS: number;
		/** Refuse a signature without a signed time (it could be replayed at any age). */
		requireTime?: boolean;
		nowMs: number;
	},
): Verdict {
	if (security === 'none') return {};
	const { headerName, header, secret, raw } = check;
	// Blank counts as none: a key of spaces (or a line break an expression left) is no secret.
	if (secret.trim() === '')
		return { problem: 'The trigger has no secret to check deliveries with' };
	if (header === undefined || header.trim() === '')
		return { problem: `Missing ${headerName} header` };
	if (security === 'headerToken') {
		return sameText(header.trim(), secret) ? {} : { problem: `${headerName} does not match` };
	}
	const parsed = parseSignature(header.trim());
	if (!parsed)
		return { problem: `${headerName} is not an HMAC-SHA256 signature (${SIGNATURE_FORMS})` };
	if (!raw) return { problem: 'The raw body is not available to check the signature' };
	const hmac = createHmac('sha256', secret);
	if (parsed.signedAt !== undefined) hmac.update(`${parsed.signedAt}.`, 'utf8');
	const expected = hmac.update(raw).digest();
	// Every candidate is compared, so the time taken does not say which one matched.
	const matches = parsed.signatures.map((signature) => timingSafeEqual(expected, signature));
	if (!matches.includes(true)) return { problem: `${headerName} does not match the body` };
	if (parsed.signedAt === undefined)
		return check.requireTime
			? {
					problem:
						`${headerName} signs no time ("t=<unix seconds>,sha256=…"); this trigger ` +
						'takes only signatures with a signed time (Require Signed Time)',
				}
			: {};
	const skewS = Math.round(check.nowMs / 1000 - parsed.signedAt);
	if (Math.abs(skewS) > check.windowS) {
		const when = skewS > 0 ? `${skewS} s before` : `${-skewS} s after`;
		return {
			problem:
				`${headerName} was signed ${when} this server's time; the ` +
				`trigger takes ${check.windowS} s either way (Replay Window)`,
		};
	}
	return { signedAt: parsed.signedAt };
}

/** A header by name, whatever its case; the first value when it came more than once. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name.trim().toLowerCase()];
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' ? first : undefined;
}
