// What the credential tests can tell from the fields alone, and from the token the service issues.
// Each message leads with the field to change, in the words of the credential dialog.

import { apiUrl, insecureBaseUrl, LANGUAGE_CODE } from './transport';

/** A value shown in a message: short, and quoted so spaces show. */
const shown = (value: string) =>
	JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

const hasControlCharacter = (value: string) =>
	[...value].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127);

/** What the nodes would send as X-API-Language: they trim it, and refuse anything but a code. */
export function languageMistake(value: unknown): string | undefined {
	const language = String(value ?? '').trim();
	if (language === '' || LANGUAGE_CODE.test(language)) return undefined;
	return `Default Language: use a language code such as en or de, not ${shown(language)}`;
}

export function baseUrlMistake(value: unknown, environment: unknown): string | undefined {
	const base = String(value ?? '').trim();
	if (base === '')
		return (
			'Base URL: empty. Enter the address the Public Events service gave your company ' +
			'with the API key'
		);
	let protocol = '';
	try {
		protocol = new URL(base).protocol;
	} catch {
		// Not a URL: said below.
	}
	// Shown back only when it reads like a host name: a key pasted here must not be printed.
	const echo = /^[\w-]+(\.[\w-]+)+(:\d+)?(\/[^\s@]*)?$/.test(base) ? `${shown(base)} ` : 'this ';
	if (protocol !== 'https:' && protocol !== 'http:')
		return (
			`Base URL: ${echo}is not a web address. Start it with https:// ` +
			'(the address the Public Events service gave your company)'
		);
	const insecure = insecureBaseUrl(apiUrl(base), environment);
	return insecure && `Base URL: ${insecure}`;
}

/** The key is sent as typed: a space copied with it makes the service refuse it. */
export function apiKeyMistake(value: unknown): string | undefined {
	const key = typeof value === 'string' ? value : '';
	if (key.trim() === '')
		return (
			'API Key: empty. Paste the key the Public Events service issued to your company ' +
			'for this environment'
		);
	if (key.trim() !== key || hasControlCharacter(key))
		return (
			'API Key: it starts or ends with a space or a line break, copied with the key. ' +
			'Paste the key alone'
		);
	return undefined;
}

// Words that name a test service or a test key by convention. A guess only: the API spec names
// no address or key format, so a match is a warning, never a refusal. Said as n8n's display
// conditions without a regular expression: n8n runs a `regex` condition in a vm limited to 250 ms
// each time it resolves the credential for a run, and a busy process can overrun that and fail
// the run (seen under load).
const TEST_SERVICE_WORDS = [
	'staging',
	'stage',
	'stg',
	'sandbox',
	'test',
	'testing',
	'uat',
	'qa',
	'dev',
	'demo',
	'preprod',
];
const TEST_KEY_WORDS = ['test', 'sandbox', 'staging', 'stg', 'dev'];

type Shown =
	| { _cnd: { includes: string } }
	| { _cnd: { startsWith: string } }
	| { _cnd: { endsWith: string } };

/** A host named like a test service: the word between dots or dashes of the address's host. */
export const STAGING_ADDRESS_SHOWN: Shown[] = TEST_SERVICE_WORDS.flatMap((word) =>
	['://', '.', '-'].flatMap((before): Shown[] => [
		...['.', '-', ':', '/'].map((after) => ({ _cnd: { includes: `${before}${word}${after}` } })),
		{ _cnd: { endsWith: `${before}${word}` } },
	]),
);

/** A key named like a test key: `test_…`, or `<prefix>_test_…`. */
export const TEST_KEY_SHOWN: Shown[] = TEST_KEY_WORDS.flatMap((word): Shown[] => [
	{ _cnd: { startsWith: `${word}_` } },
	{ _cnd: { includes: `_${word}_` } },
]);

/** Whether a value meets any of the conditions, as n8n's dialog decides it. */
export function meets(value: unknown, shown: Shown[]): boolean {
	if (typeof value !== 'string') return false;
	return shown.some(({ _cnd: condition }) =>
		'includes' in condition
			? value.includes(condition.includes)
			: 'startsWith' in condition
				? value.startsWith(condition.startsWith)
				: value.endsWith(condition.endsWith),
	);
}

/**
 * Production set while the address or the key is named like a test one: a warning for a test
 * that passed, or one more hint for a refused key.
 */
