/**
 * `npm run demo`: the sandbox with seeded data and a real n8n with this package loaded, the
 * demo credentials and the example workflows imported, an owner account to log in with.
 * Ctrl+C stops everything it started and deletes n8n's data folder. The first run installs
 * n8n (2.40.7 on Node 24 unless --n8n-version or N8N_VERSION names another, such as 1.123.81
 * on Node 22) into a cache folder outside the repo (minutes); later runs reuse it.
 *
 *   npm run demo -- [--sandbox-port 4010] [--n8n-port 5678] [--n8n-version 1.123.81]
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { startSandbox, type Sandbox } from '../sandbox';
import { cacheDir, findInstall, N8N_VERSION, recipeFor } from './n8n/install';
import { ensureN8n, N8nInstance, n8nMajor, packPackage, type N8nServer } from './n8n/instance';
import { startTableSync, usesDataTable } from './demo/dataTable';
import { publishShop, SHOP_CREDENTIAL, SHOP_HEADER, shopEventId } from './demo/shop';
import {
	build,
	demoSecrets,
	importDemo,
	loadExamples,
	MCP_CREDENTIAL,
	needsOwnAccount,
	OWNER,
	portIsFree,
	publishMcp,
	subscribePush,
	wireCrm,
	type Example,
} from './demo/setup';

const USAGE = [
	`npm run demo -- [options]`,
	``,
	`  --sandbox-port N   the sandbox's port (default 4010; 0 = any free port)`,
	`  --n8n-port N       n8n's port (default 5678; if busy, any free port; 0 = any free port)`,
	`  --n8n-version V    the n8n to run (default ${N8N_VERSION}` +
		`; 1.123.81 also works, see docs/compatibility.md)`,
	`  --help`,
].join('\n');

const startedAt = Date.now();
const say = (message: string) =>
	console.log(
		`[demo ${String(Math.round((Date.now() - startedAt) / 1000)).padStart(3)} s] ${message}`,
	);

/** What to undo on exit, newest first. */
const undo: Array<() => unknown> = [];
let stopping = false;

/** Undoes what was started (once; later calls do nothing), then exits. */
async function stopAll(code: number): Promise<void> {
	if (stopping) return;
	stopping = true;
	// n8n is killed 10 s after its SIGTERM; nothing else should take long.
	setTimeout(() => process.exit(code), 20_000).unref();
	for (const step of undo.reverse()) {
		try {
			await step();
		} catch (error) {
			console.error(`[demo] while stopping: ${(error as Error).message}`);
		}
	}
	console.log('[demo] stopped');
	process.exit(code);
}

function onSignal(signal: NodeJS.Signals) {
	// Ctrl+C reaches this process more than once (from the terminal, and relayed by npm and
	// tsx): one stop is enough.
	if (stopping) return;
	console.log(`\n[demo] ${signal}: stopping n8n and the sandbox, removing temporary folders…`);
	void stopAll(0);
}

function port(raw: string, name: string): number {
	const n = Number(raw);
	if (!Number.isInteger(n) || n < 0 || n > 65535)
		fail(`--${name} must be a port number (0-65535), got "${raw}"`);
	return n;
}

function fail(message: string): never {
	throw new Error(message);
}

