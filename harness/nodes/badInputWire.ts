/**
 * The wire's case of the bad-input suites: what an ID parameter sends, whatever it is given. Its
 * accepted forms (a number, padded text, an IRI of its collection) must go out as the plain number
 * where a marker ID went; injections and seeded hostile strings must be refused or go out encoded,
 * never spliced into a path.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { operationOf } from '../../nodes/PublicEvents/resources';
import { iriCollections } from '../../nodes/shared/inputs';
import type { CredentialStore } from '../engine';
import type { SandboxClient } from '../sandbox/client';
import { baseParameters, itemsOf, withValueFromItem, type Parameter } from './badInput';
import { INJECTIONS, label } from './badValues';
import { mark, runPublicEvents, since, type LogEntry } from './publicEvents';

/** An ID no record has: where it shows in the request is where the parameter's ID goes. */
export const MARKER = '424242';

/** Seeded, so a failure repeats: strings from pieces that try to leave a path segment. */
function hostile(seed: number, count: number): string[] {
	const pieces = [
		...['/', '../', '%2F', '%', '?', '#', '&', '=', ' ', '\r\n', "'", '<', 'api', 'v2'],
		...['orders', 'cities', 'event-points', 'places', '1', '0', '42', '007', 'a', '😀'],
		...['\u0000', ':', '//', 'https://x', '.', ';', '\\', '+', ','],
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
	const collection = iriCollections(parameter.property.name)?.[0];
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
export const queryKeys = (entry: LogEntry) =>
	[...new Set(new URLSearchParams(entry.query).keys())].sort();

/**
 * Per input item: rejected with a field-named error item, or the one request it made (items run in
 * order).
 */
export function attribute(
	items: INodeExecutionData[],
	count: number,
	field: string,
	log: LogEntry[],
) {
	const requests = log.filter((entry) => entry.route !== '/token');
	let next = 0;
	const outcomes = Array.from({ length: count }, (_, k) => {
		const out = items.filter((item) => (item.pairedItem as { item: number }).item === k);
		const rejected = out.length === 1 && String(out[0].json.error ?? '').startsWith(`${field}: `);
		return rejected ? undefined : requests[next++];
	});
	return { outcomes, extra: requests.length - next };
}

export interface WireOutcome {
	/** The run's own error (none expected: On Error > Continue). */
	error?: string;
	/** Requests beyond one per item that passed the checks. */
	extra: number;
	/** Where the marker went: the path, a query value, or neither (a JSON body, or nowhere). */
	where: 'path' | 'query' | 'elsewhere';
	/** Values that went out wrong, or were refused though they are an ID. */
	wrong: string[];
	/** How many wrong values were given, and how many of them went out (encoded). */
	bad: number;
	sentBad: number;
}

/** Runs one ID parameter with the marker, its accepted forms and the bad values, one item each. */
export async function wireCase(
	sb: SandboxClient,
	store: CredentialStore,
	parameter: Parameter,
	seed: number,
): Promise<WireOutcome> {
	const forms = acceptedForms(parameter);
	const bad = [...INJECTIONS, ...hostile(seed, 24)];
	const values = [MARKER, ...forms, ...bad];
	const run = withValueFromItem(baseParameters(parameter.resource, parameter.operation), parameter);
	// An operation whose one run reads several lists: each value alone.
	const probe = await runAlone(sb, store, parameter, MARKER);
	if (operationOf(parameter.resource, parameter.operation)?.once || (probe?.length ?? 0) > 1)
		return await eachAlone(sb, store, parameter, { values, forms, bad: bad.length });
	const before = await mark(sb);
	const { items, error } = await runPublicEvents(store, run, {
		inputItems: itemsOf(values),
		onError: 'continueRegularOutput',
	});
	const { outcomes, extra } = attribute(
		items,
		values.length,
		parameter.field,
		await since(sb, before),
	);
	const counts = { error: error?.message, extra, bad: bad.length };
	const sentBad = outcomes.slice(1 + forms.length).filter(Boolean).length;
	const marked = outcomes[0];
	if (!marked) return { ...counts, where: 'elsewhere', wrong: ['the marker was refused'], sentBad };

	// Where the marker went tells where an ID goes: into the path, a query key, or the body (or
	// nowhere).
	const inPath = marked.path.includes(MARKER);
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
	const where = inPath ? 'path' : key !== undefined ? 'query' : 'elsewhere';
	return { ...counts, where, wrong, sentBad };
}

/** One value's run: its requests (no token request), or the error item naming the field. */
async function runAlone(
	sb: SandboxClient,
	store: CredentialStore,
	parameter: Parameter,
	value: unknown,
): Promise<LogEntry[] | undefined> {
	const run = withValueFromItem(baseParameters(parameter.resource, parameter.operation), parameter);
	const before = await mark(sb);
	const { items } = await runPublicEvents(store, run, {
		inputItems: itemsOf([value]),
		onError: 'continueRegularOutput',
	});
	const requests = (await since(sb, before)).filter((entry) => entry.route !== '/token');
	const rejected =
		items.length === 1 && String(items[0].json.error ?? '').startsWith(`${parameter.field}: `);
	return rejected && requests.length === 0 ? undefined : requests;
}

/**
 * An operation that reads several lists for one value (the ledger, a sales summary): each value
 * runs alone. The marker shows which requests carry the ID (their path or query holds it); any
 * value that goes out must send those with its plain number in the marker's place (a real record
 * leads to more reads), every path of words and numbers only; a value that is no ID is refused
 * before any request.
 */
async function eachAlone(
	sb: SandboxClient,
	store: CredentialStore,
	parameter: Parameter,
	{ values, forms, bad }: { values: unknown[]; forms: unknown[]; bad: number },
): Promise<WireOutcome> {
	const text = (e: LogEntry) => `${e.method} ${e.path}${e.query}`;
	// Times in queries move between runs: a request is its method, path and the ID's query value.
	const carrying = (log: LogEntry[], id: string) =>
		log
			.filter(
				(e) =>
					e.path.split('/').includes(id) ||
					new URLSearchParams(e.query).toString().split(/[=&,]/).includes(id),
			)
			.map((e) => `${e.method} ${e.path}`)
			.sort();
	const marked = await runAlone(sb, store, parameter, MARKER);
	if (!marked)
		return { extra: 0, where: 'elsewhere', wrong: ['the marker was refused'], bad, sentBad: 0 };
	const inPath = marked.some((e) => e.path.includes(MARKER));
	const wanted = carrying(marked, MARKER);
	const wrong: string[] = [];
	let sentBad = 0;
	for (const [k, value] of values.slice(1).entries()) {
		const sent = await runAlone(sb, store, parameter, value);
		if (!sent) {
			if (k < forms.length) wrong.push(`${label(value)} was refused`);
			continue;
		}
		if (k >= forms.length) sentBad++;
		const id = reduced(value);
		const expected = wanted.map((t) => t.split(MARKER).join(id));
		const carried = carrying(sent, id);
		// The marker's requests with this ID (a real record leads to more reads, of its holds or its
		// places), and no path with anything but words and numbers in its segments.
		const fine =
			/^[1-9]\d*$/.test(id) &&
			expected.every((request) => carried.includes(request)) &&
			sent.every((e) => /^(\/[a-z-]+(\/\d+)?)+$/.test(e.path));
		if (!fine) wrong.push(`${label(value)} -> ${sent.map(text).join(' | ')}`);
	}
	return {
		extra: 0,
		where: inPath ? 'path' : wanted.length > 0 ? 'query' : 'elsewhere',
		wrong,
		bad,
		sentBad,
	};
}
