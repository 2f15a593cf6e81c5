/**
 * A workflow's canvas as n8n's editor draws it, read from the editor's source (n8n 2.40.7 and
 * 1.123.81 alike): which trigger the big "Execute workflow" button starts from, and the rectangles
 * its nodes, their labels and its sticky notes take. Pure: the examples' unit test uses it, the
 * journeys suite checks the button in the running editor.
 */

export interface CanvasNode {
	name: string;
	type: string;
	position: [number, number] | number[];
	disabled?: boolean;
	onError?: string;
	parameters?: Record<string, unknown>;
}

const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
const WEBHOOK = 'n8n-nodes-base.webhook';
const MCP_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';

/** The editor's own priorities (`findTriggerNodeToAutoSelect`, editor-ui's executions utils). */
const PRIORITY: Record<string, number> = {
	'n8n-nodes-base.formTrigger': 10,
	[WEBHOOK]: 9,
	'n8n-nodes-base.scheduleTrigger': 7,
	'n8n-nodes-base.manualTrigger': 6,
	'n8n-nodes-base.executeWorkflowTrigger': 5,
	'n8n-nodes-base.errorTrigger': 4,
};
/** A trigger not in the table: 0 for n8n's "Core Nodes", 8 for an app's (this package's). */
const CORE = 0;
const APP = 8;

/**
 * n8n's own triggers in the examples are among its "Core Nodes" (the MCP Server Trigger's codex
 * says so); the package's triggers are an app's. (n8n's own app triggers, such as Google Sheets
 * Trigger, would be 8: no example has one.)
 */
const isCore = (type: string) => type.startsWith('n8n-nodes-base.') || type.startsWith('@n8n/');

export const isTrigger = (node: CanvasNode) => /trigger$/i.test(node.type) || node.type === WEBHOOK;

/**
 * The trigger the big button starts from before any run ("Execute workflow from <its name>" when
 * there are several), as n8n's editor picks it: highest priority first (Form Trigger 10, Webhook 9,
 * an app's trigger 8, Schedule Trigger 7, Manual Trigger 6, Execute Workflow Trigger 5, Error
 * Trigger 4, other core nodes 0), ties in the order of the workflow's `nodes`, disabled ones
 * skipped. This mirrors `findTriggerNodeToAutoSelect` of n8n's editor (2.40.7 and 1.123.81).
 * After a run the editor keeps the trigger that run started from instead.
 */
export function defaultTrigger<T extends CanvasNode>(nodes: T[]): T | undefined {
	const priority = (node: T) => PRIORITY[node.type] ?? (isCore(node.type) ? CORE : APP);
	// Array.prototype.sort is stable: equal priorities keep the nodes' order, as toSorted does.
	return nodes
		.filter(isTrigger)
		.sort((a, b) => priority(b) - priority(a))
		.find((node) => !node.disabled);
}

/** The longest trigger name the button shows whole (the editor shortens a longer one). */
export const BUTTON_NAME_CHARACTERS = 25;

/**
 * What the big button reads before any run: with one enabled trigger just "Execute workflow", with
 * several "Execute workflow from <trigger>".
 */
export function buttonLabel(nodes: CanvasNode[]): string {
	const enabled = nodes.filter((n) => isTrigger(n) && !n.disabled);
	const from = defaultTrigger(nodes);
	return enabled.length < 2 || !from ? 'Execute workflow' : `Execute workflow from ${from.name}`;
}

export interface Rect {
	left: number;
	top: number;
	right: number;
	bottom: number;
}

/** n8n's DEFAULT_NODE_SIZE and CONFIGURATION_NODE_SIZE (a tool's circle). */
const NODE = 96;
const CONFIGURATION = 80;
/** The name: 16 px at a line height of 1.25, two lines at most; the subtitle: 13 px, one line. */
const NAME_LINE = 20;
const SUBTITLE = 17;
/** The label's margin above it (8 px) and the gap between name and subtitle (2 px). */
const LABEL_SPACING = 10;
/**
 * About as many characters as fit on one line of the label (twice the node's width, 192 px):
 * a longer name takes two lines.
 */
const NAME_LINE_CHARACTERS = 18;

/** Main inputs and outputs: a node grows 32 px taller for each beyond two. */
function handles(node: CanvasNode): number {
	const parameters = node.parameters ?? {};
	const inputs =
		node.type === 'n8n-nodes-base.merge'
			? Number(parameters.numberInputs ?? 2)
			: node.type === 'n8n-nodes-base.compareDatasets'
				? 2
				: 1;
	const outputs =
		(node.type === 'n8n-nodes-base.compareDatasets' ? 4 : 2) +
		(node.onError === 'continueErrorOutput' ? 1 : 0);
	return Math.max(inputs, outputs, 1);
}

/**
 * The rectangle a node takes on the canvas, its label included (n8n's `calculateNodeSize` and the
 * canvas node's CSS): the box at its position, the label below it, centred, twice the box's width,
 * with the name (one or two lines) and one line of subtitle. The MCP Server Trigger is wide and
 * holds its label inside; a tool is a circle with its label below.
 */
export function nodeArea(node: CanvasNode): Rect {
	const [x, y] = node.position;
	if (node.type === MCP_TRIGGER)
		return { left: x, top: y, right: x + 80 + 16 * 9, bottom: y + NODE };
	const tool = /Tool$/.test(node.type);
	const width = tool ? CONFIGURATION : NODE;
	const height = tool ? CONFIGURATION : NODE + Math.max(0, handles(node) - 2) * 32;
	const lines = node.name.length > NAME_LINE_CHARACTERS ? 2 : 1;
	const label = LABEL_SPACING + lines * NAME_LINE + SUBTITLE;
	return { left: x - width / 2, top: y, right: x + width * 1.5, bottom: y + height + label };
}

/** A sticky note's rectangle: its position, width and height (n8n's default 240 by 160). */
export function noteArea(note: CanvasNode): Rect {
	const [x, y] = note.position;
	const { width = 240, height = 160 } = (note.parameters ?? {}) as {
		width?: number;
		height?: number;
	};
	return { left: x, top: y, right: x + width, bottom: y + height };
}

export const overlap = (a: Rect, b: Rect) =>
	a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Pairs of a workflow's nodes and notes that cover each other on the canvas, by name. */
export function overlaps(nodes: CanvasNode[]): string[] {
	const notes = nodes.filter((n) => n.type === STICKY_NOTE);
	const boxes = nodes.filter((n) => n.type !== STICKY_NOTE);
	const found: string[] = [];
	boxes.forEach((node, i) => {
		for (const other of boxes.slice(i + 1))
			if (overlap(nodeArea(node), nodeArea(other))) found.push(`${node.name} / ${other.name}`);
		for (const note of notes)
			if (overlap(nodeArea(node), noteArea(note))) found.push(`${node.name} / ${note.name}`);
	});
	return found;
}
