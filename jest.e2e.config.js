/**
 * End-to-end tests: a real n8n (installed once outside the repo, see scripts/n8n/install.ts)
 * runs the packed package. Slow (n8n CLI start-ups, and the first install takes minutes), so
 * apart from `npm test`: `npm run test:e2e`. N8N_VERSION picks the n8n (default 2.40.7; see
 * docs/compatibility.md).
 * @type {import('jest').Config}
 */
const major = Number((process.env.N8N_VERSION || '2').split('.')[0]);

module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.test.ts'],
	// On n8n 1.x the editor, demo and journeys suites do not run: they drive 2.x's editor (its page
	// structure and test ids, the output-schema preview 1.x does not have) and 2.x's REST API
	// (workflows keeping their ids, the manual-run request); the journeys also walk 2.x's node
	// creator, its "Execute workflow" button per trigger and the demo's Data Table example. The
	// node itself is covered on 1.x by the examples, token, triggers and credential suites. The MCP
	// suite serves the AI example, whose MCP Server Trigger is typeVersion 2.1 (1.x has up to 2,
	// without Instructions). The Data Table suites (dataTable, chaos) and the durable scheduler need
	// 2.x. To keep CI short, 1.x runs the node's own paths only (examples, shop, triggers,
	// credential, queue mode with its token across workers); the stored token's renewal, the
	// hostile service, the quirks mode, the queue runs and the on-sale rush test the node's code,
	// the same on both lines, on 2.x.
	testPathIgnorePatterns: [
		'/node_modules/',
		...(major < 2
			? [
					'/editor\\.e2e\\.test\\.ts$',
					'/demo\\.e2e\\.test\\.ts$',
					'/journeys\\.e2e\\.test\\.ts$',
					'/mcp\\.e2e\\.test\\.ts$',
					'/rush\\.e2e\\.test\\.ts$',
					'/chaos\\.e2e\\.test\\.ts$',
					'/dataTable\\.e2e\\.test\\.ts$',
					'/durable\\.e2e\\.test\\.ts$',
					'/hostile\\.e2e\\.test\\.ts$',
					'/quirks\\.e2e\\.test\\.ts$',
					'/queueRuns\\.e2e\\.test\\.ts$',
					'/token\\.e2e\\.test\\.ts$',
				]
			: []),
	],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	// The first run installs n8n (about 4 minutes); each n8n CLI call takes seconds.
	testTimeout: 15 * 60 * 1000,
	// One real n8n at a time: the machine has 2 cores.
	maxWorkers: 1,
};
