import fc from 'fast-check';

/**
 * Cases per property: PROPS_RUNS (set by `npm run test:props -- --runs N`), else the bounded
 * default each suite names for CI. A seed given by PROPS_SEED replays a reported failure.
 */
export function runsFor(ciDefault: number): number {
	const runs = Number(process.env.PROPS_RUNS);
	return Number.isInteger(runs) && runs > 0 ? runs : ciDefault;
}

/**
 * Checks an async property and says how many cases ran under which seed, so a CI log shows the
 * count and a failure can be replayed (fast-check's report carries the seed and the shrunk case).
 */
export async function checkProperty<T>(
	name: string,
	arbitrary: fc.Arbitrary<T>,
	predicate: (value: T) => Promise<void>,
	ciDefault: number,
): Promise<void> {
	const numRuns = runsFor(ciDefault);
	const seed =
		Number.isInteger(Number(process.env.PROPS_SEED)) && process.env.PROPS_SEED
			? Number(process.env.PROPS_SEED)
			: Date.now() ^ (Math.random() * 0x7fffffff);
	await fc.assert(fc.asyncProperty(arbitrary, predicate), { numRuns, seed, endOnFailure: false });
	process.stdout.write(`property "${name}": ${numRuns} cases passed (seed ${seed})\n`);
}
