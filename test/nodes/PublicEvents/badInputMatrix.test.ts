import {
	badValues,
	baseParameters,
	everyOperation,
	itemsOf,
	misjudged,
	newTally,
	parametersOf,
	report,
	withValueFromItem,
	type BaseIds,
	type Parameter,
	warmSandbox,
} from '../../../harness/nodes/badInput';
import { allOperations } from '../../../nodes/PublicEvents/resources';
import { credentialFor, mark, runPublicEvents, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';

/**
 * Every parameter of every operation of the Public Events node, read from its description, with
 * the wrong values of its kind (harness/nodes/badInput.ts): each value stops its item before any
 * request with an error naming the field and the item. One run per parameter carries all its
 * values as input items (with On Error > Continue, so each gives its own error item); one more
 * without Continue shows the run stopping on a NodeOperationError.
 */
const IDS: BaseIds = {
	event: '1001',
	sector: '2001',
	place: '100001',
	priceCategory: '3001',
	order: '700001',
	ticket: '900001',
};
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
			'someIds',
			'text',
			'textList',
		]);
		expect(parameters.length).toBeGreaterThan(150);
	});
});

const name = (p: Parameter) => `${p.resource} > ${p.operation} > ${p.path.join('.')} (${p.kind})`;

describe.each(['barcode', 'event', 'hallPlan', 'order', 'reference', 'widget'])(
	'%s: every wrong value stops its item, naming field and item; nothing is sent',
	(resource) => {
		it.each(parameters.filter((p) => p.resource === resource).map((p) => [name(p), p] as const))(
			'%s',
			async (_, parameter) => {
				const values = badValues(parameter);
				const run = withValueFromItem(
					baseParameters(parameter.resource, parameter.operation, IDS),
					parameter,
				);
				const before = await mark(sb);

				const { items, error } = await runPublicEvents(store, run, {
					inputItems: itemsOf(values),
					onError: 'continueRegularOutput',
				});
				expect(error).toBeUndefined();
				expect(misjudged(items, values, parameter.field)).toEqual([]);

				// Without Continue (once per operation and per kind: the router is the same for all): the
				// run stops on item 0.
				if (
					firstTime(`${parameter.resource}:${parameter.operation}`) ||
					firstTime(parameter.kind)
				) {
					const stopped = await runPublicEvents(store, run, {
						inputItems: itemsOf(values.slice(0, 1)),
					});
					expect([
						stopped.error?.name,
						stopped.error?.message.startsWith(`${parameter.field}: `),
					]).toEqual(['NodeOperationError', true]);
					expect(stopped.error?.description).toBe(
						`Fix the "${parameter.field}" parameter of item 1.`,
					);
					expect(stopped.error?.context?.itemIndex).toBe(0);
				}

				expect(await since(sb, before)).toEqual([]);
				tally.operations.add(`${parameter.resource}:${parameter.operation}`);
				tally.parameters.add(
					`${parameter.resource}:${parameter.operation}:${parameter.path.join('.')}`,
				);
				tally.badValues += values.length;
				tally.rejectedWithZeroRequests += values.length;
			},
		);
	},
);
