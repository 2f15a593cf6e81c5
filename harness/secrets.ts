/**
 * Secret scanning for tests: every secret the sandbox knows (API keys, the tokens it issued,
 * push subscription secrets) searched for in text a test captured (items, errors, logs, a
 * real n8n's output). A find names the secret, never shows it.
 */
import { SandboxClient } from './sandbox/client';

/** Shorter values would match by chance (and no secret of ours is that short). */
const MIN_LENGTH = 8;

/**
 * Push secrets seen so far per sandbox: DELETE /__sandbox/webhooks forgets the subscriptions, not
 * the leak risk.
 */
const pushSeen = new WeakMap<SandboxClient, Map<string, string>>();

function companyOfToken(sb: SandboxClient, token: string): string {
	try {
		const { sub } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as {
			sub?: number;
		};
		return sb.app.store.companies.find((c) => c.id === sub)?.slug ?? `company ${sub}`;
	} catch {
		return 'unknown company';
	}
}

/**
 * Name -> value of every secret the sandbox knows, plus `extra` (e.g. a webhook secret the test
 * made up).
 */
export function secretsOf(
	sb: SandboxClient,
	extra: Record<string, string> = {},
): Record<string, string> {
	const secrets: Record<string, string> = {};
	for (const [company, key] of Object.entries(sb.keys)) secrets[`API key of ${company}`] = key;
	sb.app.issuer.issuedTokens().forEach((token, index) => {
		secrets[`token #${index + 1} (${companyOfToken(sb, token)})`] = token;
	});
	let seen = pushSeen.get(sb);
	if (!seen) pushSeen.set(sb, (seen = new Map()));
	for (const sub of sb.app.push.subscriptions) {
		if (sub.secret) seen.set(`push secret of subscription ${sub.id}`, sub.secret);
	}
	for (const [name, value] of seen) secrets[name] = value;
	return { ...secrets, ...extra };
}

/** The secrets of every sandbox this test file has running, plus `extra`. */
export function runningSecrets(extra: Record<string, string> = {}): Record<string, string> {
	const all: Record<string, string> = {};
	SandboxClient.runningSandboxes().forEach((sb, index) => {
		const prefix = index === 0 ? '' : `sandbox ${index + 1}: `;
		for (const [name, value] of Object.entries(secretsOf(sb))) all[prefix + name] = value;
	});
	return { ...all, ...extra };
}

/**
 * The base64 text of `value` wherever it sits in a longer encoded string (e.g. Basic `user:key`):
 * one core per byte alignment, without the edge characters that mix in neighbouring bytes.
 */
