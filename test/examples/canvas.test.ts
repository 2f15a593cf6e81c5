import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	BUTTON_NAME_CHARACTERS,
	buttonLabel,
	defaultTrigger,
	isTrigger,
	nodeArea,
	overlaps,
	type CanvasNode,
} from '../../harness/n8n/editor/canvas';

/**
 * The shipped examples on n8n's canvas: the big "Execute workflow" button starts from the trigger
 * their notes and the docs name (the editor's own rule, harness/n8n/editor/canvas.ts), and no
 * node, label or sticky note covers another when the canvas fits the window. The journeys suite
 * reads the button in the running editor.
 */
const DIR = join(__dirname, '..', '..', 'examples');
const examples = readdirSync(DIR)
	.filter((f) => f.endsWith('.json'))
	.sort()
	.map(
		(file) =>
			[
				file,
				JSON.parse(readFileSync(join(DIR, file), 'utf8')) as {
					nodes: CanvasNode[];
					connections: Record<string, { main: Array<Array<{ node: string }>> }>;
				},
			] as const,
	);

/** Each example's trigger of the big button, and what a run from it does (its notes say so). */
const BUTTON: Record<string, string> = {
	'ai-ticket-desk.json': 'MCP Server Trigger',
	// its one trigger: a sample event, then the whole catalog into events.json
	'catalog-sync.json': 'Catalog Changed',
	'catalog-sync-no-disk.json': 'Catalog Changed',
	// the schedule, not Run Now: both start the same nodes
	'nightly-barcode-export.json': 'Every Night at 2',
	'nightly-barcode-export-no-disk.json': 'Every Night at 2',
	'push-sale-to-crm.json': 'On Sale',
	'reference-lists.json': 'Every Day at 3',
	'reference-lists-no-disk.json': 'Every Day at 3',
	'sales-and-refunds-to-spreadsheet.json': 'Every Morning',
	'sales-and-refunds-to-spreadsheet-no-disk.json': 'Every Morning',
	// the poll (the latest sale or refund into the table), not the push, which the demo sends to
	// the published workflow's Production URL only
	'sales-push-and-poll-to-data-table.json': 'New Sales and Refunds',
	'sales-to-data-table.json': 'New Sales and Refunds',
	'sales-to-google-sheets.json': 'New Sales and Refunds',
	'sell-a-ticket.json': 'Start',
	'shop-checkout.json': 'Webhook',
	'shop-release-held-orders.json': 'Error Trigger',
};

const targets = (example: (typeof examples)[number][1], trigger: string) =>
	(example.connections[trigger]?.main[0] ?? []).map((c) => c.node).sort();

describe('the examples on the canvas', () => {
	it("the big button starts from the trigger the table names, by n8n's editor's rule", () => {
		expect(examples.map(([file]) => file)).toEqual(Object.keys(BUTTON).sort());
		for (const [file, { nodes }] of examples) {
			const trigger = defaultTrigger(nodes)!;
			expect([file, trigger.name]).toEqual([file, BUTTON[file]]);
			// shown whole on the button ("Execute workflow from <name>")
			expect([file, trigger.name.length <= BUTTON_NAME_CHARACTERS]).toEqual([file, true]);
			const several = nodes.filter(isTrigger).length > 1;
			expect([file, buttonLabel(nodes)]).toEqual([
				file,
				several ? `Execute workflow from ${trigger.name}` : 'Execute workflow',
			]);
		}
	});

	it('a schedule the button starts from runs the nodes Run Now runs', () => {
		for (const [file, example] of examples) {
			const trigger = defaultTrigger(example.nodes)!;
			if (trigger.type !== 'n8n-nodes-base.scheduleTrigger') continue;
			expect([file, targets(example, trigger.name)]).toEqual([file, targets(example, 'Run Now')]);
		}
	});

	it('the rule: priority first, then the order of the nodes; a disabled trigger is skipped', () => {
		const node = (name: string, type: string, disabled = false): CanvasNode => ({
			name,
			type,
			position: [0, 0],
			disabled,
		});
		const manual = node('Run Now', 'n8n-nodes-base.manualTrigger');
		const schedule = node('Every Day', 'n8n-nodes-base.scheduleTrigger');
		const push = node('Pushed', 'n8n-nodes-public-events.publicEventsTrigger');
		const poll = node('Polled', 'n8n-nodes-public-events.publicEventsPollTrigger');
		const webhook = node('Webhook', 'n8n-nodes-base.webhook');
		const mcp = node('MCP', '@n8n/n8n-nodes-langchain.mcpTrigger');
		expect(defaultTrigger([manual, schedule])).toBe(schedule);
		expect(defaultTrigger([manual, schedule, push, poll])).toBe(push);
		expect(defaultTrigger([manual, poll, push])).toBe(poll);
		expect(defaultTrigger([poll, webhook])).toBe(webhook);
		expect(defaultTrigger([mcp, node('Error', 'n8n-nodes-base.errorTrigger')])!.name).toBe('Error');
		expect(defaultTrigger([{ ...push, disabled: true }, manual])).toBe(manual);
		expect(buttonLabel([manual, { ...schedule, disabled: true }])).toBe('Execute workflow');
	});

	it('no node, with its label, covers another or a sticky note', () => {
		for (const [file, { nodes }] of examples) expect([file, overlaps(nodes)]).toEqual([file, []]);
	});

	it('a label is twice as wide as its node, below it; a seven-input merge is taller', () => {
		const at = (type: string, name = 'A', parameters = {}) =>
			nodeArea({ name, type, position: [0, 0], parameters });
		expect(at('n8n-nodes-base.set')).toEqual({ left: -48, top: 0, right: 144, bottom: 143 });
		expect(at('n8n-nodes-base.set', 'A name of two lines here').bottom).toBe(163);
		expect(at('n8n-nodes-base.merge', 'A', { numberInputs: 7 }).bottom).toBe(96 + 5 * 32 + 47);
		expect(
			overlaps([
				{ name: 'A', type: 'n8n-nodes-base.set', position: [0, 0] },
				{ name: 'B', type: 'n8n-nodes-base.set', position: [0, 140] },
				{
					name: 'Note',
					type: 'n8n-nodes-base.stickyNote',
					position: [130, -200],
					parameters: { width: 300, height: 210 },
				},
			]),
		).toEqual(['A / B', 'A / Note']);
	});
});
