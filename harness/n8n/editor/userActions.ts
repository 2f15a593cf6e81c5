/**
 * What a user does in n8n 2.x's editor, as the journeys suite does it: search the node creator,
 * pick from a dropdown, run a workflow and read how the run ended. Waits are on what the page
 * shows, bounded.
 */
import type { Locator } from 'playwright-core';

import { until } from '../../sandbox/push';
import type { EditorBrowser } from './browser';

/** The titles of the toast n8n shows when a run from the editor ends. */
const RUN_ENDED = new RegExp(
	'Workflow executed successfully|Problem in node|Workflow exec' +
		'ution had an error|Workflow has issues',
);

/**
 * Polls `probe` every 100 ms until `done` holds or time is up; returns the last value, for an
 * expect that shows it.
 */
export async function settled<T>(
	probe: () => Promise<T>,
	done: (value: T) => boolean,
	timeoutMs = 30_000,
): Promise<T> {
	let last!: T;
	const check = async () => {
		last = await probe();
		return done(last) && { last };
	};
	return await until(check, 'a settled value', timeoutMs, 100).then(
		(settledValue) => settledValue.last,
		() => last,
	);
}

/**
 * Types `words` into the open node creator's search; returns the names listed once `done` holds (or
 * time is up).
 */
export async function searchNodes(
	editor: EditorBrowser,
	words: string,
	done: (names: string[]) => boolean,
): Promise<string[]> {
	await editor.testId('node-creator-search-bar').fill(words);
	return settled(() => editor.testId('node-creator-item-name').allInnerTexts(), done, 10_000);
}

/** Opens the dropdown of a parameter (by its name) and picks the option whose title is `title`. */
export async function choose(
	editor: EditorBrowser,
	parameter: string,
	title: string,
): Promise<void> {
	await editor.testId(`parameter-input-${parameter}`).click();
	// an option holds its title and, for operations, a description line
	await editor.page
		.locator('.el-select-dropdown__item:visible')
		.filter({ has: editor.page.getByText(title, { exact: true }) })
		.first()
		.click();
}

/** Picks a stored credential in an open node panel's credential dropdown. */
export async function chooseCredential(editor: EditorBrowser, name: string): Promise<void> {
	await editor.testId('node-credentials-select').click();
	await editor.page
		.locator('[data-test-id^="node-credentials-select-item-"]:visible')
		.filter({ has: editor.page.getByText(name, { exact: true }) })
		.click();
}

/** The text of the toast n8n shows when the run ends (success or failure). */
export async function runEnded(editor: EditorBrowser, timeoutMs = 90_000): Promise<string> {
	const toast = editor.page
		.locator('.el-notification:visible')
		.filter({ hasText: RUN_ENDED })
		.first();
	await toast.waitFor({ timeout: timeoutMs });
	return (await toast.innerText()).trim();
}

/**
 * "Execute workflow" as a user clicks it: the big button, or with several triggers the one on
 * the trigger's node (it shows when the pointer is on the node). Old toasts are closed first so
 * the one read is this run's.
 */
export async function executeWorkflow(editor: EditorBrowser, trigger?: string): Promise<void> {
	await editor.dismissToasts();
	if (!trigger) return await editor.testId('execute-workflow-button').click();
	await editor.canvasNode(trigger).hover();
	await editor.testId(`execute-workflow-button-${trigger}`).click();
}

/**
 * What the canvas's big "Execute workflow" button reads, spaces made single: "Execute workflow",
 * or with several triggers "Execute workflow from <the trigger it starts from>".
 */
export async function executeButtonLabel(editor: EditorBrowser): Promise<string> {
	const button = editor.testId('execute-workflow-button');
	await button.waitFor();
	return (await button.innerText()).replace(/\s+/g, ' ').trim();
}

/** Whether the canvas shows the node's success mark (its last run ended without error). */
export function succeeded(editor: EditorBrowser, node: string): Promise<boolean> {
	return editor.canvasNode(node).locator('[data-test-id="canvas-node-status-success"]').isVisible();
}

/** The item count an open panel's output shows ("24 items"), once it shows one. */
export async function outputCount(editor: EditorBrowser, timeoutMs = 30_000): Promise<string> {
	const count: Locator = editor
		.testId('output-panel')
		.locator('[data-test-id="ndv-items-count"], [data-test-id="run-data-item-count"]')
		.first();
	await count.waitFor({ timeout: timeoutMs });
	return (await count.innerText()).trim();
}