export function environmentGuess(data: {
	environment?: unknown;
	baseUrl?: unknown;
	apiKey?: unknown;
}): string | undefined {
	if (data.environment === 'staging') return undefined;
	const clues = [
		meets(data.baseUrl, STAGING_ADDRESS_SHOWN) &&
			'the Base URL is named like a staging or test address',
		meets(data.apiKey, TEST_KEY_SHOWN) && 'the API key is named like a test key',
	].filter(Boolean);
	if (clues.length === 0) return undefined;
	return (
		`Environment is Production, but ${clues.join(' and ')}: if the key and the address are ` +
		"the staging service's, set Environment to Staging."
	);
}

const STAGING_NAME =
	/^(staging|stage|stg|sandbox|test|testing|dev|development|uat|qa|demo|preprod|pre-production)$/i;
const PRODUCTION_NAME = /^(production|prod|live)$/i;

/**
 * The environment a token names in an `env` or `environment` claim: the service telling, not a
 * guess. Undefined when it names none (the API spec promises a JWT, not its claims).
 */
export function tokenEnvironment(
	token: string,
): { environment: 'staging' | 'production'; named: string } | undefined {
	let claims: unknown;
	try {
		claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
	} catch {
		return undefined;
	}
	if (typeof claims !== 'object' || claims === null) return undefined;
	const { env, environment } = claims as { env?: unknown; environment?: unknown };
	const named = typeof env === 'string' ? env : environment;
	if (typeof named !== 'string') return undefined;
	if (STAGING_NAME.test(named)) return { environment: 'staging', named };
	if (PRODUCTION_NAME.test(named)) return { environment: 'production', named };
	return undefined;
}

/** When the token names the other environment than the credential's. */
export function environmentMismatch(token: string, environment: unknown): string | undefined {
	const told = tokenEnvironment(token);
	const chosen = environment === 'staging' ? 'staging' : 'production';
	if (!told || told.environment === chosen) return undefined;
	const said = `its token names the environment ${shown(told.named)}`;
	return chosen === 'production'
		? `Environment: the service at this Base URL is a staging service (${said}), but ` +
				'Environment is Production. Set Environment to Staging, or enter the production ' +
				'address and key.'
		: `Environment: the service at this Base URL is the production service (${said}), but ` +
				'Environment is Staging. Set Environment to Production, so the key and the token ' +
				'travel only over https.';
}

const PLACEHOLDER_WORDS = new RegExp(
	'^(your|my|the|insert|paste|enter|put|add|some|a)*' +
		'(webhook|push|signing|hmac|shared|api|secret)*' +
		'(secret|token|key|password|passphrase)(goes)?(here)?$',
);
const PLACEHOLDERS = new Set(['changeme', 'changethis', 'placeholder', 'example', 'todo', 'tbd']);
const SHORTEST_SECRET = 16;

/**
 * What the form of a push secret shows: nothing else can be checked before a delivery, as the
 * service has no API that knows it.
 */
export function secretMistake(value: unknown): string | undefined {
	const secret = typeof value === 'string' ? value : '';
	if (secret.trim() === '')
		return (
			'Secret: empty. Paste the secret agreed with the Public Events service for push ' +
			'deliveries to this trigger'
		);
	if (secret.trim() !== secret)
		return (
			'Secret: it starts or ends with a space or a line break, copied with it. Remove it: ' +
			"the service's deliveries would not match"
		);
	if (hasControlCharacter(secret))
		return (
			'Secret: it holds a line break or a tab. Paste it on one line, as agreed with the ' +
			'service'
		);
	if (/^(t=\d+,)?sha256=/i.test(secret))
		return (
			'Secret: this is a signature (sha256=…) copied from a delivery, not the secret it was ' +
			'signed with. Ask the Public Events service for the secret itself'
		);
	const bare = secret.toLowerCase().replace(/[^a-z0-9]/g, '');
	if (
		/^<.*>$|^\[.*\]$/.test(secret) ||
		/^(.)\1*$/.test(secret) ||
		PLACEHOLDERS.has(bare) ||
		PLACEHOLDER_WORDS.test(bare)
	)
		return (
			'Secret: this is a placeholder (such as "secret" or "changeme"), not a secret. Ask ' +
			'the Public Events service for the push secret, or agree one of at least ' +
			`${SHORTEST_SECRET} random characters with them`
		);
	if (secret.length < SHORTEST_SECRET)
		return (
			`Secret: only ${secret.length} characters: whoever guesses it can start this workflow ` +
			'with a made-up sale. Agree a longer one with the Public Events service (at least ' +
			`${SHORTEST_SECRET} characters; 32 random ones are usual)`
		);
	return undefined;
}
