import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { IRI_COLLECTIONS } from '../../../nodes/shared/inputs';
import {
	baseParameters,
	everyOperation,
	INJECTIONS,
	itemsOf,
	label,
	newTally,
	parametersOf,
	report,
	withValueFromItem,
	type BaseIds,
	type Parameter,
	warmSandbox,
} from '../../../harness/nodes/badInput';
import {
	credentialFor,
	mark,
	runPublicEvents,
	since,
	type LogEntry,
} from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';

/**
 * What reaches the wire: an ID is never spliced into a path or a query unreduced, whatever the
 * input (a property checked over every ID parameter of every operation, with hostile and random
 * values), and free text goes out as an encoded query value (or in a JSON body), the path as it
 * was.
 */
const IDS: BaseIds = {
	event: '1001',
	sector: '2999',
	place: '1',
	priceCategory: '1',
	order: '700001',
	ticket: '900001',
};
const MARKER = '424242';
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

/** Seeded, so a failure repeats: strings from pieces that try to leave a path segment. */
function hostile(seed: number, count: number): string[] {
	const pieces = [
		'/',
		'../',
		'%2F',
		'%',
		'?',
		'#',
		'&',
		'=',
		' ',
		'\r\n',
		"'",
		'<',
		'api',
		'v2',
		'orders',
		'cities',
		'event-points',
		'places',
		'1',
		'0',
		'42',
		'007',
		'a',
		'😀',
		'\u0000',
		':',
		'//',
		'https://x',
		'.',
		';',
		'\\',
		'+',
		',',
	];
	let state = seed;
	const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
	return Array.from({ length: count }, () =>
		Array.from(
			{ length: 1 + Math.floor(next() * 6) },
			() => pieces[Math.floor(next() * pieces.length)],
		).join(''),
	);
}

/** Forms of an ID every ID field takes: each must go out as its plain number. */
function acceptedForms(parameter: Parameter): unknown[] {
	const collection = IRI_COLLECTIONS[parameter.property.name]?.[0];
	const iris = collection
		? [`/api/v2/${collection}/1003`, `https://x.example/api/v2/${collection}/1004/`]
		: [];
	return [' 1001 ', 1002, '0001005', 1e12, ...iris];
}

/**
 * The number an accepted input must have been reduced to: its trailing digits, leading zeros
 * dropped (an independent oracle).
 */
const reduced = (value: unknown) =>
	(/(\d+)\/?$/.exec(String(value).trim())?.[1] ?? '?').replace(/^0+/, '');
const listOf = (value: unknown, kind: Parameter['kind']) =>
	kind === 'id'
		? [value]
		: Array.isArray(value)
			? value
			: String(value)
					.split(',')
					.filter((part) => part.trim() !== '');
const queryKeys = (entry: LogEntry) => [...new Set(new URLSearchParams(entry.query).keys())].sort();

/**
 * Per input item: rejected with a field-named error item, or the one request it made (items run in
 * order).
 */
function attribute(items: INodeExecutionData[], count: number, field: string, log: LogEntry[]) {
	const requests = log.filter((entry) => entry.route !== '/token');
	let next = 0;
	const outcomes = Array.from({ length: count }, (_, k) => {
		const out = items.filter((item) => (item.pairedItem as { item: number }).item === k);
		const rejected = out.length === 1 && String(out[0].json.error ?? '').startsWith(`${field}: `);
		return rejected ? undefined : requests[next++];
	});
	return { outcomes, extra: requests.length - next };
}

const pathBound = new Set<string>();
const idParameters = everyOperation()
	.flatMap(([resource, operation]) => parametersOf(resource, operation))
	.filter((p) => ['id', 'ids', 'someIds', 'editorOnly'].includes(p.kind));

