import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { runNode } from '../../harness/engine';
import { credentialFor } from '../../harness/nodes/publicEvents';
import { SandboxClient } from '../../harness/sandbox/client';
import { paidApiOrder } from '../../harness/sandbox/push';

/**
 * Attack on examples/ai-ticket-desk.json as a caller who reaches its MCP URL (a customer chatting
 * with the agent, a prompt-injected model, anyone holding the token). Each tool node is run
 * through n8n-core's engine exactly as shipped, as n8n's tool wrapper runs it (the node type named
 * `publicEventsTool`), with the `$fromAI(...)` arguments replaced by what the caller sends.
 */
class PublicEventsTool extends PublicEvents {
	description = { ...new PublicEvents().description, name: 'publicEventsTool' };
}
const desk = JSON.parse(
	readFileSync(join(__dirname, '..', '..', 'examples', 'ai-ticket-desk.json'), 'utf8'),
) as { nodes: Array<{ name: string; parameters: INodeParameters }> };

/** The shipped tool's parameters with each `$fromAI('<key>', ...)` expression set to args[key]. */
function withArgs(name: string, args: Record<string, unknown>): INodeParameters {
	const swap = (value: unknown): unknown => {
		if (typeof value === 'string') {
			const m = /^=\{\{ \$fromAI\('(\w+)'/.exec(value);
			if (!m) return value;
			return m[1] in args
				? args[m[1]]
				: (value.match(/, (\d+|false|'')\) \}\}$/)?.[1]?.replace(/''/, '') ?? value);
		}
		if (Array.isArray(value)) return value.map(swap);
		if (value && typeof value === 'object')
			return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
		return value;
	};
	const node = desk.nodes.find((n) => n.name === name)!;
	const parameters = { ...node.parameters };
	delete parameters.toolDescription;
	return swap(parameters) as INodeParameters;
}

let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];
beforeAll(async () => {
	sb = await SandboxClient.start({
		events: 10,
		placesPerEvent: 40,
		privateEvents: 0,
		archivedEvents: 0,
		widgetOrders: 0,
	});
	store = credentialFor(sb).store;
});
afterAll(() => sb.stop());

const tool = (name: string, args: Record<string, unknown>) =>
	runNode({
		nodeType: new PublicEventsTool(),
		type: 'CUSTOM.publicEventsTool',
		parameters: withArgs(name, args),
		credentials: store,
	});

describe('AI ticket desk, as shipped, driven by a caller', () => {
	it(
		'Get_Order never hands the caller the barcodes of a sale the desk did not make ' +
			'(order IDs are sequential; found by an outside review)',
		async () => {
			// Another buyer's sale on the same key (the partner's website, another channel).
			const other = await paidApiOrder(sb, 2);
			const secret = other.tickets.map((t: any) => String(t.barcode));
			expect(secret).toHaveLength(2);
			// Order ids are sequential: the caller just counts.
			const { items, error } = await tool('Get Order', { orderId: Number(other.id) });
			expect(error).toBeUndefined();
			const leaked = secret.filter((b: string) => JSON.stringify(items).includes(b));
			expect(leaked).toEqual([]);
		},
	);
});