async function main() {
	const { values } = parseArgs({
		options: {
			'sandbox-port': { type: 'string', default: '4010' },
			'n8n-port': { type: 'string', default: '5678' },
			'n8n-version': { type: 'string', default: N8N_VERSION },
			help: { type: 'boolean', default: false },
		},
	});
	if (values.help) return console.log(USAGE);
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	const sandboxPort = port(values['sandbox-port'], 'sandbox-port');
	const version = values['n8n-version'];
	if (!/^\d+\.\d+\.\d+$/.test(version))
		fail(`--n8n-version must be an n8n version such as ${N8N_VERSION}, got "${version}"`);
	const nodeSpec = recipeFor(version).node;
	let n8nPort = port(values['n8n-port'], 'n8n-port');

	// A fixed sandbox port keeps its URL stable between runs: fail rather than move it.
	if (sandboxPort !== 0 && !(await portIsFree(sandboxPort))) {
		fail(
			`port ${sandboxPort} is in use (a sandbox already running? \`npm run sandbox\` ` +
				`uses it too). Stop that, or run \`npm run demo -- --sandbox-port 4020\`.`,
		);
	}
	if (n8nPort !== 0 && !(await portIsFree(n8nPort))) {
		say(
			`port ${n8nPort} is in use (another n8n?): this n8n ` +
				`takes a free port instead (\`--n8n-port N\` chooses one)`,
		);
		n8nPort = 0;
	}

	say(
		findInstall(undefined, version)
			? `building the package, starting the sandbox (n8n ${version})`
			: `building the package, starting the sandbox, installing n8n ` +
					`${version} and Node ${nodeSpec} into ${cacheDir(version)} ` +
					`(once: about 4 to 8 minutes, 2.4 GB; N8N_E2E_CACHE moves it)`,
	);
	const [sandbox, install] = await Promise.all([
		startSandbox({ port: sandboxPort }).then((s) => (undo.push(() => s.stop()), s)),
		ensureN8n(version),
		build((kill) => undo.push(kill)),
	]);
	const packed = await packPackage(undefined, { build: false });
	undo.push(() => packed.cleanup());
	say(
		`sandbox on ${sandbox.baseUrl}/api/v2 (seeded: ` +
			`${sandbox.app.store.events.length} event points); package built`,
	);

	const n8n = await N8nInstance.create({ install, packed });
	undo.push(() => n8n.cleanup());
	// Where the file examples write (relative to n8n's working folder, its HOME here): n8n 2.x
	// writes only inside ~/.n8n-files and creates no folder, so the demo provides it, as whoever
	// runs a partner's n8n would.
	const filesDir = join(n8n.userFolder, '.n8n-files');
	mkdirSync(filesDir, { recursive: true });
	say('starting n8n with a fresh data folder (about 30 s)');
	const server = await n8n.start({ port: n8nPort || undefined, timeoutMs: 180_000 });
	undo.push(() => server.stop());
	const cookie = await server.setupOwner(OWNER);
	const secrets = demoSecrets();
	const v2 = n8nMajor(install) >= 2;
	const { examples, url: crm } = wireCrm(
		sandbox,
		loadExamples().filter((e) => v2 || !usesDataTable(e)),
	);
	const workflowIds = await importDemo(server, cookie, sandbox, secrets, examples);
	const tableSync = v2
		? await startTableSync(server, cookie, examples, sandbox, secrets.webhookSecret)
		: undefined;
	const pushedTo = subscribePush(sandbox, server, examples, secrets.webhookSecret);
	const published = v2 ? await publishMcp(server, cookie, examples) : undefined;
	const publishedShop = await publishShop(server, cookie, examples, workflowIds, v2);
	const shop = publishedShop && {
		...publishedShop,
		key: publishedShop.keyed ? secrets.shopKey : undefined,
	};
	const mcp = published && { ...published, token: published.bearer ? secrets.mcpToken : undefined };
	printReady({
		server,
		sandbox,
		examples,
		pushedTo,
		tableSync,
		mcp,
		crm,
		shop,
		dataFolder: n8n.userFolder,
		filesDir,
		n8nVersion: install.n8nVersion,
	});
}

interface Ready {
	server: N8nServer;
	sandbox: Sandbox;
	examples: Example[];
	pushedTo?: string;
	/** The published Data Table example, whether it is pushed to, and its big button's trigger. */
	tableSync?: { name: string; pushed: boolean; button: { trigger: string; polls: boolean } };
	mcp?: { name: string; url: string; token?: string };
	crm?: string;
	/** The published shop checkout: its name, production URL and the key its webhook asks for. */
	shop?: { name: string; url: string; key?: string };
	dataFolder: string;
	filesDir: string;
	n8nVersion: string;
}

