import { config } from '@n8n/node-cli/eslint';

// The community rules (no process, no timers, imports limited to what n8n Cloud provides)
// apply to what ships: credentials/ and nodes/. The sandbox, tests, benchmarks and scripts
// never enter dist/, so they may use Node's own APIs.
export default [
	{ ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'gulpfile.js', 'jest.config.js'] },
	...config,
	{
		files: ['sandbox/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		rules: {
			'@n8n/community-nodes/no-restricted-imports': 'off',
			'@n8n/community-nodes/no-restricted-globals': 'off',
			'no-console': 'off',
		},
	},
];
