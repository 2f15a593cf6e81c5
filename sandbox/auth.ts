import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { DAY } from './clock';
import { HttpError } from './http';
import type { ApiKey } from './model';
import type { Environment } from './options';

export const TOKEN_LIFETIME_MS = DAY;

interface Claims {
	sub: number;
	kid: number;
	env: Environment;
	iat: number;
	exp: number;
	jti: string;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * What the issuer saw, in order, for tests that ask whose identity a request acted with: a token
 * issued for a key, a token taken (or refused as expired), a token of another issuer presented.
 * Token ids (`jti`) only: never a token or a key.
 */
export type TokenEvent =
	| { kind: 'issued' | 'used' | 'expired'; kid: number; jti: string }
	| { kind: 'foreign' | 'missing' };

const unauthorized = (code: string, message: string) =>
	new HttpError(401, { code, message }, { 'www-authenticate': 'Bearer' });

/**
 * HS256 JWTs signed with a secret of this environment only, so one environment's token fails
 * in the other.
 */
export class TokenIssuer {
	private readonly secret = randomBytes(32);
	private readonly header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
	/** Verified signatures, so the hot path skips the HMAC. Bounded. */
	private readonly verified = new Map<string, Claims>();
	/** Every token handed out (the newest 10,000), so tests can search captured text for them. */
	private readonly issued = new Set<string>();
	private readonly observers = new Set<(event: TokenEvent) => void>();

	constructor(private readonly environment: Environment) {}

	/** Calls `observer` with every token event from now on; returns the call that stops it. */
	observe(observer: (event: TokenEvent) => void): () => void {
		this.observers.add(observer);
		return () => this.observers.delete(observer);
	}

	private tell(event: TokenEvent): void {
		for (const observer of this.observers) observer(event);
	}

	issue(key: ApiKey, now: number): string {
		const iat = Math.floor(now / 1000);
		const claims: Claims = {
			sub: key.companyId,
			kid: key.id,
			env: this.environment,
			iat,
			exp: iat + TOKEN_LIFETIME_MS / 1000,
			jti: randomBytes(8).toString('hex'),
		};
		const payload = b64url(JSON.stringify(claims));
		const token = `${this.header}.${payload}.${this.sign(`${this.header}.${payload}`)}`;
		this.issued.add(token);
		if (this.issued.size > 10_000) this.issued.delete(this.issued.values().next().value!);
		this.tell({ kind: 'issued', kid: key.id, jti: claims.jti });
		return token;
	}

	/** The tokens issued so far, oldest first. */
	issuedTokens(): string[] {
		return [...this.issued];
	}

	/** Claims of a valid bearer token, or a 401. */
	verify(authorization: string | undefined, now: number): Claims {
		const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
		if (!match) {
			this.tell({ kind: 'missing' });
			throw unauthorized('missing_token', 'Authorization: Bearer <token> is required');
		}
		const token = match[1];
		let claims = this.verified.get(token);
		if (!claims) {
			const [header, payload, signature] = token.split('.');
			const expected = Buffer.from(this.sign(`${header}.${payload}`));
			const given = Buffer.from(signature ?? '');
			if (!payload || given.length !== expected.length || !timingSafeEqual(given, expected)) {
				this.tell({ kind: 'foreign' });
				throw unauthorized('invalid_token', 'The token is not valid for this environment');
			}
			claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
			if (this.verified.size > 10_000) this.verified.clear();
			this.verified.set(token, claims);
		}
		if (claims.exp * 1000 <= now) {
			this.tell({ kind: 'expired', kid: claims.kid, jti: claims.jti });
			throw unauthorized(
				'token_expired',
				'The token has expired; request a new one with POST /token',
			);
		}
		this.tell({ kind: 'used', kid: claims.kid, jti: claims.jti });
		return claims;
	}

	private sign(data: string): string {
		return createHmac('sha256', this.secret).update(data).digest('base64url');
	}
}
