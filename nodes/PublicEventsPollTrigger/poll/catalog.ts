import { createHash } from 'crypto';
import type { IPollFunctions } from 'n8n-workflow';

import { stableJson } from '../../shared/dedupeKey';
import { apiRequest, apiRequestAllItems, readListPage } from '../../shared/transport';
import { recordId } from './feed';
import type { Change } from './items';
import type { PollSettings } from './pollSettings';
import type { CatalogState, PollState } from './state';

// Six base64url characters (36 bits) per field: a change goes unnoticed once in 70 billion.
const HASH_LENGTH = 6;
/** The field is not in the record. */
const ABSENT = '.'.repeat(HASH_LENGTH);
/** No earlier fingerprint of the field (new to the list, or no longer ignored): not compared. */
const UNKNOWN = '?'.repeat(HASH_LENGTH);
/**
 * Events that left the list keep their fingerprint this long: one missed listing re-emits nothing.
 */
const GONE_KEEP_MS = 7 * 24 * 3_600_000;

const fieldHash = (value: unknown) =>
	value === undefined
		? ABSENT
		: createHash('sha256').update(stableJson(value)).digest('base64url').slice(0, HASH_LENGTH);

function decode(text: string, fields: string[]): Record<string, string> {
	return Object.fromEntries(
		fields.map((field, i) => [field, text.slice(i * HASH_LENGTH, (i + 1) * HASH_LENGTH)]),
	);
}

const encode = (hashes: Record<string, string>, fields: string[]) =>
	fields.map((field) => hashes[field] ?? UNKNOWN).join('');

/**
 * One poll of the catalog: every visible event (all pages), compared field by field with the
 * fingerprints of the last poll. The first poll only records them. Fields to Ignore are not
 * fingerprinted at all.
 */
export async function pollCatalog(
	this: IPollFunctions,
	settings: PollSettings,
	saved: PollState | undefined,
	now: number,
): Promise<{ changes: Change[]; state: PollState }> {
	const list = await apiRequestAllItems.call(this, '/event-points', {}, settings.request);
	const ignored = new Set(settings.ignoreFields);
	const previous = saved?.catalog;
	const names = new Set(previous?.fields ?? []);
	for (const event of list) for (const name of Object.keys(event)) names.add(name);
	const fields = [...names].filter((name) => !ignored.has(name)).sort();
	const before = (id: string) =>
		previous?.events[id] !== undefined ? decode(previous.events[id], previous.fields) : undefined;

	const changes: Change[] = [];
	const catalog: CatalogState = { fields, events: {}, gone: {} };
	for (const event of list) {
		const id = recordId(event);
		if (catalog.events[id] !== undefined) continue; // listed twice (the list moved between pages)
		const hashes = Object.fromEntries(fields.map((field) => [field, fieldHash(event[field])]));
		const old = before(id);
		if (previous && !old)
			changes.push({ type: 'newEvent', source: 'catalog', time: now, json: event });
		if (old) {
			const changedFields = fields.filter(
				(field) =>
					old[field] !== undefined && old[field] !== UNKNOWN && old[field] !== hashes[field],
			);
			if (changedFields.length > 0)
				changes.push({
					type: 'eventUpdated',
					source: 'catalog',
					time: now,
					json: event,
					changedFields,
				});
		}
		catalog.events[id] = encode(hashes, fields);
	}
	for (const [id, text] of Object.entries(previous?.events ?? {})) {
		const since = previous?.gone[id] ?? now;
		if (!previous || catalog.events[id] !== undefined || now - since >= GONE_KEEP_MS) continue;
		catalog.events[id] = encode(decode(text, previous.fields), fields);
		catalog.gone[id] = since;
	}
	return {
		changes,
		state: { version: 1, startFromKey: saved?.startFromKey ?? '', feeds: {}, catalog },
	};
}

/** Manual runs: the newest event of the first page (highest id) as a `newEvent` sample. */
export async function sampleCatalog(
	this: IPollFunctions,
	settings: PollSettings,
	now: number,
): Promise<Change[]> {
	const body = await apiRequest.call(
		this,
		'GET',
		'/event-points',
		{ qs: { page: 1, itemsPerPage: 100 } },
		settings.request,
	);
	const events = readListPage(body)?.items ?? [];
	const newest = [...events].sort((a, b) => Number(recordId(b)) - Number(recordId(a)))[0];
	return newest ? [{ type: 'newEvent', source: 'catalog', time: now, json: newest }] : [];
}