/** What the push example's step adds when its CRM call is wired to the stand-in CRM. */
const CRM_STEP = ', and Send to CRM writes its deal (amount, barcodes) to the stand-in CRM';

function printReady({
	server,
	sandbox,
	examples,
	pushedTo,
	tableSync,
	mcp,
	crm,
	shop,
	dataFolder,
	filesDir,
	n8nVersion,
}: Ready) {
	const sell = examples.find((e) => /sell a ticket/i.test(e.name));
	const fileExamples = examples.filter((e) =>
		e.nodes.some((n) => n.type === 'n8n-nodes-base.readWriteFile'),
	);
	const steps = [
		sell
			? `Open "${sell.name}" and click "Execute workflow": it sells one ` +
				`ticket in the sandbox; Report Payment shows it, one item per ticket with its barcode ` +
				`(Release Hold and Payment Not Confirmed, after it, run only when the payment report ` +
				`fails). It sells once per reference in its Sale node: run again with the same one and ` +
				`Sold Tickets shows that sale's tickets instead.`
			: 'Add a Public Events node to a new workflow, pick the ' +
				'credential "Public Events (sandbox)" and click "Execute step".',
		'Overview > Credentials > "Public Events (sandbox)": opening it tests the key against ' +
			'the sandbox and shows "Connection tested successfully" (Retry tests it again).',
		...(fileExamples.length ? [fileStep(fileExamples)] : []),
		...(pushedTo
			? [
					`Open "${pushedTo}", click "Execute workflow" (it waits for a push), then ` +
						(sell
							? 'sell a ticket again (step 1, after changing the reference in Sale: the ' +
								'same one sells nothing new) or run the curl line below'
							: 'run the curl line below') +
						`: the sandbox pushes the sale there, signed${crm ? CRM_STEP : ''}.`,
				]
			: []),
		...(tableSync
			? [
					`"${tableSync.name}" is published: ` +
						(tableSync.pushed
							? 'the sandbox pushes each sale to it, and it polls every minute as a safety net. '
							: 'it polls the sandbox every minute. ') +
						`Make a sale (the curl line below), then Overview > Data tables > "Public ` +
						`Events ledger" shows its row${tableSync.pushed ? '' : ' within a minute'}, ` +
						`beside the last 7 days' sales and refunds of every channel; its Reconcile Now ` +
						`(point at it for its own button) heals the table after an outage; the big ` +
						`"Execute workflow" button starts from ${tableSync.button.trigger} and ` +
						(tableSync.button.polls
							? 'saves the latest sale or refund.'
							: 'waits for a push to its Test URL.'),
				]
			: []),
		...(shop
			? [
					`"${shop.name}" is published: curl -H 'content-type: application/json' ` +
						`${shop.key ? `-H '${SHOP_HEADER}: ${shop.key}' ` : ''}` +
						`-d '{"eventId": ${shopEventId(sandbox)}, "quantity": 2}' ` +
						`${shop.url} answers the tickets; with "failPayment": true, a 402 once the ` +
						`hold is released; without the key, 403 (docs/usage.md, "Selling in a shop").`,
				]
			: []),
		...(mcp
			? [
					`Point an MCP client (Streamable HTTP) at ${mcp.url}` +
						`${mcp.token ? ' with the header "Authorization: Bearer <the MCP token>"' : ''}` +
						`: "${mcp.name}" is published; docs/ai-agents.md shows how.`,
				]
			: []),
	];
	const crmLine = crm
		? `  crm          ${crm}   (stand-in for "Send to CRM": GET lists its deals, one per sale)\n`
		: '';
	const workflows = examples.length
		? examples.map(workflowLine).join('\n               ')
		: '(none: examples/ is empty)';
	console.log(`
Ready in ${Math.round((Date.now() - startedAt) / 1000)} s.

  n8n editor   ${server.url}   (n8n ${n8nVersion})
  login        ${OWNER.email}  /  ${OWNER.password}   (demo only; everything is deleted on exit)
  sandbox      ${sandbox.baseUrl}/api/v2   control: ${sandbox.baseUrl}/__sandbox/state
  files        ${filesDir}/   (what the file examples write; removed on exit)
${crmLine}${mcp ? mcpLines(mcp) : ''}${shop ? shopLines(shop) : ''}  workflows    ${workflows}

First steps
${steps.map((s, i) => `  ${i + 1}. ${s}`).join('\n')}

A sale from the sandbox's sales widget: curl -X POST ${sandbox.baseUrl}/__sandbox/widget-orders
n8n's log: ${dataFolder}/ (removed on exit)
Ctrl+C stops n8n and the sandbox.`);
}

