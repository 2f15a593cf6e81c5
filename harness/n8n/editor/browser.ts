/**
 * Headless Chromium on n8n's editor, signed in with the owner's cookie:
 * collects what the page reports (console errors, page errors, failed requests), saves
 * screenshots, and keeps the HTML of each step for the secrets scan.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

import { REPO_ROOT } from '../../../scripts/n8n/instance';

const CHROMIUM = '/usr/bin/chromium';
// Playwright adds --headless and a fresh --user-data-dir itself; the rest keeps Chromium off the
// network.
const FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-quic',
	'--no-first-run',
	'--disable-component-update',
	'--disable-sync',
];
export const VIEWPORT = { width: 1440, height: 900 };

/**
 * What the editor prints on a machine without internet: n8n's look-ups of its own online
 * services, and the output-schema previews it asks the triggers for (the action node ships one
 * per operation; the triggers' output depends on their settings, so they ship none and
 * /schemas/n8n-nodes-public-events.<trigger>/1.0.0.json answers 404).
 */
const EXPECTED_CONSOLE = [/ERR_NAME_NOT_RESOLVED/, /Can't connect to n8n/];
/**
 * n8n 2.40.7's editor, not the package: leaving a workflow canvas for the Overview can throw this
 * while the canvas tears down (a part of it still reads the node panel's store after the workflow's
 * store is gone). Seen once in this project's CI runs; it names no node of this package.
 */
const EXPECTED_PAGE_ERRORS = [
	/^injectNDVStore\(\) was accessed without an active workflow document store/,
];
/**
 * The node creator's details of a community node ask npm for the package's latest version (offline
 * here).
 */
const isNpmLookup = (url: string) => url.startsWith('https://registry.npmjs.org/');
const isSchemaPreview = (url: string) =>
	/\/schemas\/n8n-nodes-public-events\.publicEvents(?:Trigger|PollTrigger)\/[\d.]+\.json$/.test(
		url,
	);

/**
 * n8n's texts for a node type it does not know (i18n nodeSettings.*Unknown*, communityNodeItem).
 */
export const UNKNOWN_NODE_TEXTS = ['Install this node', 'not currently installed'];

export class EditorBrowser {
	/**
	 * Console errors, page errors and failed requests nobody expected, since the last takeProblems().
	 */
	private problems: string[] = [];
	/** HTML of each step, for the secrets scan. */
	private readonly html: string[] = [];

	private constructor(
		private readonly browser: Browser,
		readonly page: Page,
		private readonly baseUrl: string,
		readonly screenshotDir: string,
		private readonly keepScreenshots: boolean,
	) {
		page.on('console', (message) => {
			if (message.type() !== 'error') return;
			const text = message.text();
			const { url } = message.location();
			if (
				EXPECTED_CONSOLE.some((pattern) => pattern.test(text)) ||
				isSchemaPreview(url) ||
				isNpmLookup(url)
			)
				return;
			this.problems.push(`console: ${text} (${message.location().url})`);
		});
		page.on('pageerror', (error) => {
			if (!EXPECTED_PAGE_ERRORS.some((pattern) => pattern.test(error.message)))
				this.problems.push(`page error: ${error.message}`);
		});
		page.on('response', (response) => {
			const url = response.url();
			if (
				response.status() >= 500 ||
				(response.status() >= 400 && url.startsWith(baseUrl) && !isSchemaPreview(url))
			) {
				this.problems.push(`HTTP ${response.status()} ${response.request().method()} ${url}`);
			}
		});
	}

	/**
	 * Screenshots go to SCREENSHOTS_DIR (relative to the repo) when set, else to a temp folder
	 * removed by close().
	 */
	static async open(baseUrl: string, authCookie: string): Promise<EditorBrowser> {
		const wanted = process.env.SCREENSHOTS_DIR;
		const dir = wanted
			? isAbsolute(wanted)
				? wanted
				: join(REPO_ROOT, wanted)
			: mkdtempSync(join(tmpdir(), 'pe-editor-shots-'));
		mkdirSync(dir, { recursive: true });
		const browser = await chromium.launch({
			executablePath: CHROMIUM,
			headless: true,
			args: FLAGS,
		});
		try {
			const context = await browser.newContext({
				viewport: VIEWPORT,
				locale: 'en-US',
				timezoneId: 'UTC',
			});
			await context.addCookies([{ name: 'n8n-auth', value: authCookie, url: baseUrl }]);
			const page = await context.newPage();
			page.setDefaultTimeout(30_000);
			return new EditorBrowser(browser, page, baseUrl, dir, Boolean(wanted));
		} catch (error) {
			await browser.close();
			throw error;
		}
	}

	takeProblems(): string[] {
		const taken = this.problems;
		this.problems = [];
		return taken;
	}

	async close(): Promise<void> {
		await this.browser.close();
		if (!this.keepScreenshots) rmSync(this.screenshotDir, { recursive: true, force: true });
	}

	testId(id: string): Locator {
		return this.page.locator(`[data-test-id="${id}"]`);
	}

	/** Opens an editor path and waits until n8n has loaded what it shows. */
	async goto(path: string): Promise<void> {
		await this.page.goto(`${this.baseUrl}${path}`);
		// The login screen here would mean the cookie was not taken.
		if (new URL(this.page.url()).pathname.startsWith('/signin'))
			throw new Error(`${path} sent the browser to the sign-in page`);
	}

	async openWorkflow(id: string): Promise<void> {
		await this.goto(`/workflow/${id}`);
		await this.testId('canvas-node').first().waitFor();
	}

	/**
	 * Back to the workflow's canvas with no panel open, loading the page only when it is
	 * elsewhere: a load costs seconds of the editor's scripts.
	 */
	async canvas(id: string): Promise<void> {
		// (an open panel adds the node's id to the path)
		if (!new URL(this.page.url()).pathname.startsWith(`/workflow/${id}`))
			return await this.openWorkflow(id);
		if (await this.testId('ndv').isVisible()) await this.closePanel();
	}

	/**
	 * Closes n8n's toasts ("Credential saved" …): one left from an earlier step would mislead in a
	 * screenshot.
	 */
	async dismissToasts(): Promise<void> {
		const close = this.page.locator('.el-notification:visible .el-notification__closeBtn');
		for (let i = 0; i < 10 && (await close.count()) > 0; i++) {
			// a toast may close by itself under the pointer: then the next round finds none
			await close
				.first()
				.click({ timeout: 2000 })
				.catch(() => undefined);
		}
		await close.first().waitFor({ state: 'detached', timeout: 5000 });
	}

	async closeDialog(): Promise<void> {
		await this.page.getByRole('button', { name: 'Close this dialog' }).click();
	}

	canvasNode(name: string): Locator {
		return this.page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
	}

	/** A node's panel, opened as a user does: double click on the node. */
	async openPanel(name: string): Promise<Locator> {
		await this.page
			.locator('.vue-flow__node')
			.filter({ has: this.canvasNode(name) })
			.dblclick();
		const panel = this.testId('ndv');
		await panel.waitFor();
		await this.page.waitForLoadState('networkidle');
		return panel;
	}

	async closePanel(): Promise<void> {
		await this.testId('ndv-close-button').click();
		await this.testId('ndv').waitFor({ state: 'hidden' });
	}

	/** The page's HTML now, kept for the secrets scan. */
	async capture(): Promise<string> {
		const html = await this.page.content();
		this.html.push(html);
		return html;
	}

	capturedHtml(): string {
		return this.html.join('\n');
	}

	/**
	 * A PNG of the viewport once the page is idle; returns its width and height (from the PNG
	 * header).
	 * `keepHtml: false` leaves the page out of the secrets scan: a form the user is typing a key into
	 * holds it.
	 */
	async screenshot(
		name: string,
		{ keepHtml = true } = {},
	): Promise<{ file: string; width: number; height: number; bytes: number }> {
		await this.page.waitForLoadState('networkidle');
		// off any field: a hovered one shows its Fixed / Expression toggle
		await this.page.mouse.move(0, VIEWPORT.height / 2);
		const file = join(this.screenshotDir, name);
		// finished animations: a panel or dropdown caught half open would look broken
		await this.page.screenshot({ path: file, animations: 'disabled' });
		if (keepHtml) await this.capture();
		const png = readFileSync(file);
		return { file, width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length };
	}
}
