import { parseArgs } from 'node:util';

import { startSandbox } from './index';
import { DEFAULT_OPTIONS, ENVELOPES, type Envelope } from './options';
import { parseQuirks, QUIRK_NAMES, type Quirks } from './quirks';

const USAGE = [
	`npm run sandbox -- [options]`,
	``,
	`Starts a local Public Events API v2: staging on --port, production on --production-port.`,
	`Prints one JSON line (base URLs and API keys), then a summary; serves until Ctrl+C.`,
	``,
	`  --port N                  staging port (default 4010; 0 = any free port)`,
	`  --host H                  loopback address to listen on (default 127.0.0.1)`,
	`  --production-port N       production port (default: staging port + 1; 0 = any)`,
	`  --seed N                  data seed (default 1): same seed, same catalog and keys`,
	`  --events N                on-sale event points visible ` +
		`to the partner key (default ${DEFAULT_OPTIONS.events})`,
	`  --places-per-event N      places in each hall (default ${DEFAULT_OPTIONS.placesPerEvent})`,
	`  --big-event-places N      give event point 1001 this many places (e.g. 50000)`,
	`  --private-events N        organiser-only event ` +
		`points (default ${DEFAULT_OPTIONS.privateEvents})`,
	`  --archived-events N       event points whose sales ` +
		`ended (default ${DEFAULT_OPTIONS.archivedEvents})`,
	`  --widget-orders N         past widget sales per ` +
		`company (default ${DEFAULT_OPTIONS.widgetOrders})`,
	`  --envelope E              list envelope: ${ENVELOPES.join(' | ')} (default array)`,
	`  --tickets-per-order N     per-order ticket limit ` +
		`(default ${DEFAULT_OPTIONS.limits.ticketsPerOrder})`,
	`  --reserved-per-account N  simultaneously reserved tickets per ` +
		`account (default ${DEFAULT_OPTIONS.limits.reservedPerAccount})`,
	`  --rate-limit N            requests per key per window, ` +
		`0 = off (default ${DEFAULT_OPTIONS.rateLimit.limit})`,
	`  --rate-window-ms N        rate-limit window (default ${DEFAULT_OPTIONS.rateLimit.windowMs})`,
	`  --now ISO                 start the sandbox clock at this time (default: real now)`,
	`  --push-url URL            push notifications for the partner company to this URL`,
	`  --push-secret S           sign pushes: X-Signature: sha256=<hex HMAC of the body>`,
	`  --quirks LIST             a difficult service on purpose, comma-separated, e.g.`,
	`                            ` +
		`ignore-sort,clock-skew=+10m,late-visible=8m,redirect=cross-origin,mangle-write-answers=gzip`,
	`                            (${QUIRK_NAMES.join(', ')}; see docs/sandbox.md)`,
	`  --help`,
].join('\n');

const { values } = parseArgs({
	options: {
		port: { type: 'string', default: '4010' },
		'production-port': { type: 'string' },
		host: { type: 'string', default: '127.0.0.1' },
		seed: { type: 'string' },
		events: { type: 'string' },
		'places-per-event': { type: 'string' },
		'big-event-places': { type: 'string' },
		'private-events': { type: 'string' },
		'archived-events': { type: 'string' },
		'widget-orders': { type: 'string' },
		envelope: { type: 'string' },
		'tickets-per-order': { type: 'string' },
		'reserved-per-account': { type: 'string' },
		'rate-limit': { type: 'string' },
		'rate-window-ms': { type: 'string' },
		now: { type: 'string' },
		'push-url': { type: 'string' },
		'push-secret': { type: 'string' },
		quirks: { type: 'string' },
		help: { type: 'boolean', default: false },
	},
});

function int(name: keyof typeof values, min = 0): number | undefined {
	const raw = values[name];
	if (raw === undefined) return undefined;
	const n = Number(raw);
	if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer >= ${min}, got "${raw}"`);
	return n;
}

function fail(message: string): never {
	console.error(`${message}\n\n${USAGE}`);
	process.exit(2);
}

async function main() {
	if (values.help) return console.log(USAGE);
	if (values.envelope && !ENVELOPES.includes(values.envelope as Envelope))
		fail(`--envelope must be one of ${ENVELOPES.join(', ')}`);
	// The control surface is unauthenticated and shows the keys: loopback only.
	if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(values.host))
		fail(`--host must be a loopback address (127.0.0.1, ::1, localhost), got "${values.host}"`);
	const port = int('port')!;
	const now = values.now === undefined ? undefined : Date.parse(values.now);
	if (now !== undefined && Number.isNaN(now))
		fail(`--now must be an ISO 8601 time, got "${values.now}"`);
	let quirks: Quirks | undefined;
	try {
		quirks = values.quirks === undefined ? undefined : parseQuirks(values.quirks);
	} catch (error) {
		fail(`--quirks: ${(error as Error).message}`);
	}
	const shared = {
		quirks,
		host: values.host,
		now,
		seed: int('seed'),
		events: int('events'),
		placesPerEvent: int('places-per-event', 1),
		bigEventPlaces: int('big-event-places'),
		privateEvents: int('private-events'),
		archivedEvents: int('archived-events'),
		widgetOrders: int('widget-orders'),
		envelope: values.envelope as Envelope | undefined,
		limits: {
			ticketsPerOrder: int('tickets-per-order', 1),
			reservedPerAccount: int('reserved-per-account', 1),
		},
		rateLimit: { limit: int('rate-limit'), windowMs: int('rate-window-ms', 1) },
	};
	const defined = <T extends object>(o: T) => JSON.parse(JSON.stringify(o)) as T;
	const staging = await startSandbox(defined({ ...shared, environment: 'staging' as const, port }));
	const production = await startSandbox(
		defined({
			...shared,
			environment: 'production' as const,
			port: int('production-port') ?? (port === 0 ? 0 : port + 1),
		}),
	);
	if (values['push-url']) {
		staging.app.push.subscribe({
			url: values['push-url'],
			secret: values['push-secret'],
			companyId: 2,
		});
	}
	const big = staging.app.options.bigEventPlaces > 0 ? 1001 : undefined;
	console.log(
		JSON.stringify({
			baseUrl: staging.baseUrl,
			apiUrl: `${staging.baseUrl}/api/v2`,
			adminUrl: `${staging.baseUrl}/__sandbox`,
			environment: 'staging',
			keys: staging.keys,
			bigEventId: big,
			quirks: staging.app.quirksText,
			production: { baseUrl: production.baseUrl, keys: production.keys },
		}),
	);
	const otherUrl = staging.app.otherOrigin.url;
	const otherOrigin = otherUrl
		? `   (other origin ${otherUrl}, record at /__sandbox/other-origin)`
		: '';
	console.log(
		[
			``,
			`Public Events API v2 sandbox`,
			`  staging     ${staging.baseUrl}/api/v2   partner key ${staging.keys.partner}`,
			`              organiser key ${staging.keys.organiser}`,
			`  production  ${production.baseUrl}/api/v2   partner key ${production.keys.partner}`,
			`  control     ${staging.baseUrl}/__sandbox/state   ` +
				`(clock, faults, limits, pushes, request log)`,
			`  quirks      ${staging.app.quirksText || 'none'}${otherOrigin}`,
			`  data        ${staging.app.store.events.length} event ` +
				`points (seed ${staging.app.options.seed})` +
				`${big ? `, event point ${big} has ${staging.app.options.bigEventPlaces} places` : ''}`,
			`Ctrl+C stops it.`,
		].join('\n'),
	);
	const stop = async () => {
		await Promise.all([staging.stop(), production.stop()]);
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => fail((error as Error).message));
