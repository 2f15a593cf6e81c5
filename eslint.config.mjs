import { config } from '@n8n/node-cli/eslint';

const NOT_SHIPPED = ['sandbox/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'];

export default [
	{
		ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'gulpfile.js', 'jest.config.js'],
	},
	...config,
	// The community rules (no process, no timers, no child processes, imports limited to what
	// n8n Cloud provides, NodeApiError for errors) are for what ships: credentials/ and nodes/.
	// The sandbox, tests, benchmarks and scripts never enter dist/.
	{
		files: NOT_SHIPPED,
		rules: {
			'@n8n/community-nodes/no-restricted-imports': 'off',
			'@n8n/community-nodes/no-restricted-globals': 'off',
			'@n8n/community-nodes/no-dangerous-functions': 'off',
			'@n8n/community-nodes/require-node-api-error': 'off',
			'no-console': 'off',
		},
	},
	// Tests, benchmarks and the n8n harness read untyped JSON and use made-up keys.
	{
		files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@n8n/community-nodes/no-hardcoded-secrets': 'off',
		},
	},
];
