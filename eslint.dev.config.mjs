// Lint for what never ships: the sandbox, tests, their harness, benchmarks and scripts. Shipped
// code (nodes/, credentials/, package.json) is linted by eslint.config.mjs, which must stay n8n's
// default for Cloud verification; that default lints every .ts in the folder under the community
// rules (no process, no timers, imports limited to what n8n Cloud provides), which dev code
// breaks by design. `npm run lint` runs both.
import { config } from '@n8n/node-cli/eslint';

export default [
	{
		ignores: [
			'dist/**',
			'coverage/**',
			'nodes/**',
			'credentials/**',
			'*.js',
			'*.mjs',
			'package.json',
		],
	},
	...config,
	{
		files: [
			'sandbox/**/*.ts',
			'test/**/*.ts',
			'harness/**/*.ts',
			'bench/**/*.ts',
			'scripts/**/*.ts',
		],
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
		files: ['test/**/*.ts', 'harness/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@n8n/community-nodes/no-hardcoded-secrets': 'off',
		},
	},
];
