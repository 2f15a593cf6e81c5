import type { INodeParameters } from 'n8n-workflow';

import { iriCollections } from '../../../nodes/shared/inputs';
import { operationOf } from '../../../nodes/PublicEvents/resources';
import {
	baseParameters,
	everyOperation,
	itemsOf,
	parametersOf,
	withValueFromItem,
	type Parameter,
} from '../../../harness/nodes/badInput';
import { count, newTally, report, warmSandbox } from '../../../harness/nodes/badInputRuns';
import { INJECTIONS, label } from '../../../harness/nodes/badValues';
import {
	attribute,
	queryKeys,
	wireCase,
	type WireOutcome,
} from '../../../harness/nodes/badInputWire';
import {
	credentialFor,
	mark,
	runPublicEvents,
	since,
	type LogEntry,
} from '../../../harness/nodes/publicEvents';
import type { SandboxClient } from '../../../harness/sandbox/client';

/**
 * What reaches the wire: an ID is never spliced into a path or a query unreduced, whatever the
 * input (a property checked over every ID parameter of every operation, with hostile and random
 * values: harness/nodes/badInputWire.ts), and free text goes out as an encoded query value (or in
 * a JSON body), the path as it was.
 */
const tally = newTally();
let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];

beforeAll(async () => {
	({ sb, store } = await warmSandbox({ events: 3, placesPerEvent: 4, widgetOrders: 1 }));
});
afterAll(async () => {
	report('wire', tally);
	await sb.stop();
});

const named = (p: Parameter) => `${p.resource} > ${p.operation} > ${p.path.join('.')} (${p.kind})`;
const idParameters = everyOperation()
	.flatMap(([resource, operation]) => parametersOf(resource, operation))
	.filter((p) => ['id', 'ids', 'someIds', 'editorOnly'].includes(p.kind));
const where = new Map<Parameter, WireOutcome['where']>();

describe('no value is ever spliced into a path: every ID parameter of every operation', () => {
	it('every ID field names the resource whose IRIs it takes', () => {
		for (const p of idParameters.filter((p) => p.kind !== 'editorOnly'))
			expect([p.field, iriCollections(p.property.name)]).toEqual([p.field, expect.any(Array)]);
	});

	it.each(idParameters.map((p, n) => [named(p), p, n] as const))('%s', async (_, parameter, n) => {
		const outcome = await wireCase(sb, store, parameter, n + 1);
		expect([outcome.error, outcome.extra, outcome.wrong]).toEqual([undefined, 0, []]);
		where.set(parameter, outcome.where);
		count(tally, parameter, outcome.bad, outcome.sentBad);
	});

	it("so a read's own ID goes out where the API looks for it: in the path or a query", () => {
		// A write may send it in its JSON body (Create's event), which the request log does not show.
		const own = idParameters.filter(
			(p) =>
				p.kind === 'id' &&
				p.required &&
				p.path.length === 1 &&
				operationOf(p.resource, p.operation)?.kind === 'read',
		);
		expect(own.length).toBeGreaterThan(5);
		expect(own.filter((p) => where.get(p) === 'elsewhere').map(named)).toEqual([]);
		expect([...where.values()].filter((place) => place === 'path').length).toBeGreaterThan(10);
	});
});

const textParameters = everyOperation()
	.flatMap(([resource, operation]) => parametersOf(resource, operation))
	.filter((p) => p.kind === 'text' || p.kind === 'textList');
const TEXTS = [...INJECTIONS, 'paid', ' paid ', 'a+b c', '%41%2F', '=', 'é ü ß', 'x'.repeat(1000)];

