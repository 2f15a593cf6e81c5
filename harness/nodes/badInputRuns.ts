/**
 * The bad-input suites' runs: a sandbox whose token is fetched, the matrix's case (every wrong
 * value of a parameter stops its item, nothing sent; badInputWire.ts has the wire's) and the
 * counts they add up to (docs/reliability.md).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { SandboxInit } from '../../sandbox';
import type { CredentialStore } from '../engine';
import { SandboxClient } from '../sandbox/client';
import { baseParameters, itemsOf, misjudged, withValueFromItem, type Parameter } from './badInput';
import { badValues, label } from './badValues';
import { operationOf } from '../../nodes/PublicEvents/resources';
import { credentialFor, mark, runPublicEvents, since } from './publicEvents';

/** The counts of docs/reliability.md, one part per suite, merged into one summary. */
export interface Tally {
	operations: Set<string>;
	parameters: Set<string>;
	badValues: number;
	rejectedWithZeroRequests: number;
	sentEncoded: number;
}

export const newTally = (): Tally => ({
	operations: new Set(),
	parameters: new Set(),
	badValues: 0,
	rejectedWithZeroRequests: 0,
	sentEncoded: 0,
});

const RESULTS = resolve(__dirname, '../../.ci-results');
const RESULTS_DIR = join(RESULTS, 'reliability');

/**
 * Prints the suite's counts; with RELIABILITY_REPORT=1 also merges them into
 * .ci-results/bad-input-summary.json.
 */
export function report(suite: string, tally: Tally): void {
	const counts = {
		operations: [...tally.operations].sort(),
		parameters: [...tally.parameters].sort(),
		badValues: tally.badValues,
		rejectedWithZeroRequests: tally.rejectedWithZeroRequests,
		sentEncoded: tally.sentEncoded,
	};
	process.stdout.write(
		`bad input (${suite}): ${counts.operations.length} operations, ` +
			`${counts.parameters.length} parameters, ${counts.badValues} bad values, ` +
			`${counts.rejectedWithZeroRequests} rejected with ` +
			`zero requests, ${counts.sentEncoded} sent encoded\n`,
	);
	if (process.env.RELIABILITY_REPORT !== '1') return;
	const parts = join(RESULTS, 'bad-input-parts');
	mkdirSync(parts, { recursive: true });
	mkdirSync(RESULTS_DIR, { recursive: true });
	writeFileSync(join(parts, `${suite}.json`), JSON.stringify(counts));
	// Suites finish in parallel workers: write, read the parts again, and rewrite until nothing new
	// came in.
	const read = () =>
		readdirSync(parts)
			.filter((name) => name.endsWith('.json'))
			.sort()
			.map((name) => readFileSync(join(parts, name), 'utf8'));
	for (let round = 0; round < 5; round++) {
		const seen = read();
		const all = seen.map((text) => JSON.parse(text) as typeof counts);
		const summary = {
			operations: new Set(all.flatMap((part) => part.operations)).size,
			parameters: new Set(all.flatMap((part) => part.parameters)).size,
			badValues: all.reduce((sum, part) => sum + part.badValues, 0),
			rejectedWithZeroRequests: all.reduce((sum, part) => sum + part.rejectedWithZeroRequests, 0),
			sentEncoded: all.reduce((sum, part) => sum + part.sentEncoded, 0),
		};
		const file = join(RESULTS, 'bad-input-summary.json');
		writeFileSync(`${file}.${process.pid}`, `${JSON.stringify(summary, null, 2)}\n`);
		renameSync(`${file}.${process.pid}`, file);
		writeFileSync(
			join(RESULTS_DIR, 'bad-input.json'),
			JSON.stringify({
				title: 'Bad input',
				lines: [
					`${summary.badValues} wrong values over ${summary.parameters} ` +
						`parameters of ${summary.operations} operations (types, ranges, ` +
						`formats, empty, huge, injection-looking ids and filters): ` +
						`${summary.rejectedWithZeroRequests} refused with an error ` +
						`naming the field and item and **zero requests sent**; ` +
						`${summary.sentEncoded} legitimate texts sent as ` +
						`encoded query values, never spliced into a path.`,
				],
			}),
		);
		if (read().join('\n') === seen.join('\n')) return;
	}
}

/**
 * A sandbox and an organiser credential whose token is already fetched, so that "no request"
 * in the bad-input suites means none at all, not even a token request.
 */
export async function warmSandbox(options: SandboxInit) {
	const sb = await SandboxClient.start(options);
	const { store } = credentialFor(sb, { apiKey: sb.keys.organiser });
	await runPublicEvents(store, {
		resource: 'reference',
		operation: 'getManyCountries',
		returnAll: false,
		limit: 1,
	});
	return { sb, store };
}

/**
 * The matrix's case: each wrong value of `parameter`, one input item each (On Error > Continue),
 * gives an error item naming the field and the item; with `alsoStopping`, the first one without
 * Continue stops the run on item 1 with a NodeOperationError. Nothing is sent. Returns what was
 * not so.
 */
export async function matrixCase(
	sb: SandboxClient,
	store: CredentialStore,
	parameter: Parameter,
	alsoStopping: boolean,
): Promise<string[]> {
	const { field } = parameter;
	const values = badValues(parameter);
	const run = withValueFromItem(baseParameters(parameter.resource, parameter.operation), parameter);
	const before = await mark(sb);
	// An operation over all input items at once reads its parameters from the first: a run each.
	const once = operationOf(parameter.resource, parameter.operation)?.once === true;
	const runs = once ? values.map((value) => [value]) : [values];
	const wrong: string[] = [];
	for (const batch of runs) {
		const { items, error } = await runPublicEvents(store, run, {
			inputItems: itemsOf(batch),
			onError: 'continueRegularOutput',
		});
		wrong.push(...(error ? [`the run failed: ${error.message}`] : misjudged(items, batch, field)));
	}
	if (alsoStopping) {
		const stopped = (await runPublicEvents(store, run, { inputItems: itemsOf(values.slice(0, 1)) }))
			.error;
		const named =
			stopped?.name === 'NodeOperationError' &&
			stopped.message.startsWith(`${field}: `) &&
			stopped.description === `Fix the "${field}" parameter of item 1.` &&
			stopped.context?.itemIndex === 0;
		if (!named) wrong.push(`without Continue: ${label(stopped?.message ?? 'no error')}`);
	}
	const sent = await since(sb, before);
	if (sent.length > 0) wrong.push(`sent ${sent.map((entry) => entry.path).join(', ')}`);
	return wrong;
}

/** Adds one parameter's case to the counts. */
export function count(tally: Tally, parameter: Parameter, bad: number, sentEncoded = 0): void {
	const operation = `${parameter.resource}:${parameter.operation}`;
	tally.operations.add(operation);
	tally.parameters.add(`${operation}:${parameter.path.join('.')}`);
	tally.badValues += bad;
	tally.sentEncoded += sentEncoded;
	tally.rejectedWithZeroRequests += bad - sentEncoded;
}
