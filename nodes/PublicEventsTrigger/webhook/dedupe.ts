import { createHash } from 'crypto';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

/** How many recent delivery keys (and body digests) each trigger remembers. */
export const SEEN_WINDOW = 1000;
/** How many of its latest keys a request writes back: more than are ever handled at once. */
const WRITE_BACK = 100;
/** A key longer than this is kept as a digest: delivery ids are the sender's, of any length. */
export const MAX_KEY_CHARS = 40;

/**
 * Deliveries are at least once: the same one can come again. Seen keys are kept in two places:
 * - The node's static data. n8n saves static data changed inside webhook() for production
 *   webhooks once the answer is settled; the trigger answers itself (receive.ts) so that this
 *   happens before the run is queued, and the window survives restarts and reaches the other
 *   processes of a queue-mode n8n. Each request loads it afresh from the database and saves it
 *   whole, with no lock: of deliveries handled at once, each save holds only the keys its
 *   request knew. Test webhooks (manual mode) do not save it at all.
 * - This process's memory, checked and updated without an await in between, so a duplicate
 *   arriving at the same moment is caught. Lost on restart; per process (in queue mode with
 *   several webhook processes each keeps its own), which the static data covers. Each save
 *   writes this process's latest keys back too, so a key dropped by concurrent saves returns
 *   with the next (only the latest: older ones may have left the window for newer keys of
 *   another process).
 * The price: the sender hears 200 before n8n queues the run, so a run n8n fails to queue (its
 * database or Redis down) is not retried. Were the answer left to n8n, its 500 would bring the
 * retry, but the key is remembered already and the retry would be taken for a repeat; forgetting
 * keys instead would let a replay of any delivery of a burst fire twice after a restart.
 *
 * Bounded in bytes: a key over MAX_KEY_CHARS is kept as a 22-character digest, so an entry is at
 * most 53 characters however long the sender's ids are. Bounded in count: SEEN_WINDOW per field.
 * A delivery that signs its time is remembered with it; when such an entry leaves the window,
 * its time becomes the floor (`seenFloor`), and an unknown delivery signed at or before the floor
 * is refused: it may be a replay of one no longer remembered. A genuine one is signed anew by the
 * sender's retry and then passes. So a replay within the replay window is caught however many
 * deliveries came in between.
 */

type Field = 'seenDeliveries' | 'seenBodies';
const FIELDS: Field[] = ['seenDeliveries', 'seenBodies'];

/** Key to the unix seconds its delivery was signed at (0: no signed time), in arrival order. */
type Entries = Map<string, number>;

interface Scope {
	fields: Record<Field, Entries>;
	floor: number;
}

const inMemory = new Map<string, Scope>();

// Per mode too: a test delivery must not hide the same delivery from the production URL.
function scopeOf(context: IWebhookFunctions): Scope {
	const node = context.getNode();
	const name = `${context.getMode()}/${context.getWorkflow().id ?? ''}/${node.id ?? node.name}`;
	let scope = inMemory.get(name);
	if (!scope)
		inMemory.set(
			name,
			(scope = { fields: { seenDeliveries: new Map(), seenBodies: new Map() }, floor: 0 }),
		);
	return scope;
}

const digest = (data: string | Buffer) => createHash('sha256').update(data).digest('base64');

/** The key as remembered: whole when short, else `#` and a 128-bit digest. */
export const compactKey = (key: string) =>
	key.length <= MAX_KEY_CHARS ? key : `#${digest(key).slice(0, 22)}`;

/** Entries are `key`, or `<seconds>|key` when signed at a time (no key is digits and a `|`). */
const encode = (key: string, at: number) => (at > 0 ? `${at}|${key}` : key);