describe('free text is sent as it was given, encoded; the path stays as it was', () => {
	it.each(
		textParameters.map(
			(p) => [`${p.resource} > ${p.operation} > ${p.path.join('.')} (${p.kind})`, p] as const,
		),
	)('%s', async (_, parameter) => {
		const run = withValueFromItem(
			baseParameters(parameter.resource, parameter.operation),
			parameter,
		);
		const before = await mark(sb);
		const { error, items } = await runPublicEvents(store, run, {
			inputItems: itemsOf(TEXTS),
			onError: 'continueRegularOutput',
		});
		expect(error).toBeUndefined();
		const { outcomes, extra } = attribute(
			items,
			TEXTS.length,
			parameter.field,
			await since(sb, before),
		);
		expect([extra, outcomes.filter((o) => !o).length]).toEqual([0, 0]);
		const [first] = outcomes as LogEntry[];
		const wrong = TEXTS.flatMap((text, k) => {
			const sent = outcomes[k]!;
			const inQuery =
				parameter.kind !== 'textList' ||
				new URLSearchParams(sent.query).getAll('status').join() === text.trim();
			const fine =
				sent.path === first.path && queryKeys(sent).join() === queryKeys(first).join() && inQuery;
			return fine ? [] : [`${label(text)} -> ${sent.method} ${sent.path}${sent.query}`];
		});
		expect(wrong).toEqual([]);
		count(tally, parameter, INJECTIONS.length, INJECTIONS.length);
	});

	it(
		'several statuses (a list, or text with commas) go out as ' + 'status[], each value encoded',
		async () => {
			const before = await mark(sb);
			const base = baseParameters('order', 'getManyForEvent');
			const lists = [['paid', '1&x=2'], 'paid, refund#x', ["1' OR '1'='1", '<script>']];
			for (const status of lists) await runPublicEvents(store, { ...base, filters: { status } });
			const sent = (await since(sb, before)).map((entry) =>
				new URLSearchParams(entry.query).getAll('status[]'),
			);
			expect(sent).toEqual([
				['paid', '1&x=2'],
				['paid', 'refund#x'],
				["1' OR '1'='1", '<script>'],
			]);
		},
	);
});

const searchParameters = everyOperation()
	.flatMap(([resource, operation]) => parametersOf(resource, operation))
	.filter((p) => p.kind === 'search');

describe('words to search with never go out: City goes as city IDs, Name Contains as none', () => {
	it.each(searchParameters.map((p) => [named(p), p] as const))('%s', async (_, parameter) => {
		const run = withValueFromItem(
			baseParameters(parameter.resource, parameter.operation),
			parameter,
		);
		const before = await mark(sb);
		const { error } = await runPublicEvents(store, run, {
			inputItems: itemsOf([...TEXTS, 'Berlin', 'live']),
			onError: 'continueRegularOutput',
		});
		expect(error).toBeUndefined();
		const sent = (await since(sb, before)).filter((entry) => entry.route !== '/token');
		const lists = sent.filter((entry) => entry.path.startsWith('/event-points'));
		expect(lists.length).toBeGreaterThan(0);
		// Each request: a list's path, and in its query only paging and city IDs, as numbers.
		const wrong = sent.filter(
			(entry) =>
				!['/cities', '/event-points', '/event-points-archived'].includes(entry.path) ||
				[...new URLSearchParams(entry.query)].some(
					([key, value]) =>
						!['page', 'itemsPerPage', 'city.id[]'].includes(key) || !/^[1-9]\d*$/.test(value),
				),
		);
		expect(wrong.map((entry) => `${entry.path}${entry.query}`)).toEqual([]);
	});
});

describe('what n8n hands the node', () => {
	it(
		'a collection given anything but an object reaches the node ' +
			'as its default: nothing of it is sent',
		async () => {
			const before = await mark(sb);
			const base = baseParameters('event', 'getMany') as INodeParameters;
			for (const filters of ['={{ "city.id[]=1" }}', '={{ 42 }}', '={{ ["a"] }}']) {
				expect((await runPublicEvents(store, { ...base, filters })).error).toBeUndefined();
			}
			const queries = (await since(sb, before)).map((entry) => queryKeys(entry).join());
			expect(queries).toEqual(Array(3).fill('itemsPerPage,page'));
		},
	);
});