const isPollTrigger = (node: { type: string }) => node.type.endsWith('.publicEventsPollTrigger');
const isTrigger = (node: { type: string }) => /trigger$/i.test(node.type);

/**
 * What "Execute workflow" does in each file example. The editor's big button starts from the
 * catalog's one trigger, the poll (a sample event, then the whole catalog), and in the others from
 * their schedule (ranked above their Run Now), which runs what the schedule runs.
 */
function fileStep(fileExamples: Example[]): string {
	const polled = fileExamples.filter((e) => e.nodes.some(isPollTrigger));
	const scheduled = fileExamples.filter((e) => !polled.includes(e));
	const schedules = scheduled.flatMap((e) =>
		e.nodes.filter((n) => n.type === 'n8n-nodes-base.scheduleTrigger').map((n) => n.name),
	);
	const names = (list: Example[]) => list.map((e) => `"${e.name}"`).join(', ');
	const catalog = polled.map((e) => {
		const triggers = e.nodes.filter(isTrigger);
		const poll = triggers.find(isPollTrigger)!.name;
		return (
			` ${names([e])}: ${triggers.length === 1 ? `its one trigger, ${poll},` : poll} fetches ` +
			`an event as a sample and the run writes the whole catalog to events.json.`
		);
	});
	return (
		`Click "Execute workflow" in the file examples; the files land in the files folder above.` +
		catalog.join('') +
		(scheduled.length
			? ` ${names(scheduled)}: the button reads "Execute workflow from <their schedule>" ` +
				`(${schedules.join(', ')}) and runs now what the schedule runs.`
			: '')
	);
}

/** An example's name, and why it cannot run here when it needs an outside account. */
const workflowLine = (example: Example) =>
	needsOwnAccount(example)
		? `${example.name}   (needs your Google account: it cannot run in this offline demo)`
		: example.name;

/**
 * The MCP URL and its token. Printing the token is fine here: n8n listens on 127.0.0.1 only, the
 * token was made for this run and dies with its data folder.
 */
function mcpLines({ url, token }: { url: string; token?: string }): string {
	if (!token)
		return (
			`  MCP server   ${url}   (published with NO ` +
			`authentication: the example's trigger was changed)\n`
		);
	return `  MCP server   ${url}   (published; the path is random per run)
  MCP token    ${token}   (Bearer; credential "${MCP_CREDENTIAL.name}", made for this run)
`;
}

/** The shop's key, made for this run like the MCP token (printed for the same reason). */
function shopLines({ url, key }: { url: string; key?: string }): string {
	if (!key)
		return (
			`  shop         ${url}   (published with NO ` +
			`authentication: the example's Webhook was changed)\n`
		);
	return (
		`  shop key     ${SHOP_HEADER}: ${key}   ` +
		`(credential "${SHOP_CREDENTIAL.name}", made for this run)\n`
	);
}

main().catch((error: Error) => {
	if (stopping) return;
	console.error(`[demo] ${error.message}`);
	void stopAll(1);
});
