/**
 * `npm run test:props -- --runs N [--seed S]`: the property suites (test/props) with N cases per
 * property instead of the bounded number CI runs; --seed replays the seed a failure printed.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
	options: { runs: { type: 'string' }, seed: { type: 'string' } },
	allowPositionals: true,
});
const env = { ...process.env };
if (values.runs !== undefined) {
	if (!/^[1-9]\d*$/.test(values.runs))
		throw new Error(`--runs must be a whole number above 0, got "${values.runs}"`);
	env.PROPS_RUNS = values.runs;
}
if (values.seed !== undefined) {
	if (!/^-?\d+$/.test(values.seed))
		throw new Error(`--seed must be a whole number, got "${values.seed}"`);
	env.PROPS_SEED = values.seed;
}
const jest = spawnSync('npx', ['jest', '--testTimeout=600000', 'test/props', ...positionals], {
	stdio: 'inherit',
	env,
});
process.exit(jest.status ?? 1);
