/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// Real-n8n tests are slow and need the n8n install: `npm run test:e2e` (jest.e2e.config.js).
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	testTimeout: 30000,
};
