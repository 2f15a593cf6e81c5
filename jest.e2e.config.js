/**
 * End-to-end tests: a real n8n (installed once outside the repo, see scripts/n8n/install.ts)
 * runs the packed package. Slow (n8n CLI start-ups, and the first install takes minutes), so
 * apart from `npm test`: `npm run test:e2e`.
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	// The first run installs n8n (about 4 minutes); each n8n CLI call takes seconds.
	testTimeout: 15 * 60 * 1000,
	// One real n8n at a time: the machine has 2 cores.
	maxWorkers: 1,
};