describe('no value is ever spliced into a path: every ID parameter of every operation', () => {
	it('every ID field names the resource whose IRIs it takes', () => {
		for (const p of idParameters.filter((p) => p.kind !== 'editorOnly'))
			expect([p.field, IRI_COLLECTIONS[p.property.name]]).toEqual([p.field, expect.any(Array)]);
	});

	it.each(
		idParameters.map(
			(p, n) => [`${p.resource} > ${p.operation} > ${p.path.join('.')} (${p.kind})`, p, n] as const,
		),
	)('%s', async (_, parameter, n) => {
		const forms = acceptedForms(parameter);
		const bad = [...INJECTIONS, ...hostile(n + 1, 24)];
		const values = [MARKER, ...forms, ...bad];
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
		const { outcomes, extra } = attribute(
			items,
			values.length,
			parameter.field,
			await since(sb, before),
		);
		expect(extra).toBe(0);

		// Where the marker went tells where an ID goes: into the path, a query key, or the body (or
		// nowhere).
		const marked = outcomes[0]!;
		const inPath = marked.path.includes(MARKER);
		if (inPath) pathBound.add(`${parameter.resource}:${parameter.operation}`);
		const key = [...new URLSearchParams(marked.query)].find(([, value]) => value === MARKER)?.[0];
		const editorOnly = parameter.kind === 'editorOnly';
		const wrong = values.flatMap((value, k) => {
			const sent = outcomes[k];
			// Accepted forms must go out; an editor-only field never stops anything.
			if (!sent) return k <= forms.length || editorOnly ? [`${label(value)} was refused`] : [];
			const ids = editorOnly ? [] : listOf(value, parameter.kind).map(reduced);
			const path = inPath ? marked.path.replace(MARKER, ids[0]) : marked.path;
			// A blank list filter is no filter: its key goes, nothing else changes.
			const keys = queryKeys(marked).filter((name) => ids.length > 0 || editorOnly || name !== key);
			const fine =
				sent.method === marked.method &&
				sent.path === path &&
				queryKeys(sent).join() === keys.join() &&
				(key === undefined || new URLSearchParams(sent.query).getAll(key).join() === ids.join()) &&
				ids.every((id) => /^[1-9]\d*$/.test(id));
			return fine ? [] : [`${label(value)} -> ${sent.method} ${sent.path}${sent.query}`];
		});
		expect(wrong).toEqual([]);

		tally.operations.add(`${parameter.resource}:${parameter.operation}`);
		tally.parameters.add(
			`${parameter.resource}:${parameter.operation}:${parameter.path.join('.')}`,
		);
		tally.badValues += bad.length;
		const sentBad = outcomes.slice(1 + forms.length).filter(Boolean).length;
		tally.sentEncoded += sentBad;
		tally.rejectedWithZeroRequests += bad.length - sentBad;
	});

	it(
		'(so every operation whose path takes an ID was checked: ' +
			'barcode export, event get, hall plan, order)',
		() => {
			expect([...pathBound].sort()).toEqual(
				[
					'barcode:exportForEvent',
					'event:get',
					'hallPlan:getPlaces',
					'hallPlan:getSectorPlaces',
					'hallPlan:getSectors',
				].concat(
					[
						'addPlace',
						'changeStatus',
						'changeTicketStatus',
						'extendHold',
						'get',
						'getManyForEvent',
						'getPaymentData',
						'holdBestAvailable',
						'removeTicket',
					].map((op) => `order:${op}`),
				),
			);
		},
	);
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
			baseParameters(parameter.resource, parameter.operation, IDS),
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
		tally.operations.add(`${parameter.resource}:${parameter.operation}`);
		tally.parameters.add(
			`${parameter.resource}:${parameter.operation}:${parameter.path.join('.')}`,
		);
		tally.badValues += INJECTIONS.length;
		tally.sentEncoded += INJECTIONS.length;
	});

	it(
		'several statuses (a list, or text with commas) go out as ' + 'status[], each value encoded',
		async () => {
			const before = await mark(sb);
			const base = baseParameters('order', 'getManyForEvent', IDS);
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

describe('what n8n hands the node', () => {
	it(
		'a collection given anything but an object reaches the node ' +
			'as its default: nothing of it is sent',
		async () => {
			const before = await mark(sb);
			const base = baseParameters('event', 'getMany', IDS) as INodeParameters;
			for (const filters of ['={{ "city.id[]=1" }}', '={{ 42 }}', '={{ ["a"] }}']) {
				expect((await runPublicEvents(store, { ...base, filters })).error).toBeUndefined();
			}
			const queries = (await since(sb, before)).map((entry) => queryKeys(entry).join());
			expect(queries).toEqual(Array(3).fill('itemsPerPage,page'));
		},
	);
});
