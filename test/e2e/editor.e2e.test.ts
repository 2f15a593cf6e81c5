/**
 * The packed package in real n8n 2.40.7's editor, driven by headless Chromium: the three node
 * types show with their icons, their panels render, the action node's output schema is previewed
 * before a run, the event list and the dropdowns are filled from the sandbox (listSearch,
 * loadOptions), and the credential's test passes with the right key and
 * fails, saying why, with a wrong one. Screenshots: SCREENSHOTS_DIR=docs/screenshots keeps them.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	N8nInstance,
	PACKAGE_NAME,
	REPO_ROOT,
	type N8nServer,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import { n8nWithSandbox } from '../../harness/n8n/withSandbox';
import { eventLabel } from '../../nodes/shared/methods/loadOptions';
import { PUSH_TRIGGER_SCHEMA, readSchema } from '../../harness/engine/outputSchema';
import { SandboxClient } from '../../harness/sandbox/client';
import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { EditorBrowser, UNKNOWN_NODE_TEXTS, VIEWPORT } from '../../harness/n8n/editor/browser';
import { settled } from '../../harness/n8n/editor/userActions';
import {
	API_CREDENTIAL,
	chooseOrder,
	credentials,
	editorWorkflow,
	HOOK_CREDENTIAL,
	NODES,
	WEBHOOK_SECRET,
	WORKFLOW_ID,
	WRONG_CREDENTIAL,
	WRONG_KEY,
	type OrderChoice,
} from '../../harness/n8n/editor/workflow';
import { OWNER } from '../../harness/n8n/owner';

const WEBHOOK_ID = randomUUID();
/** The AI example as the demo has it, its tools on this suite's credential. */
const AI_DESK = JSON.parse(
	readFileSync(join(REPO_ROOT, 'examples', 'ai-ticket-desk.json'), 'utf8'),
) as { id: string; nodes: Array<{ name: string; type: string; credentials?: object }> };
for (const node of AI_DESK.nodes)
	if ((node.credentials as { publicEventsApi?: object } | undefined)?.publicEventsApi)
		node.credentials = { publicEventsApi: API_CREDENTIAL };
/**
 * The MCP trigger's Bearer credential, as the demo creates it: the trigger shows no credential
 * issue.
 */
const MCP_TOKEN = {
	id: 'PeDemoMcpToken01',
	name: 'Public Events MCP token',
	type: 'httpBearerAuth',
	data: { token: randomUUID() },
};
const NODE_TYPES = {
	[NODES.action]: 'publicEvents',
	[NODES.push]: 'publicEventsTrigger',
	[NODES.poll]: 'publicEventsPollTrigger',
	[NODES.payment]: 'publicEvents',
};

