import { createHash } from 'crypto';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

/** How many recent delivery ids each trigger remembers. */
export const SEEN_WINDOW = 1000;
/** How many of its latest ids a request writes back: more than are ever handled at once. */
const WRITE_BACK = 100;

/**
 * Deliveries are at least once: the same one can come again. Seen ids are kept in two places:
 * - The node's static data. n8n saves static data changed inside webhook() for production
 *   webhooks once the answer is settled; the trigger answers itself (receive.ts) so that this
 *   happens before the run is queued, and the window survives restarts and reaches the other
 *   processes of a queue-mode n8n. Each request loads it afresh from the database and saves it
 *   whole, with no lock: of deliveries handled at once, each save holds only the ids its
 *   request knew. Test webhooks (manual mode) do not save it at all.
 * - This process's memory, checked and updated without an await in between, so a duplicate
 *   arriving at the same moment is caught. Lost on restart; per process (in queue mode with
 *   several webhook processes each keeps its own), which the static data covers. Each save
 *   writes this process's latest ids back too, so an id dropped by concurrent saves returns
 *   with the next (only the latest: older ones may have left the window for newer ids of
 *   another process).
 * The price: the sender hears 200 before n8n queues the run, so a run n8n fails to queue (its
 * database or Redis down) is not retried. Were the answer left to n8n, its 500 would bring the
 * retry, but the id is remembered already and the retry would be taken for a repeat; forgetting
 * ids instead would let a replay of any delivery of a burst fire twice after a restart.
 */
const inMemory = new Map<string, Set<string>>();

// Per mode too: a test delivery must not hide the same delivery from the production URL.
function scopeOf(context: IWebhookFunctions): string {
	const node = context.getNode();
	return `${context.getMode()}/${context.getWorkflow().id ?? ''}/${node.id ?? node.name}`;
}

function remember(ids: Set<string>, id: string) {
	ids.add(id);
	if (ids.size > SEEN_WINDOW) ids.delete(ids.values().next().value as string);
}

type Field = 'seenDeliveries' | 'seenBodies';
const FIELDS: Field[] = ['seenDeliveries', 'seenBodies'];

function memoryOf(context: IWebhookFunctions, field: Field): Set<string> {
	const scope = `${field} ${scopeOf(context)}`;
	let memory = inMemory.get(scope);
	if (!memory) inMemory.set(scope, (memory = new Set()));
	return memory;
}

const savedIn = (stored: IDataObject, field: Field) => (Array.isArray(stored[field]) ? (stored[field] as string[]) : []);

/**
 * Whether this delivery was taken before, by its id or (signed deliveries) by its exact bytes;
 * what is new is remembered, in memory and in static data. The delivery id header is not signed:
 * a captured delivery sent again under a new id passes the id check, not the bytes one. Bytes are
 * kept as the first 128 bits of the body's SHA-256; the cost: a sender whose distinct
 * notifications can be byte-identical has the repeats folded.
 */
export function seenBefore(this: IWebhookFunctions, delivery: { id: string | null; signedBody?: Buffer }): boolean {
	const keys: Array<[Field, string]> = [];
	if (delivery.id !== null) keys.push(['seenDeliveries', delivery.id]);
	if (delivery.signedBody) keys.push(['seenBodies', createHash('sha256').update(delivery.signedBody).digest('base64').slice(0, 22)]);
	if (keys.length === 0) return false;
	const stored = this.getWorkflowStaticData('node');
	let seen = false;
	for (const [field, key] of keys) {
		const memory = memoryOf(this, field);
		if (memory.has(key) || savedIn(stored, field).includes(key)) seen = true;
		else remember(memory, key);
	}
	// Every field, on every request, a repeat too: ids a concurrent save dropped are stored
	// again before a retry of theirs reaches another process, and no save carries a field
	// older than this process knows.
	for (const field of FIELDS) {
		const saved = savedIn(stored, field);
		const known = new Set(saved);
		const latest = [...memoryOf(this, field)].slice(-WRITE_BACK);
		// A new array, so n8n's observable static data marks itself changed and gets saved.
		if (latest.some((id) => !known.has(id))) stored[field] = [...new Set([...saved, ...latest])].slice(-SEEN_WINDOW);
	}
	return seen;
}