function decode(stored: unknown): Entries {
	const entries: Entries = new Map();
	if (!Array.isArray(stored)) return entries;
	for (const entry of stored) {
		if (typeof entry !== 'string') continue;
		const timed = /^(\d{1,12})\|/.exec(entry);
		// compactKey: an entry saved before keys were bounded shrinks at the next save.
		entries.set(
			compactKey(timed ? entry.slice(timed[0].length) : entry),
			timed ? Number(timed[1]) : 0,
		);
	}
	return entries;
}

/**
 * Adds to an ordered window, dropping the oldest past `size`; returns the latest signed time among
 * those dropped.
 */
function add(entries: Entries, key: string, at: number, size = SEEN_WINDOW): number {
	let dropped = 0;
	entries.set(key, at);
	for (const [oldest, when] of entries) {
		if (entries.size <= size) break;
		entries.delete(oldest);
		dropped = Math.max(dropped, when);
	}
	return dropped;
}

export type Seen = 'new' | 'duplicate' | 'stale';

/**
 * Whether this delivery was taken before, by its key or by its exact body; what is new is
 * remembered, in memory and in static data. `stale`: unknown, but signed at or before a
 * remembered delivery that has left the window. The key is the sender's delivery id under a
 * secret, what the API confirmed under Security None. Bodies are kept as the first 128 bits of
 * their SHA-256; the cost: a sender whose distinct notifications can be byte-identical has the
 * repeats folded.
 */
export function seenBefore(
	this: IWebhookFunctions,
	delivery: { key: string | null; body?: Buffer; signedAt?: number },
): Seen {
	const keys: Array<[Field, string]> = [];
	if (delivery.key !== null) keys.push(['seenDeliveries', compactKey(delivery.key)]);
	if (delivery.body) keys.push(['seenBodies', digest(delivery.body).slice(0, 22)]);
	if (keys.length === 0) return 'new';
	const at = delivery.signedAt ?? 0;
	const stored = this.getWorkflowStaticData('node');
	const scope = scopeOf(this);
	const saved = {
		seenDeliveries: decode(stored.seenDeliveries),
		seenBodies: decode(stored.seenBodies),
	};
	const savedFloor = typeof stored.seenFloor === 'number' ? stored.seenFloor : 0;
	scope.floor = Math.max(scope.floor, savedFloor);

	const seen = keys.some(([field, key]) => scope.fields[field].has(key) || saved[field].has(key));
	if (!seen && at > 0 && at <= scope.floor) return 'stale';
	for (const [field, key] of keys) {
		if (!scope.fields[field].has(key) && !saved[field].has(key))
			scope.floor = Math.max(scope.floor, add(scope.fields[field], key, at));
	}
	writeBack(stored, saved, scope, savedFloor);
	return seen ? 'duplicate' : 'new';
}

/**
 * Every field, on every request, a repeat too: keys a concurrent save dropped are stored again
 * before a retry of theirs reaches another process, and no save carries a field older than this
 * process knows. Assigned anew, so n8n's observable static data marks itself changed.
 */
function writeBack(
	stored: IDataObject,
	saved: Record<Field, Entries>,
	scope: Scope,
	savedFloor: number,
) {
	for (const field of FIELDS) {
		const merged = new Map(saved[field]);
		const latest = [...scope.fields[field]].slice(-WRITE_BACK).filter(([key]) => !merged.has(key));
		if (latest.length === 0 && tidy(stored[field], merged)) continue;
		for (const [key, at] of latest) scope.floor = Math.max(scope.floor, add(merged, key, at));
		stored[field] = [...merged].map(([key, at]) => encode(key, at));
	}
	if (scope.floor > savedFloor) stored.seenFloor = scope.floor;
}

/**
 * Whether the saved field is already what it decodes to: no unbounded entry left from an older
 * version, no repeats.
 */
const tidy = (stored: unknown, decoded: Entries) =>
	!Array.isArray(stored) ||
	(stored.length === decoded.size &&
		stored.every((entry) => typeof entry === 'string' && entry.length <= MAX_KEY_CHARS + 13));