describe("real n8n editor in a browser: the package's nodes and credential", () => {
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let server: N8nServer;
	let editor: EditorBrowser;
	let order: OrderChoice;

	/** API requests n8n made since a request-log position, as `METHOD route?query status`. */
	const requestsSince = (seq: number) =>
		sandbox.app.log.since(seq).map((e) => `${e.method} ${e.route}${e.query} ${e.status ?? '-'}`);
	const secrets = () =>
		secretsOf(sandbox, { 'wrong API key': WRONG_KEY, 'webhook secret': WEBHOOK_SECRET });

	async function expectScreenshot(name: string) {
		const shot = await editor.screenshot(name);
		expect({ width: shot.width, height: shot.height }).toEqual(VIEWPORT);
		// an empty or blank page compresses to a few kilobytes
		expect(shot.bytes).toBeGreaterThan(20_000);
	}

	/** The page shows no unknown-node placeholder and reported nothing unexpected. */
	async function expectHealthyPage() {
		const text = await editor.page.locator('body').innerText();
		for (const unknown of UNKNOWN_NODE_TEXTS) expect(text).not.toContain(unknown);
		expect(editor.takeProblems()).toEqual([]);
	}

	beforeAll(async () => {
		({ sandbox, packed, n8n } = await n8nWithSandbox());
		order = await chooseOrder(sandbox);
		await n8n.importCredentials([
			...credentials(sandbox.sandbox.baseUrl, sandbox.keys.partner),
			MCP_TOKEN,
		]);
		await n8n.importWorkflows([editorWorkflow(order, WEBHOOK_ID), AI_DESK]);
		server = await n8n.start();
		editor = await EditorBrowser.open(server.url, await server.setupOwner(OWNER));
	});

	afterAll(async () => {
		try {
			await editor?.close();
		} finally {
			await server?.stop();
			n8n?.cleanup();
			packed?.cleanup();
			await sandbox?.stop();
		}
	});

	it('the canvas shows the four nodes with their own icons, none unknown', async () => {
		await editor.canvas(WORKFLOW_ID);

		for (const [name, type] of Object.entries(NODE_TYPES)) {
			const node = editor.canvasNode(name);
			await expect(node.getAttribute('data-node-type')).resolves.toBe(`${PACKAGE_NAME}.${type}`);
			const icon = node.locator('img').first();
			const src = (await icon.getAttribute('src')) ?? '';
			expect(src).toMatch(/^\/icons\/n8n-nodes-public-events\/.*\/publicEvents\.svg$/);
			// the dark theme's icon is served too
			const dark = await editor.page.request.get(
				`${server.url}${src.replace(/\.svg$/, '.dark.svg')}`,
			);
			expect([dark.status(), (await dark.text()).trimStart().slice(0, 4)]).toEqual([200, '<svg']);
			// loaded and drawn, not a broken image
			await expect(
				icon.evaluate((img) => {
					const { complete, naturalWidth } = img as unknown as {
						complete: boolean;
						naturalWidth: number;
					};
					return complete && naturalWidth > 0;
				}),
			).resolves.toBe(true);
			// n8n draws "?" for a node type it does not know
			await expect(node.innerText()).resolves.not.toMatch(/^\?$/m);
		}
		await expectScreenshot('editor-canvas.png');
		await expectHealthyPage();
	});

	it(
		'the AI ticket desk example: the MCP Server Trigger with four ' +
			"Public Events tools; a tool's Description is the one the example gives it",
		async () => {
			await editor.canvas(AI_DESK.id);

			for (const node of AI_DESK.nodes.filter((n) => !n.type.endsWith('stickyNote'))) {
				await expect(editor.canvasNode(node.name).getAttribute('data-node-type')).resolves.toBe(
					node.type,
				);
			}
			await expectScreenshot('ai-ticket-desk.png');
			const panel = await editor.openPanel('Hold Best Available');
			// A textarea's text is its value, not the page's text.
			const shown = await panel.evaluate((el) =>
				[el.textContent, ...[...el.querySelectorAll('textarea')].map((t) => t.value)].join('\n'),
			);
			expect(shown).toContain('never place or price IDs: this tool picks them');
			await editor.closePanel();
			await expectHealthyPage();
		},
	);

	it(
		"before any run, the next node's input shows Create's output " +
			'fields from the shipped schema',
		async () => {
			for (const [resource, operation] of [
				['order', 'create'],
				['event', 'getMany'],
				['widget', 'getManyOrders'],
			]) {
				const answer = await editor.page.request.get(
					`${server.url}/schemas/n8n-nodes-public-events.publicEvents/1.0.0/` +
						`${resource}/${operation}.json`,
				);
				expect([resource, operation, answer.status()]).toEqual([resource, operation, 200]);
				expect(await answer.json()).toEqual(readSchema(resource, operation));
			}
			await editor.canvas(WORKFLOW_ID);
			await editor.openPanel(NODES.payment);
			const input = editor.testId('ndv-input-panel');
			await input.getByText('Usually outputs the following fields', { exact: false }).waitFor();
			const text = await input.innerText();
			for (const field of Object.keys(readSchema('order', 'create')!.properties!))
				expect(text).toContain(field);
			await expectScreenshot('schema-preview.png');
			await expectHealthyPage();
		},
	);

	it(
		"n8n serves the push trigger's output schema; the poll " +
			'trigger ships none (its sources differ in shape)',
		async () => {
			// n8n 2.40.7's editor does not preview trigger schemas before a run ("Trigger nodes do not
			// have schema previews"); the schema endpoint and its AI builder's lookup read them.
			const push = await editor.page.request.get(
				`${server.url}/schemas/n8n-nodes-public-events.publicEventsTrigger/1.0.0.json`,
			);
			expect(push.status()).toBe(200);
			expect(await push.json()).toEqual(JSON.parse(readFileSync(PUSH_TRIGGER_SCHEMA, 'utf8')));
			const poll = await editor.page.request.get(
				`${server.url}/schemas/n8n-nodes-public-events.publicEventsPollTrigger/1.0.0.json`,
			);
			expect(poll.status()).toBe(404);
		},
	);

	it(
		"the action node's panel renders its parameters; the price " +
			'category is named from the sandbox (loadOptions)',
		async () => {
			await editor.canvas(WORKFLOW_ID);
			const seq = sandbox.app.log.lastSeq;

			const panel = await editor.openPanel(NODES.action);

			for (const label of [
				'Credential',
				'Resource',
				'Operation',
				'Event',
				'Sector',
				'Places',
				'Price Category Name or ID',
				'Hold Minutes',
			]) {
				await expect(panel.getByText(label, { exact: true }).first().isVisible()).resolves.toBe(
					true,
				);
			}
			await expect(
				panel.getByText('Held places count against your account', { exact: false }).isVisible(),
			).resolves.toBe(true);
			// The stored price category shows by its name once n8n loaded the place's categories.
			const category = editor.testId('parameter-input-priceCategory').locator('input');
			expect(
				await settled(
					() => category.inputValue(),
					(value) => !value.startsWith('Loading'),
				),
			).toMatch(/^\w.* · \d+(\.\d+)? [A-Z]{3}$/);
			expect(requestsSince(seq)).toContainEqual(
				expect.stringMatching(/^GET \/event-points\/\{id\}\/places\?.* 200$/),
			);
			await expectScreenshot('action-node-panel.png');
			await expectHealthyPage();
		},
	);

	it(
		"the event locator lists the sandbox's events and its search " + 'narrows them (listSearch)',
		async () => {
			await editor.canvas(WORKFLOW_ID);
			await editor.openPanel(NODES.action);
			const seq = sandbox.app.log.lastSeq;
			const visible = (
				(await sandbox.getAll('/event-points', { query: { 'order[dateStarted]': 'asc' } })) as any[]
			).slice(0, 100);

			await editor.testId('rlc-input').first().click();
			const items = editor.testId('rlc-item');
			// n8n lists the chosen event first, then the first page (100) of events, soonest first
			const firstPage = [
				order.eventLabel,
				...visible.map(eventLabel).filter((label) => label !== order.eventLabel),
			];
			expect(
				await settled(
					() => items.allInnerTexts(),
					(texts) => texts.length > 1,
				),
			).toEqual(firstPage);

			// search by the performer with most events (names read "Performer: Title"), not the chosen
			// one's
			const performers = visible
				.map((e) => String(e.eventName).split(':')[0])
				.filter((p) => !order.eventLabel.startsWith(p));
			const count = (p: string) => performers.filter((q) => q === p).length;
			const search = performers.reduce((best, p) => (count(p) > count(best) ? p : best));
			const matching = visible
				.map(eventLabel)
				.filter((label) => label.toLowerCase().includes(search.toLowerCase()));
			expect(matching.length).toBeGreaterThan(1);
			await editor.testId('rlc-search').fill(search);
			const wanted = [order.eventLabel, ...matching];
			expect(
				await settled(
					() => items.allInnerTexts(),
					(texts) => texts.join('\n') === wanted.join('\n'),
				),
			).toEqual(wanted);
			expect(
				requestsSince(seq).filter((r) => /^GET \/event-points\?.* 200$/.test(r)).length,
			).toBeGreaterThanOrEqual(1);
			await expectScreenshot('event-locator-list.png');
			await editor.page.keyboard.press('Escape');
			await expectHealthyPage();
		},
	);

	it("the push trigger's panel renders its events, security and webhook credential", async () => {
		await editor.canvas(WORKFLOW_ID);
		const panel = await editor.openPanel(NODES.push);

		for (const text of [
			'Webhook URLs',
			'Events',
			'New Event',
			'Sale',
			'Refund',
			'Security',
			'Header Name',
			'Fetch Full Order',
		]) {
			await expect(panel.getByText(text, { exact: true }).first().isVisible()).resolves.toBe(true);
		}
		await expect(
			editor.testId('node-credentials-select').locator('input').inputValue(),
		).resolves.toBe(HOOK_CREDENTIAL.name);
		// the URL to give the service, as the notice says: the production one
		await panel.getByText('Webhook URLs', { exact: true }).click();
		await panel
			.getByText(`${server.url}/webhook-test/${WEBHOOK_ID}/webhook`, { exact: true })
			.waitFor();
		await panel.getByText('Production URL', { exact: true }).click();
		await panel.getByText(`${server.url}/webhook/${WEBHOOK_ID}/webhook`, { exact: true }).waitFor();
		await expectScreenshot('push-trigger-panel.png');
		await expectHealthyPage();
	});

	it(
		"the poll trigger's panel renders; its event dropdown is " +
			'filled from the sandbox (loadOptions)',
		async () => {
			await editor.canvas(WORKFLOW_ID);
			const seq = sandbox.app.log.lastSeq;
			const panel = await editor.openPanel(NODES.poll);
			for (const text of [
				'Poll Times',
				'Source',
				'Include',
				'Event Orders Of',
				'Event Names or IDs',
			]) {
				await expect(panel.getByText(text, { exact: true }).first().isVisible()).resolves.toBe(
					true,
				);
			}

			// A click while the options are still loading can leave the dropdown shut (seen once in CI
			// under load): wait for the options' request, and click again while nothing shows.
			const listed = () => requestsSince(seq).some((r) => /^GET \/event-points\?.* 200$/.test(r));
			await settled(
				async () => listed(),
				(done) => done,
			);
			const input = editor.testId('parameter-input-eventIds');
			const options = editor.page.locator('.el-select-dropdown__item:visible');
			let clicks = 0;
			const names = (
				await settled(
					async () => {
						const texts = await options.allInnerTexts();
						if (texts.length === 0 && clicks++ % 20 === 0) await input.click();
						return texts;
					},
					(texts) => texts.length > 1,
				)
			).map((name) => name.trim());
			expect(names).toContain(order.eventLabel);
			expect(requestsSince(seq)).toContainEqual(
				expect.stringMatching(/^GET \/event-points\?.* 200$/),
			);
			await expectScreenshot('poll-trigger-panel.png');
			await editor.page.keyboard.press('Escape');
			await expectHealthyPage();
		},
	);

	it(
		"the credential's test passes against the sandbox, on opening " +
			'and after saving; the key stays off the page',
		async () => {
			await editor.canvas(WORKFLOW_ID);
			await editor.openPanel(NODES.action);
			const seq = sandbox.app.log.lastSeq;
			const testCalls = () =>
				requestsSince(seq).filter((r) => r.startsWith('GET /event-points?page=1&itemsPerPage=1 '));

			// The node's credential → edit: n8n tests a stored credential when it opens it.
			await editor.testId('credential-edit-button').locator('svg').click();
			const dialog = editor.testId('credential-edit-dialog');
			await dialog.getByText('Connection tested successfully').waitFor();
			expect(testCalls()).toEqual(['GET /event-points?page=1&itemsPerPage=1 200']);

			// Save a change: n8n saves, then tests again.
			await editor.testId('parameter-input-language').locator('input').fill('en');
			await editor.testId('credential-save-button').click();
			await settled(
				async () => testCalls().length,
				(count) => count >= 2,
			);
			await dialog.getByText('Connection tested successfully').waitFor();
			expect(testCalls()).toEqual(Array(2).fill('GET /event-points?page=1&itemsPerPage=1 200'));
			// nothing refused on the way: the test got a token and used it
			expect(requestsSince(seq).filter((r) => !r.endsWith(' 200'))).toEqual([]);

			await expectScreenshot('credential-test.png');
			// n8n masks a saved password field: the page holds a placeholder, not the key
			await expect(dialog.locator('input[type="password"]').inputValue()).resolves.toMatch(
				/^__n8n_BLANK_VALUE_/,
			);
			expect(await editor.capture()).not.toContain(sandbox.keys.partner);
			await expectHealthyPage();
			await editor.closeDialog();
		},
	);

	it(
		'a wrong key: the test fails saying the key was refused, and ' + 'the key is not on the page',
		async () => {
			await editor.canvas(WORKFLOW_ID);
			// Overview > Credentials, as a user gets there
			await editor.page.locator('a[href="/home"]').first().click();
			await editor.page.locator('a[href="/home/credentials"]').first().click();
			const seq = sandbox.app.log.lastSeq;

			await editor.page.getByText(WRONG_CREDENTIAL.name, { exact: true }).click();
			const dialog = editor.testId('credential-edit-dialog');
			await dialog.getByText('Couldn’t connect with these settings').waitFor();
			await dialog.getByText('More details').click();
			await dialog
				.getByText(/The API key was refused by POST .*\/api\/v2\/token \(401\)/)
				.waitFor();
			await dialog.getByRole('button', { name: 'Retry' }).waitFor();
			await editor.dismissToasts();
			await expectScreenshot('credential-test-failed.png');
			expect(requestsSince(seq)).toEqual(['POST /token 401']);

			expect(await editor.capture()).not.toContain(WRONG_KEY);
			await expectHealthyPage();
			await editor.closeDialog();
		},
	);

	it("no secret in the pages, n8n's output or the server log", async () => {
		expect(editor.capturedHtml().length).toBeGreaterThan(0);
		expectNoSecrets(
			`${n8n.printedText()}\n${server.log()}\n${editor.capturedHtml()}`,
			secrets(),
			'real n8n editor',
		);
	});
});
