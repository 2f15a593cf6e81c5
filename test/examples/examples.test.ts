import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import fc from 'fast-check';
import { commonPollingParameters } from 'n8n-core/dist/nodes-loader/constants';
import {
	NodeHelpers,
	type INode,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { operationOf } from '../../nodes/PublicEvents/resources';
import { LEDGER_COLUMNS } from '../../nodes/shared/ledger/rows';
import { PublicEventsPollTrigger } from '../../harness/nodes/pollTrigger';
import { PublicEventsTrigger } from '../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import { checkProperty } from '../../harness/props/property';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { SandboxClient } from '../../harness/sandbox/client';
import {
	API_CREDENTIAL,
	MCP_CREDENTIAL,
	N8N_API_CREDENTIAL,
	ORGANISER_CREDENTIAL as ORGANISER,
	WEBHOOK_CREDENTIAL,
	wireCrm,
	type Example as DemoExample,
} from '../../scripts/demo/setup';
import { SHOP_CREDENTIAL } from '../../scripts/demo/shop';
import { CANVAS_BUTTONS, GONE_BUTTONS, NOTE_MAX_CHARACTERS, NOTE_MAX_LINES, SHELL } from './notes';

/**
 * The shipped example workflows (examples/*.json) against the nodes as n8n loads them: every
 * parameter one the editor shows for the chosen resource and operation, no issue the editor
 * would flag, connections that hold together, the demo's credentials and no secret. Real n8n
 * runs them in test/e2e/examples.e2e.test.ts.
 */
const DIR = join(__dirname, '..', '..', 'examples');
const PACKAGE = 'n8n-nodes-public-events.';
// Relative to the folder n8n starts in (Docker's /home/node, or the home folder): the same path
// works in both.
const FILES_DIR = '.n8n-files/';
const WRITE_FILE = 'n8n-nodes-base.readWriteFile';
const DEMO_CREDENTIALS: Record<string, { id: string; name: string }> = {
	publicEventsApi: API_CREDENTIAL,
	publicEventsWebhookApi: WEBHOOK_CREDENTIAL,
	httpBearerAuth: MCP_CREDENTIAL,
	n8nApi: N8N_API_CREDENTIAL,
	httpHeaderAuth: SHOP_CREDENTIAL,
};
/**
 * The barcode export needs an organiser's key: its examples name the demo's organiser credential.
 */
const credentialFor = (file: string, type: string) =>
	file.startsWith('nightly-barcode-export') && type === 'publicEventsApi'
		? ORGANISER
		: DEMO_CREDENTIALS[type];
const MCP_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';
/** n8n's nodes with more than one main output, and how many. */
const OUTPUTS: Record<string, number> = {
	'n8n-nodes-base.splitInBatches': 2,
	'n8n-nodes-base.if': 2,
	'n8n-nodes-base.compareDatasets': 4,
};

interface Example {
	id: string;
	name: string;
	active: boolean;
	settings?: { executionOrder?: string };
	nodes: INode[];
	connections: Record<
		string,
		Record<string, Array<Array<{ node: string; type: string; index: number }>>>
	>;
}

// n8n-core adds Poll Times to polling nodes when it loads them; so does this test.
const pollTrigger = new PublicEventsPollTrigger().description;
const publicEvents = new PublicEvents().description;
const descriptions: Record<string, INodeTypeDescription> = {
	publicEvents,
	// The tool n8n makes of it (usableAsTool): the same properties; its name turns `@tool` on.
	publicEventsTool: { ...publicEvents, name: 'publicEventsTool' },
	publicEventsTrigger: new PublicEventsTrigger().description,
	publicEventsPollTrigger: {
		...pollTrigger,
		properties: [...commonPollingParameters, ...pollTrigger.properties],
	},
};

const files = readdirSync(DIR)
	.filter((f) => f.endsWith('.json'))
	.sort();
const examples = files.map(
	(file) => [file, JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Example] as const,
);
const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');
const ours = (example: Example) => example.nodes.filter((n) => n.type.startsWith(PACKAGE));
const descriptionOf = (node: INode) => descriptions[node.type.slice(PACKAGE.length)];

/**
 * Values the editor would not offer: an option, a resource locator mode, a collection entry it does
 * not have.
 */
function valueIssues(
	properties: INodeProperties[],
	values: Record<string, unknown>,
	path = '',
): string[] {
	const issues: string[] = [];
	for (const [key, value] of Object.entries(values)) {
		const property = properties.find((p) => p.name === key);
		const at = `${path}${key}`;
		if (!property) {
			issues.push(`${at}: no such parameter`);
			continue;
		}
		if (isExpression(value)) continue;
		const choices = (property.options ?? []) as Array<{ value?: unknown; name: string }>;
		const dynamic = property.typeOptions?.loadOptionsMethod !== undefined;
		if (property.type === 'options' && !dynamic && !choices.some((o) => o.value === value))
			issues.push(`${at}: "${String(value)}" is not an option`);
		if (property.type === 'multiOptions' && !dynamic) {
			for (const v of value as unknown[])
				if (!choices.some((o) => o.value === v))
					issues.push(`${at}: "${String(v)}" is not an option`);
		}
		if (
			property.type === 'resourceLocator' &&
			!property.modes?.some((m) => m.name === (value as { mode: string }).mode)
		)
			issues.push(`${at}: no such mode`);
		if (property.type === 'collection')
			issues.push(
				...valueIssues(
					property.options as INodeProperties[],
					value as Record<string, unknown>,
					`${at}.`,
				),
			);
	}
	return issues;
}

describe('example workflows', () => {
	let sandbox: SandboxClient;

	beforeAll(async () => {
		sandbox = await SandboxClient.start({});
	});

	afterAll(async () => {
		await sandbox?.stop();
	});

	it('the examples are there, each with its own fixed ID, inactive, in execution order v1', () => {
		expect(files).toEqual(
			expect.arrayContaining([
				'ai-ticket-desk.json',
				'catalog-sync.json',
				'catalog-sync-no-disk.json',
				'nightly-barcode-export.json',
				'nightly-barcode-export-no-disk.json',
				'push-sale-to-crm.json',
				'reference-lists.json',
				'reference-lists-no-disk.json',
				'sales-and-refunds-to-spreadsheet.json',
				'sales-and-refunds-to-spreadsheet-no-disk.json',
				'sell-a-ticket.json',
			]),
		);
		for (const [file, example] of examples) {
			expect([file, example.id, example.active, example.settings?.executionOrder]).toEqual([
				file,
				expect.stringMatching(/^[A-Za-z0-9]{16}$/),
				false,
				'v1',
			]);
			expect([file, example.name]).toEqual([file, expect.stringMatching(/^Public Events: /)]);
			expect([
				file,
				new Set(example.nodes.map((n) => n.name)).size,
				new Set(example.nodes.map((n) => n.id)).size,
			]).toEqual([file, example.nodes.length, example.nodes.length]);
		}
		expect(new Set(examples.map(([, e]) => e.id)).size).toBe(examples.length);
		expect(new Set(examples.map(([, e]) => e.name)).size).toBe(examples.length);
	});

	it(
		'the package nodes carry the community type names and ' +
			'parameters the editor shows, with no issue',
		() => {
			for (const [file, example] of examples) {
				for (const node of ours(example)) {
					const where = `${file} > ${node.name}`;
					const description = descriptionOf(node);
					expect([
						where,
						[description?.version].flat().includes(node.typeVersion),
						description?.name,
					]).toEqual([where, true, node.type.slice(PACKAGE.length)]);
					// With defaults filled in: a parameter missing from the result is hidden for this
					// resource and operation.
					const shown =
						NodeHelpers.getNodeParameters(
							description.properties,
							node.parameters,
							true,
							false,
							node,
							description,
						) ?? {};
					const hidden = Object.keys(node.parameters).filter((key) => !(key in shown));
					const issues = NodeHelpers.getNodeParametersIssues(
						description.properties,
						{ ...node, parameters: shown },
						description,
					);
					const displayed = description.properties.filter((p) =>
						NodeHelpers.displayParameter(shown, p, node, description),
					);
					expect([where, hidden, issues, valueIssues(displayed, node.parameters)]).toEqual([
						where,
						[],
						null,
						[],
					]);
				}
			}
		},
	);

	it(
		"n8n's own nodes come from n8n-nodes-base (their versions are " +
			'checked against n8n 2.40.7 by the e2e suite)',
		() => {
			for (const [file, example] of examples) {
				for (const node of example.nodes.filter((n) => !n.type.startsWith(PACKAGE))) {
					expect([file, node.name, node.type, typeof node.typeVersion]).toEqual([
						file,
						node.name,
						expect.stringMatching(/^(n8n-nodes-base\.\w+|@n8n\/n8n-nodes-langchain\.mcpTrigger)$/),
						'number',
					]);
				}
			}
		},
	);

	it(
		'connections join existing nodes; an error output only where ' +
			'On Error sends one; every node is reached from a trigger',
		() => {
			for (const [file, example] of examples) {
				const byName = new Map(example.nodes.map((n) => [n.name, n]));
				const reached = new Set<string>();
				// A Webhook node starts its workflow too (the shop checkout).
				const isTrigger = (n: INode) =>
					/trigger/i.test(n.type) || n.type === 'n8n-nodes-base.webhook';
				const next = (name: string) =>
					(example.connections[name]?.main ?? []).flat().map((c) => c.node);
				const visit = (name: string) => {
					if (reached.has(name)) return;
					reached.add(name);
					next(name).forEach(visit);
				};
				example.nodes.filter(isTrigger).forEach((n) => visit(n.name));
				// A tool serves the trigger it is connected to (ai_tool): reached through it.
				for (const [from, { ai_tool: tools }] of Object.entries(example.connections)) {
					if (!tools) continue;
					for (const link of tools.flat()) {
						expect([file, from, link.type, byName.get(link.node)?.type]).toEqual([
							file,
							from,
							'ai_tool',
							'@n8n/n8n-nodes-langchain.mcpTrigger',
						]);
						if (reached.has(link.node)) reached.add(from);
					}
				}
				for (const [from, { main = [] }] of Object.entries(example.connections)) {
					const source = byName.get(from);
					expect([file, from, source !== undefined]).toEqual([file, from, true]);
					// Loop Over Items (done, loop) and If (true, false) have two outputs, Compare Datasets
					// four (in A only, same, different, in B only); On Error: Continue (using error output)
					// adds one.
					const outputs =
						(OUTPUTS[source?.type ?? ''] ?? 1) +
						(source?.onError === 'continueErrorOutput' ? 1 : 0);
					expect([file, from, main.length <= outputs]).toEqual([file, from, true]);
					for (const link of main.flat()) {
						const target = byName.get(link.node);
						const inputs =
							target?.type === 'n8n-nodes-base.merge'
								? Number(target.parameters.numberInputs ?? 2)
								: target?.type === 'n8n-nodes-base.compareDatasets'
									? 2
									: 1;
						expect([
							file,
							`${from} -> ${link.node}`,
							target !== undefined && !isTrigger(target),
							link.type,
							link.index < inputs,
						]).toEqual([file, `${from} -> ${link.node}`, true, 'main', true]);
					}
				}
				const unreached = example.nodes
					.filter((n) => n.type !== 'n8n-nodes-base.stickyNote' && !reached.has(n.name))
					.map((n) => n.name);
				expect([file, unreached]).toEqual([file, []]);
			}
		},
	);

	it(
		'every workflow started by a schedule also has a Run Now ' +
			'manual trigger feeding the same nodes, first of the triggers',
		() => {
			for (const [file, example] of examples) {
				const targets = (type: string) =>
					example.nodes
						.filter((n) => n.type === type)
						.map((n) => (example.connections[n.name]?.main[0] ?? []).map((c) => c.node).sort());
				// (A manual trigger may also start a branch of its own, such as Set Up Table.)
				for (const scheduled of targets('n8n-nodes-base.scheduleTrigger')) {
					expect([file, targets('n8n-nodes-base.manualTrigger')]).toEqual([
						file,
						expect.arrayContaining([scheduled]),
					]);
				}
				// `n8n execute` (2.40.7) starts from the first Manual Trigger in the node list. (The
				// editor's big button picks by kind: test/examples/canvas.test.ts.)
				const first = example.nodes.find((n) => /trigger/i.test(n.type))!;
				if (example.nodes.some((n) => n.type === 'n8n-nodes-base.manualTrigger'))
					expect([file, first.type]).toEqual([file, 'n8n-nodes-base.manualTrigger']);
			}
		},
	);

	it('credentials are the demo ones, on every node that needs them, and no other', () => {
		for (const [file, example] of examples) {
			for (const node of example.nodes) {
				const where = `${file} > ${node.name}`;
				for (const [type, reference] of Object.entries(node.credentials ?? {})) {
					expect([where, type, reference]).toEqual([where, type, credentialFor(file, type)]);
				}
				if (!node.type.startsWith(PACKAGE)) continue;
				const description = descriptionOf(node);
				const needed = (description.credentials ?? [])
					.filter((c) => NodeHelpers.displayParameter(node.parameters, c, node, description))
					.map((c) => c.name);
				expect([where, Object.keys(node.credentials ?? {}).sort()]).toEqual([where, needed.sort()]);
			}
		}
	});

	describe('sticky notes', () => {
		const notesOf = (example: Example) =>
			example.nodes
				.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
				.map((n) => String(n.parameters.content));

		it('one each: heading, what it does, what to set; short enough for fit-to-view', () => {
			for (const [file, example] of examples) {
				const notes = notesOf(example);
				expect([file, notes.length, notes[0]]).toEqual([
					file,
					1,
					expect.stringMatching(/^## [^\n]+\n[\s\S]+\*\*Set:\*\* \S/),
				]);
				expect([file, notes[0].length <= NOTE_MAX_CHARACTERS]).toEqual([file, true]);
				expect([file, notes[0].split('\n').length <= NOTE_MAX_LINES]).toEqual([file, true]);
			}
		});

		it('no shell command; in bold only nodes of the canvas and buttons of both lines', () => {
			for (const [file, example] of examples) {
				const [note] = notesOf(example);
				const names = new Set(example.nodes.map((n) => n.name));
				expect([file, note.match(SHELL)]).toEqual([file, null]);
				const bold = [...note.matchAll(/\*\*(.+?)\*\*/g)].map((m) => m[1]);
				const unknown = bold.filter(
					(b) => b !== 'Set:' && !names.has(b) && !CANVAS_BUTTONS.includes(b),
				);
				expect([file, unknown]).toEqual([file, []]);
				for (const gone of GONE_BUTTONS) expect([file, note.includes(gone)]).toEqual([file, false]);
				// "Publish" is n8n 2.x's button; 1.x has an Active switch (where the example runs on 1.x:
				// the Data Table node and this MCP Server Trigger are 2.x's).
				const v2Only = example.nodes.some(
					(n) => n.type === 'n8n-nodes-base.dataTable' || n.type === MCP_TRIGGER,
				);
				if (/\bpublish/i.test(note) && !v2Only)
					expect([file, note]).toEqual([file, expect.stringContaining('(n8n 1.x: activate)')]);
			}
		});
	});

	it(
		'files: a write to disk goes into the root of .n8n-files, its error output to Could Not ' +
			'Write saying what to ask for; each such example has a twin with no disk that keeps the ' +
			'files in a node to replace, all else equal',
		() => {
			const disk = examples.filter(([, e]) => e.nodes.some((n) => n.type === WRITE_FILE));
			expect(disk.map(([file]) => file)).toEqual([
				'catalog-sync.json',
				'nightly-barcode-export.json',
				'reference-lists.json',
				'sales-and-refunds-to-spreadsheet.json',
			]);
			for (const [file, example] of disk) {
				const next = (from: string, output: number) =>
					(example.connections[from]?.main[output] ?? []).map((c) => c.node);
				expect([file, example.name]).toEqual([
					file,
					expect.stringMatching(/on disk, self-hosted\)$/),
				]);
				const writes = example.nodes.filter((n) => n.type === WRITE_FILE);
				for (const write of writes) {
					const path = String(write.parameters.fileName).replace(/^=/, '');
					// No folder of our own: n8n creates none, and .n8n-files is the one n8n 2.x names.
					expect([
						file,
						write.name,
						path.startsWith(FILES_DIR),
						path.slice(FILES_DIR.length),
					]).toEqual([
						file,
						write.name,
						true,
						expect.stringMatching(/^[^/]*(\{\{[^}]*\}\}[^/]*)?$/),
					]);
					expect([file, write.onError, next(write.name, 1)]).toEqual([
						file,
						'continueErrorOutput',
						['Could Not Write'],
					]);
				}
				const stop = example.nodes.find((n) => n.name === 'Could Not Write')!;
				expect([stop.type, stop.parameters.errorMessage]).toEqual([
					'n8n-nodes-base.stopAndError',
					expect.stringMatching(
						/\{\{ \$json\.error \}\}[\s\S]*N8N_RESTRICT_FILE_ACCESS_TO[\s\S]*no disk \(n8n Cloud\)/,
					),
				]);

				const twinFile = file.replace(/\.json$/, '-no-disk.json');
				const twin = examples.find(([f]) => f === twinFile)?.[1];
				expect([twinFile, twin !== undefined]).toEqual([twinFile, true]);
				expect(twin!.name).toMatch(/, no disk \(n8n Cloud\)$/);
				expect(twin!.nodes.filter((n) => n.type === WRITE_FILE)).toEqual([]);
				const dropped = new Set([...writes.map((n) => n.name), 'Could Not Write', 'Sticky Note']);
				const byName = new Map(twin!.nodes.map((n) => [n.name, n]));
				for (const node of example.nodes.filter((n) => !dropped.has(n.name))) {
					const same = byName.get(node.name);
					// The twin's own expressions name its Deliver node where the original named the write.
					const renamed = JSON.parse(
						JSON.stringify(node.parameters).replace(
							/\$\('Write CSV'\)/g,
							"$('Deliver CSV (replace me)')",
						),
					) as unknown;
					expect([twinFile, node.name, same?.type, same?.parameters]).toEqual([
						twinFile,
						node.name,
						node.type,
						renamed,
					]);
				}
				// What reached a write reaches a Deliver node (n8n's No Operation) there: its output
				// offers the file for download, and it is the node to replace with your storage.
				for (const write of writes) {
					const feeding = Object.entries(example.connections)
						.filter(([, { main = [] }]) => main.flat().some((c) => c.node === write.name))
						.map(([from]) => from);
					for (const from of feeding) {
						const target = (twin!.connections[from]?.main[0] ?? []).map((c) => byName.get(c.node));
						expect([twinFile, from, target.map((n) => [n?.type, n?.name])]).toEqual([
							twinFile,
							from,
							[['n8n-nodes-base.noOp', expect.stringMatching(/^Deliver .* \(replace me\)$/)]],
						]);
					}
				}
			}
		},
	);

	it('a write of ours fed by a list of ours runs once (Settings > Execute Once)', () => {
		let checked = 0;
		for (const [file, example] of examples) {
			const byName = new Map(example.nodes.map((n) => [n.name, n]));
			const operation = (node: INode | undefined) =>
				node?.type.startsWith(PACKAGE)
					? operationOf(String(node.parameters.resource), String(node.parameters.operation))
					: undefined;
			for (const [from, { main = [] }] of Object.entries(example.connections)) {
				const list = operation(byName.get(from))?.properties.some((p) => p.name === 'limit');
				if (!list) continue;
				for (const link of main.flat()) {
					const target = byName.get(link.node)!;
					if (operation(target)?.kind !== 'write') continue;
					checked++;
					expect([file, `${from} -> ${target.name}`, target.executeOnce]).toEqual([
						file,
						`${from} -> ${target.name}`,
						true,
					]);
				}
			}
		}
		expect(checked).toBeGreaterThan(0);
	});

	it(
		'sell a ticket: when the service refuses the payment report, the error output releases ' +
			'the hold of the order created; an unclear answer keeps it',
		() => {
			const sale = examples.find(([file]) => file === 'sell-a-ticket.json')![1];
			const pay = sale.nodes.find((n) => n.name === 'Report Payment')!;
			expect([
				pay.onError,
				pay.parameters.operation,
				pay.parameters.toStatus,
				pay.parameters.options,
			]).toEqual(['continueErrorOutput', 'changeStatus', 'paid', { splitTickets: true }]);
			const [success, failure] = sale.connections['Report Payment'].main;
			expect(success).toEqual([]);
			// The node's words: "Refused: ... was NOT applied" when the service said no; anything else
			// (Uncertain, a late answer) may still turn paid.
			const refused = sale.nodes.find((n) => n.name === failure[0].node)!;
			const { conditions } = refused.parameters as {
				conditions: { conditions: [{ leftValue: string }] };
			};
			const test = conditions.conditions[0].leftValue;
			const isRefused = (error: string) =>
				new RegExp(/\/(.*)\/\.test/.exec(test)![1]).test(String(error));
			expect([
				isRefused('Refused: marking the order paid was NOT applied. 409 ...'),
				isRefused('Uncertain: marking the order paid may or may not have been applied'),
			]).toEqual([true, false]);
			const [yes, no] = sale.connections[refused.name].main;
			expect(sale.nodes.find((n) => n.name === no[0].node)!.type).toBe(
				'n8n-nodes-base.stopAndError',
			);
			const release = sale.nodes.find((n) => n.name === yes[0].node)!;
			expect(release.parameters).toMatchObject({
				resource: 'order',
				operation: 'changeStatus',
				toStatus: 'expired',
				orderId: "={{ $('Create Order').item.json.id }}",
			});
			expect(sale.connections[release.name]).toBeUndefined();
		},
	);

	describe('shop checkout', () => {
		const shop = examples.find(([file]) => file === 'shop-checkout.json')![1];
		const release = examples.find(([file]) => file === 'shop-release-held-orders.json')![1];
		const next = (from: string, output: number) =>
			(shop.connections[from]?.main[output] ?? []).map((c) => c.node);
		const byName = new Map(shop.nodes.map((n) => [n.name, n]));
		const code = (name: string) => String(byName.get(name)!.parameters.jsCode);

		it('is closed: its Webhook asks for a Header Auth key and answers through its nodes', () => {
			const webhook = shop.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!;
			expect([
				webhook.parameters.authentication,
				webhook.parameters.responseMode,
				Object.keys(webhook.credentials ?? {}),
			]).toEqual(['headerAuth', 'responseNode', ['httpHeaderAuth']]);
		});

		it(
			'checks the order before the hold; after it, only an explicit decline or a refused ' +
				'report reaches Release Hold; a payment step that fails or says neither is unknown and ' +
				'keeps the hold; every answer but the tickets ends the run as failed',
			() => {
				expect([next('Webhook', 0), next('Check Order', 0)]).toEqual([
					['Check Order'],
					['Order Valid?'],
				]);
				expect([next('Order Valid?', 0), next('Order Valid?', 1)]).toEqual([
					['Hold Best Available'],
					['Answer Buyer'],
				]);
				expect(next('Hold Best Available', 1)).toEqual(['Why No Hold']);
				expect(next('Take Payment (replace me)', 0)).toEqual(['Paid?']);
				expect([next('Paid?', 0), next('Paid?', 1)]).toEqual([['Report Payment'], ['Declined?']]);
				expect([next('Declined?', 0), next('Declined?', 1)]).toEqual([
					['Release Hold'],
					['Payment Unknown'],
				]);
				// The payment step's errors (a timeout after the charge among them) are no decline.
				expect(next('Take Payment (replace me)', 1)).toEqual(['Payment Unknown']);
				expect(byName.get('Paid?')!.parameters).toMatchObject({
					conditions: { conditions: [{ leftValue: '={{ $json.paid === true }}' }] },
				});
				expect(byName.get('Declined?')!.parameters).toMatchObject({
					conditions: { conditions: [{ leftValue: '={{ $json.declined === true }}' }] },
				});
				expect(next('Report Payment', 1)).toEqual(['Payment Refused?']);
				// Only a clear refusal releases: a payment that may still land keeps its hold.
				expect([next('Payment Refused?', 0), next('Payment Refused?', 1)]).toEqual([
					['Release Hold'],
					['Payment Pending'],
				]);
				for (const step of ['Hold Best Available', 'Take Payment (replace me)', 'Report Payment'])
					expect([step, byName.get(step)!.onError]).toEqual([step, 'continueErrorOutput']);
				expect(byName.get('Release Hold')!.parameters).toMatchObject({
					operation: 'changeStatus',
					toStatus: 'expired',
				});
				for (const answer of [
					'Why No Hold',
					'Payment Pending',
					'Payment Unknown',
					'Payment Failed',
				])
					expect([answer, next(answer, 0)]).toEqual([answer, ['Answer Buyer']]);
				expect(next('Release Hold', 0)).toEqual(['Payment Failed']);
				expect(next('Answer Buyer', 0)).toEqual(['Checkout Failed']);
				expect(byName.get('Checkout Failed')!.type).toBe('n8n-nodes-base.stopAndError');
				expect(next('Report Payment', 0)).toEqual(['Send Tickets']);
				expect(next('Send Tickets', 0)).toEqual([]);
				expect((shop.settings as { errorWorkflow?: string }).errorWorkflow).toBe(release.id);
				expect(release.nodes.map((n) => n.type)).toContain('n8n-nodes-base.errorTrigger');
			},
		);

		it('the stand-in payment step answers paid, or declined when asked: never by failing', () => {
			const pay = new Function('$', '$input', code('Take Payment (replace me)')) as (
				$: unknown,
				$input: unknown,
			) => { json: Record<string, unknown> };
			const run = (failPayment: unknown) =>
				pay(() => ({ item: { json: { body: { failPayment } } } }), { item: { json: { id: 7 } } })
					.json;
			expect(run(undefined)).toEqual({ id: 7, paid: true });
			expect(run(true)).toEqual({ declined: true, reason: expect.any(String) });
		});

		it(
			'Check Order, over generated bodies: a whole number of tickets from 1 to its limit and a ' +
				'numeric event go on as given; anything else is a 400 naming the field, never a default',
			async () => {
				const check = new Function('$json', code('Check Order')) as (json: unknown) => {
					json: Record<string, any>;
				};
				const limit = Number(/const MAX_TICKETS = (\d+);/.exec(code('Check Order'))![1]);
				const value = fc.oneof(
					fc.constant(undefined),
					fc.constant(null),
					fc.constant(''),
					fc.integer({ min: -3, max: limit + 3 }),
					fc.integer({ min: 1, max: limit }).map(String),
					fc.integer({ min: 1, max: 1e6 }),
					fc.double({ noNaN: true, min: -5, max: 20 }),
					fc.string({ maxLength: 6 }),
					fc.constantFrom('two', ' 2 ', '2.0', '1e1', '0x10', '-1', '١'),
					fc.boolean(),
					fc.array(fc.nat(), { maxLength: 2 }),
				);
				const body = fc.oneof(
					fc.record({ eventId: value, quantity: value }, { requiredKeys: [] }),
					fc.constantFrom(undefined, null, 'text', [1, 2]),
				);
				const whole = (v: unknown) =>
					typeof v === 'number'
						? Number.isSafeInteger(v)
						: typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v);
				await checkProperty(
					'shop Check Order',
					body,
					async (given) => {
						const { json } = check({ body: given });
						const fields = (given ?? {}) as Record<string, unknown>;
						const event = typeof given === 'object' && !Array.isArray(given) ? fields : {};
						const eventOk = whole(event.eventId) && Number(event.eventId) >= 1;
						const quantityOk =
							whole(event.quantity) &&
							Number(event.quantity) >= 1 &&
							Number(event.quantity) <= limit;
						if (eventOk && quantityOk) {
							expect(json).toEqual({
								eventId: String(Number(event.eventId)),
								quantity: Number(event.quantity),
							});
							return;
						}
						const field = eventOk ? 'quantity' : 'eventId';
						expect(json).toEqual({
							status: 400,
							answer: {
								error: 'invalid_request',
								field,
								message: expect.stringMatching(new RegExp(`^${field} `)),
							},
							failure: expect.stringContaining(field),
						});
					},
					300,
				);
			},
		);
	});

	it(
		'every MCP Server Trigger is closed: Bearer Auth with a ' +
			'credential, on a random path, and the note says how to make ' +
			'the token',
		() => {
			const triggers = examples.flatMap(([file, example]) =>
				example.nodes
					.filter((n) => n.type === MCP_TRIGGER)
					.map((node) => [file, example, node] as const),
			);
			expect(triggers.map(([file]) => file)).toContain('ai-ticket-desk.json');
			for (const [file, example, node] of triggers) {
				// Anyone who reaches an open MCP URL can hold places, filling the account's reserved-ticket
				// limit.
				expect([file, node.parameters.authentication, Object.keys(node.credentials ?? {})]).toEqual(
					[file, 'bearerAuth', ['httpBearerAuth']],
				);
				// A word can be guessed; a UUID (what n8n itself puts there) cannot.
				expect([file, node.parameters.path]).toEqual([
					file,
					expect.stringMatching(
						/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
					),
				]);
				const note = example.nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote')!.parameters
					.content as string;
				expect([file, note]).toEqual([
					file,
					expect.stringMatching(/Bearer Auth[\s\S]*long random token[\s\S]*https/),
				]);
			}
			const paths = triggers.map(([, , node]) => node.parameters.path);
			expect(new Set(paths).size).toBe(paths.length);
		},
	);

	it(
		'CRM: each sale is read in full (Fetch Full Order); only a read order reaches Send to ' +
			'CRM, which writes one deal per sale (PUT to an address ending in its channel and order ' +
			'ID: a widget and an API order of one number are two deals), the demo ' +
			'pointing it at the stand-in CRM; an order not read stops the run with the reason',
		() => {
			const crm = examples.find(([file]) => file === 'push-sale-to-crm.json')![1];
			const byName = new Map(crm.nodes.map((n) => [n.name, n]));
			const next = (from: string, output: number) =>
				(crm.connections[from]?.main[output] ?? []).map((c) => c.node);
			expect(byName.get('On Sale')!.parameters).toMatchObject({
				events: ['sale'],
				authentication: 'signature',
				fetchFullOrder: true,
			});
			expect([next('On Sale', 0), next('Order Read?', 0), next('Order Read?', 1)]).toEqual([
				['Order Read?'],
				['Send to CRM'],
				['Order Not Read'],
			]);
			const send = byName.get('Send to CRM')!;
			expect(send.parameters).toMatchObject({
				method: 'PUT',
				url: '=https://crm.example.com/api/deals/{{ $json.channel }}-{{ $json.orderId }}',
			});
			expect(String(send.parameters.jsonBody)).toContain(
				"externalId: $json.channel + '-' + $json.orderId",
			);
			expect(byName.get('Order Not Read')!.parameters.errorMessage).toContain(
				'{{ $json.orderUnavailable }}',
			);
			const sandbox = { baseUrl: 'http://127.0.0.1:4010' } as Parameters<typeof wireCrm>[0];
			const wired = wireCrm(sandbox, [crm as unknown as DemoExample]);
			expect(wired.url).toBe('http://127.0.0.1:4010/__sandbox/crm/deals');
			expect(wired.examples[0].nodes.find((n) => n.name === send.name)!.parameters!.url).toBe(
				'=http://127.0.0.1:4010/__sandbox/crm/deals/{{ $json.channel }}-{{ $json.orderId }}',
			);
		},
	);

	it(
		'Data Table examples: Set Up Table makes Public Events ledger with the ledger columns; the ' +
			'table is picked in Save to Table (by ID: a rename breaks nothing) and every other row ' +
			'node takes it from there; writes upsert on key; the reconcile feeds the whole table to ' +
			'Reconcile Table, upserts its rows and deletes the extra copies by their row ID',
		() => {
			const tables = examples.filter(([, e]) =>
				e.nodes.some((n) => n.type === 'n8n-nodes-base.dataTable'),
			);
			expect(tables.map(([file]) => file).sort()).toEqual([
				'sales-push-and-poll-to-data-table.json',
				'sales-to-data-table.json',
			]);
			const table = {
				__rl: true,
				mode: 'id',
				value: "={{ $('Save to Table').params.dataTableId.value }}",
			};
			for (const [file, example] of tables) {
				const byName = new Map(example.nodes.map((n) => [n.name, n]));
				const next = (from: string, output = 0) =>
					(example.connections[from]?.main[output] ?? []).map((c) => `${c.node}:${c.index}`);
				const rowNodes = example.nodes.filter(
					(n) => n.type === 'n8n-nodes-base.dataTable' && n.parameters.resource === 'row',
				);
				expect([file, rowNodes.map((n) => [n.name, n.parameters.dataTableId])]).toEqual([
					file,
					[
						['Read Ledger Table', table],
						['Save Reconciled Rows', table],
						['Delete Extra Copies', table],
						['Save to Table', { __rl: true, mode: 'list', value: '' }],
					],
				]);
				expect(next('Set Up Table')).toEqual(['Create Ledger Table:0']);
				expect(byName.get('Create Ledger Table')!.parameters).toEqual({
					resource: 'table',
					operation: 'create',
					tableName: 'Public Events ledger',
					columns: { column: LEDGER_COLUMNS.map(({ name, type }) => ({ name, type })) },
					options: { createIfNotExists: true },
				});
				for (const name of ['Save to Table', 'Save Reconciled Rows'])
					expect([file, byName.get(name)!.parameters]).toEqual([
						file,
						expect.objectContaining({
							operation: 'upsert',
							filters: {
								conditions: [{ keyName: 'key', condition: 'eq', keyValue: '={{ $json.key }}' }],
							},
							columns: expect.objectContaining({ mappingMode: 'autoMapInputData' }),
						}),
					]);
				expect([next('Every Hour'), next('Reconcile Now')]).toEqual([
					['Read Ledger Table:0'],
					['Read Ledger Table:0'],
				]);
				// The whole table, an empty one too (Always Output Data): a first run fills it.
				expect(byName.get('Read Ledger Table')).toMatchObject({
					alwaysOutputData: true,
					parameters: { operation: 'get', returnAll: true },
				});
				expect(next('Read Ledger Table').sort()).toEqual(['Find Extra Copies:0', 'Reconcile:0']);
				expect(byName.get('Reconcile')!.parameters).toMatchObject({
					resource: 'ledger',
					operation: 'reconcile',
					lookBackDays: 7,
				});
				expect(byName.get('Find Extra Copies')!.parameters).toMatchObject({
					resource: 'ledger',
					operation: 'reconcile',
					reconcileOutput: 'extraCopies',
				});
				expect([next('Reconcile'), next('Find Extra Copies')]).toEqual([
					['Save Reconciled Rows:0'],
					['Delete Extra Copies:0'],
				]);
				expect(byName.get('Delete Extra Copies')!.parameters.filters).toEqual({
					conditions: [{ keyName: 'id', condition: 'eq', keyValue: '={{ $json.id }}' }],
				});
				// Every channel, as ledger rows.
				expect(byName.get('New Sales and Refunds')!.parameters).toEqual({
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					source: 'salesAndRefunds',
					options: { output: 'rows' },
				});
				expect(next('New Sales and Refunds')).toEqual(['Save to Table:0']);
			}
		},
	);

	it(
		'push and poll: both triggers give ledger rows into one Save to Table; pushed rows go ' +
			'through Rows Read from the API (rows whose record was read)',
		() => {
			const both = examples.find(([file]) => file === 'sales-push-and-poll-to-data-table.json')![1];
			const byName = new Map(both.nodes.map((n) => [n.name, n]));
			const next = (from: string) => (both.connections[from]?.main[0] ?? []).map((c) => c.node);
			expect(byName.get('Sale or Refund Pushed')!.parameters).toEqual({
				events: ['refund', 'sale'],
				authentication: 'signature',
				fetchFullOrder: true,
				options: { output: 'rows' },
			});
			expect([next('Sale or Refund Pushed'), next('Rows Read from the API')]).toEqual([
				['Rows Read from the API'],
				['Save to Table'],
			]);
			const conditions = (
				byName.get('Rows Read from the API')!.parameters.conditions as {
					conditions: Array<{ leftValue: string; operator: { operation: string } }>;
				}
			).conditions.map((c) => [c.leftValue, c.operator.operation]);
			expect(conditions).toEqual([['={{ $json.orderUnavailable }}', 'notExists']]);
		},
	);

	it('no file holds a key, a token, a secret or credential data', () => {
		for (const [file] of examples) {
			const text = readFileSync(join(DIR, file), 'utf8');
			expectNoSecrets(text, secretsOf(sandbox), file);
			expect([
				file,
				text.match(/pe_(test|live)_\w+|eyJ[\w-]{8,}\.|"(apiKey|secret|token|password|data)"\s*:/g),
			]).toEqual([file, null]);
		}
	});
});