function base64Cores(value: string): string[] {
	const bytes = Buffer.from(value, 'utf8');
	const cores: string[] = [];
	for (let shift = 0; shift < 3; shift++) {
		const encoded = Buffer.concat([Buffer.alloc(shift), bytes])
			.toString('base64')
			.replace(/=+$/, '');
		const start = Math.ceil((shift * 8) / 6);
		const end = (shift + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
		const core = encoded.slice(start, end);
		if (core.length >= MIN_LENGTH) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return cores;
}

const formsCache = new Map<string, Array<[string, string]>>();

/**
 * The ways a value shows up in captured text: as is, JSON-escaped, URL-encoded, base64 (and
 * base64url).
 */
function formsOf(value: string): Array<[string, string]> {
	let forms = formsCache.get(value);
	if (forms) return forms;
	const candidates: Array<[string, string]> = [
		['as is', value],
		['JSON-escaped', JSON.stringify(value).slice(1, -1)],
		['URL-encoded', encodeURIComponent(value)],
		['form-encoded', encodeURIComponent(value).replace(/%20/g, '+')],
		...base64Cores(value).map((core): [string, string] => ['base64', core]),
	];
	const unique = new Map<string, string>();
	for (const [how, text] of candidates) if (!unique.has(text)) unique.set(text, how);
	forms = [...unique].map(([text, how]) => [how, text]);
	if (formsCache.size > 20_000) formsCache.clear();
	formsCache.set(value, forms);
	return forms;
}

/** Names (and how they were encoded) of the secrets found in `text`. */
export function findSecrets(text: string, secrets: Record<string, string>): string[] {
	const found: string[] = [];
	for (const [name, value] of Object.entries(secrets)) {
		if (typeof value !== 'string' || value.length < MIN_LENGTH) continue;
		const hit = formsOf(value).find(([, form]) => text.includes(form));
		if (hit) found.push(hit[0] === 'as is' ? name : `${name} (${hit[0]})`);
	}
	return found;
}

/** Throws naming the secrets found in `text` (never their values) and where the text came from. */
export function expectNoSecrets(
	text: string,
	secrets: Record<string, string>,
	where: string,
): void {
	const found = findSecrets(text, secrets);
	if (found.length > 0) throw new Error(`Secret leak in ${where}: ${found.join(', ')}`);
}

/**
 * Errors and Buffers inside `value`: what JSON.stringify leaves out or turns into numbers. Items'
 * `json` and `binary` are API data, serialised in full by JSON.stringify: not walked (16,000
 * objects of a 2,000-item run took 50 ms to walk).
 */
function collectHidden(value: unknown, found: unknown[], seen: Set<object>, depth: number): void {
	if (value === null || typeof value !== 'object' || seen.has(value) || depth > 64) return;
	seen.add(value);
	if (Buffer.isBuffer(value)) {
		found.push(value);
		return;
	}
	if (value instanceof Error) found.push(value);
	if (value instanceof Map || value instanceof Set) {
		for (const child of value.values()) collectHidden(child, found, seen, depth + 1);
		return;
	}
	const record = value as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		const child = record[key];
		if (child !== null && typeof child === 'object' && key !== 'json' && key !== 'binary')
			collectHidden(child, found, seen, depth + 1);
	}
}

/** JSON of anything (cycles cut), errors whole: name, message, stack, cause and every own field. */
function fullJson(value: unknown): string {
	const seen = new WeakSet<object>();
	function replacer(this: unknown, key: string, value: unknown): unknown {
		if (value === null || typeof value !== 'object') {
			return typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol'
				? undefined
				: value;
		}
		// JSON.stringify called toJSON before the replacer (n8n's errors project themselves down to
		// what n8n stores, Buffers to byte arrays): the original is read instead.
		const original = (this as Record<string, unknown>)[key];
		if (Buffer.isBuffer(original)) return original.toString('utf8');
		const object = original instanceof Error ? original : value;
		if (seen.has(object)) return undefined;
		seen.add(object);
		if (!(object instanceof Error))
			return value instanceof Map || value instanceof Set ? [...value.entries()] : value;
		const own: Record<string, unknown> = { name: object.name, cause: object.cause };
		for (const name of Object.getOwnPropertyNames(object))
			own[name] = (object as unknown as Record<string, unknown>)[name];
		return own;
	}
	try {
		return JSON.stringify(value, replacer) ?? '';
	} catch (error) {
		return `[not serialisable: ${(error as Error).message}] ${String(value)}`;
	}
}

/**
 * Everything readable in values the harness hands back, as one string: their JSON, plus what
 * JSON.stringify leaves out (errors' stack, cause and other fields; Buffers as text). Native
 * JSON.stringify for the bulk (a run of 20,000 items), the slow full form only for errors.
 */
export function capturedText(...values: unknown[]): string {
	const parts: string[] = [];
	for (const value of values) {
		if (typeof value === 'string') {
			parts.push(value);
			continue;
		}
		const hidden: unknown[] = [];
		collectHidden(value, hidden, new Set(), 0);
		let json: string;
		try {
			json = JSON.stringify(value) ?? '';
		} catch {
			json = fullJson(value); // a cycle
		}
		parts.push(
			json,
			...hidden.map((item) => (Buffer.isBuffer(item) ? item.toString('utf8') : fullJson(item))),
		);
	}
	return parts.join('\n');
}

/**
 * The engine harness's check after each run: what the run handed back holds no secret of a
 * running sandbox nor of the run's credentials (`extra`). Only under Jest.
 */
export function expectNoLeak(
	where: string,
	values: unknown[],
	extra: Record<string, string> = {},
): void {
	// A test assertion: benchmarks (run outside Jest) time the harness without it.
	if (process.env.JEST_WORKER_ID === undefined) return;
	const secrets = runningSecrets(extra);
	if (Object.keys(secrets).length === 0) return;
	expectNoSecrets(capturedText(...values), secrets, where);
}

/** Runs `call` and scans what it returns or throws, as `expectNoLeak` does. */
export async function leakChecked<T>(
	where: string,
	credentials: { secrets(): Record<string, string> } | undefined,
	call: () => Promise<T>,
): Promise<T> {
	let result: T;
	try {
		result = await call();
	} catch (error) {
		expectNoLeak(`the error ${where} threw`, [error], credentials?.secrets());
		throw error;
	}
	expectNoLeak(where, [result], credentials?.secrets());
	return result;
}
