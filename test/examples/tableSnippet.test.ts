import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { LEDGER_COLUMNS } from '../../nodes/shared/ledger/rows';

// docs/ledger.md gives a node to paste that makes the ledger's table with every column: it must
// stay the examples' Set Up Table node, whose columns are the rows' own.
const ROOT = join(__dirname, '..', '..');

function snippet() {
	const doc = readFileSync(join(ROOT, 'docs', 'ledger.md'), 'utf8');
	const section = doc.split('## A new table in one step')[1]?.split('\n## ')[0] ?? '';
	const block = /```json\n([\s\S]+?)\n```/.exec(section);
	if (!block) throw new Error('docs/ledger.md: no json block under "A new table in one step"');
	return JSON.parse(block[1]) as {
		nodes: Array<{ name: string; type: string; typeVersion: number; parameters: object }>;
		connections: object;
	};
}

describe('the table made in one step (docs/ledger.md)', () => {
	it('is one Data Table node that creates the table with every ledger column', () => {
		const { nodes, connections } = snippet();
		expect(connections).toEqual({});
		expect(nodes.map((n) => [n.name, n.type, n.typeVersion])).toEqual([
			['Create Ledger Table', 'n8n-nodes-base.dataTable', 1.1],
		]);
		expect(nodes[0].parameters).toEqual({
			resource: 'table',
			operation: 'create',
			tableName: 'Public Events ledger',
			columns: { column: LEDGER_COLUMNS.map(({ name, type }) => ({ name, type })) },
			options: { createIfNotExists: true },
		});
	});

	it("is the data-table examples' Set Up Table node", () => {
		for (const file of ['sales-to-data-table', 'sales-push-and-poll-to-data-table']) {
			const example = JSON.parse(readFileSync(join(ROOT, 'examples', `${file}.json`), 'utf8')) as {
				nodes: Array<{ name: string; parameters: object }>;
			};
			const shipped = example.nodes.find((n) => n.name === 'Create Ledger Table');
			expect([file, shipped?.parameters]).toEqual([file, snippet().nodes[0].parameters]);
		}
	});
});
