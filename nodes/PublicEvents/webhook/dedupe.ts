import type { IWebhookFunctions } from 'n8n-workflow';

/** How many recent delivery ids each trigger remembers. */
export const SEEN_WINDOW = 1000;

/**
 * Deliveries are at least once: the same one can come again. Seen ids are kept in two places:
 * - The node's static data. n8n (2.40, live-webhooks.ts) saves static data changed inside
 *   webhook() once it has answered, for production webhooks; so the window survives restarts.
 *   But each request loads it afresh from the database and saves it whole, with no lock: two
 *   deliveries handled at once both miss each other's id, and the later save drops the other's.
 *   Test webhooks (manual mode) do not save it at all.
 * - This process's memory, checked and updated without an await in between, so a duplicate
 *   arriving at the same moment is caught. Lost on restart; per process (in queue mode with
 *   several webhook processes each keeps its own), which the static data covers.
 */
const inMemory = new Map<string, Set<string>>();

function remember(ids: Set<string>, id: string) {
	ids.add(id);
	if (ids.size > SEEN_WINDOW) ids.delete(ids.values().next().value as string);
}

/** Whether this delivery was seen before; if not, it is remembered. */
export function seenBefore(this: IWebhookFunctions, key: string): boolean {
	const node = this.getNode();
	const scope = `${this.getWorkflow().id ?? ''}/${node.id ?? node.name}`;
	let memory = inMemory.get(scope);
	if (!memory) inMemory.set(scope, (memory = new Set()));
	const stored = this.getWorkflowStaticData('node');
	const saved = Array.isArray(stored.seenDeliveries) ? (stored.seenDeliveries as string[]) : [];
	if (memory.has(key) || saved.includes(key)) return true;
	remember(memory, key);
	// A new array, so n8n's observable static data marks itself changed and gets saved.
	stored.seenDeliveries = [...saved, key].slice(-SEEN_WINDOW);
	return false;
}
