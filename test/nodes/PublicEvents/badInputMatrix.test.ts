import { everyOperation, parametersOf, type Parameter } from '../../../harness/nodes/badInput';
import {
	count,
	matrixCase,
	newTally,
	report,
	warmSandbox,
} from '../../../harness/nodes/badInputRuns';
import { badValues } from '../../../harness/nodes/badValues';
import { allOperations } from '../../../nodes/PublicEvents/resources';
import type { credentialFor } from '../../../harness/nodes/publicEvents';
import type { SandboxClient } from '../../../harness/sandbox/client';

/**
 * Every parameter of every operation of the Public Events node, read from its description, with
 * the wrong values of its kind (harness/nodes/badValues.ts): each value stops its item before any
 * request with an error naming the field and the item. One run per parameter carries all its
 * values as input items (with On Error > Continue, so each gives its own error item); one more
 * without Continue shows the run stopping on a NodeOperationError (harness/nodes/badInputRuns.ts).
 */
const operations = everyOperation();
const parameters = operations
	.flatMap(([resource, operation]) => parametersOf(resource, operation))
	.filter((p) => badValues(p).length > 0);
const tally = newTally();
const seen = new Set<string>();
const firstTime = (key: string) => !seen.has(key) && Boolean(seen.add(key));

let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];

beforeAll(async () => {
	({ sb, store } = await warmSandbox({ events: 2, placesPerEvent: 2, widgetOrders: 1 }));
});
afterAll(async () => {
	report('matrix', tally);
	await sb.stop();
});

describe('the matrix is read from the node description', () => {
	it('covers every operation, each with its Options, and every kind of parameter', () => {
		expect(operations).toHaveLength(allOperations.length);
		for (const [resource, operation] of operations) {
			const names = parametersOf(resource, operation).map((p) => p.path.join('.'));
			expect([resource, operation, names]).toEqual([
				resource,
				operation,
				expect.arrayContaining(['options', 'options.language', 'options.maxRetries']),
			]);
		}
		const kinds = new Set(parameters.map((p) => p.kind));
		expect([...kinds].sort()).toEqual([
			'choice',
			'date',
			'flag',
			'id',
			'ids',
			'int',
			'json',
			'language',
			'number',
			'search',
			'someIds',
			'text',
			'textList',
		]);
		expect(parameters.length).toBeGreaterThan(150);
	});
});

const name = (p: Parameter) => `${p.resource} > ${p.operation} > ${p.path.join('.')} (${p.kind})`;

const resources = [...new Set(operations.map(([resource]) => resource))];

describe.each(resources)(
	'%s: every wrong value stops its item, naming field and item; nothing is sent',
	(resource) => {
		it.each(parameters.filter((p) => p.resource === resource).map((p) => [name(p), p] as const))(
			'%s',
			async (_, parameter) => {
				// Without Continue once per operation and per kind: the router is the same for all.
				const alsoStopping =
					firstTime(`${parameter.resource}:${parameter.operation}`) || firstTime(parameter.kind);
				expect(await matrixCase(sb, store, parameter, alsoStopping)).toEqual([]);
				count(tally, parameter, badValues(parameter).length);
			},
		);
	},
);
