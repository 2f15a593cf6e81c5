import { createHash } from 'crypto';
import { sleep, type IWebhookFunctions } from 'n8n-workflow';

/** How many delivery keys each trigger remembers per process. */
export const SEEN_WINDOW = 10_000;
/** How long a copy waits for the answer to the same delivery taken a moment before. */
export const COPY_WAIT_MS = 10_000;
/**
 * How long n8n may still take to answer a delivery whose sender hung up first (a read slower than
 * the sender's timeout): n8n writes its answer once the run exists, to the closed connection.
 */
export const ANSWER_WAIT_MS = 60_000;
const WAIT_STEP_MS = 50;

/**
 * Deliveries are at least once: the same one can come again. A delivery is remembered here only
 * once n8n has answered it 2xx, which n8n 2.x does once the run exists (the trigger leaves that
 * answer to n8n): a run n8n failed to create is answered 500, nothing is remembered, and the
 * sender's retry starts the run. Until then the delivery is in flight, and a copy arriving
 * meanwhile waits for that answer (COPY_WAIT_MS at most, else 503, so it is asked again later):
 * a copy is answered "duplicate" only when a run for the same delivery exists. n8n writes that
 * answer also when the sender hung up before it (its timeout shorter than the order read): the run
 * exists all the same, and a copy arriving meanwhile is a duplicate.
 *
 * In this process's memory only: checked and updated without an await in between, O(1) per
 * delivery, SEEN_WINDOW keys of 22 characters each. n8n saves static data changed in webhook()
 * only when the node answers itself, and saving it cost a database write of the whole static data
 * per delivery. So a copy that reaches another process (queue mode), or comes after a restart,
 * starts a second run: exactly once is then the destination's, keyed by the item's `dedupeKey`.
 *
 * A delivery that signs its time is remembered with it; when a key leaves the window, its time
 * becomes the floor, and an unknown delivery signed at or before the floor is refused: it may be a
 * replay of one no longer remembered. A genuine one is signed anew by the sender's retry and then
 * passes.
 */

interface Scope {
	/** Key to the unix seconds its delivery was signed at (0: no signed time), oldest first. */
	seen: Map<string, number>;
	/** Keys of deliveries taken and not answered yet: whether n8n answered them 2xx. */
	inFlight: Map<string, Promise<boolean>>;
	floor: number;
}

const scopes = new Map<string, Scope>();

// Per mode too: a test delivery must not hide the same delivery from the production URL.
function scopeOf(context: IWebhookFunctions): Scope {
	const node = context.getNode();
	const name = `${context.getMode()}/${context.getWorkflow().id ?? ''}/${node.id ?? node.name}`;
	let scope = scopes.get(name);
	if (!scope) scopes.set(name, (scope = { seen: new Map(), inFlight: new Map(), floor: 0 }));
	return scope;
}

/** Bounded in bytes whatever the sender's ids: a 128-bit digest of each key. */
const compact = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 22);

function remember(scope: Scope, key: string, at: number) {
	scope.seen.delete(key);
	scope.seen.set(key, at);
	for (const [oldest, when] of scope.seen) {
		if (scope.seen.size <= SEEN_WINDOW) break;
		scope.seen.delete(oldest);
		scope.floor = Math.max(scope.floor, when);
	}
}

/** Whether a run of this trigger in this process stood for `key` (answered 2xx). */
export function ran(this: IWebhookFunctions, key: string): boolean {
	return scopeOf(this).seen.has(compact(key));
}

/** The outcome of a delivery in flight, or undefined when it takes longer than COPY_WAIT_MS. */
async function outcomeOf(inFlight: Promise<boolean>): Promise<boolean | undefined> {
	for (let waited = 0; waited < COPY_WAIT_MS; waited += WAIT_STEP_MS) {
		const outcome = await Promise.race([inFlight, sleep(WAIT_STEP_MS).then(() => undefined)]);
		if (outcome !== undefined) return outcome;
	}
	return undefined;
}

type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * Whether the delivery was answered 2xx, once its connection closed. `writableEnded` is set when
 * the answer is written, sent or not: a sender that hung up before it closed the connection first,
 * and n8n writes the answer later, once the run exists (no event tells it then).
 */
async function answered2xx(res: Response): Promise<boolean> {
	for (let waited = 0; !res.writableEnded && waited < ANSWER_WAIT_MS; waited += WAIT_STEP_MS)
		await sleep(WAIT_STEP_MS);
	return res.writableEnded && res.statusCode >= 200 && res.statusCode < 300;
}

/**
 * `new`: taken; its keys are remembered once n8n answers it 2xx. `duplicate`: a run for it
 * exists. `stale`: unknown, but signed at or before a delivery that has left the window. `busy`:
 * a copy is still being answered.
 */
export type Taken = 'new' | 'duplicate' | 'stale' | 'busy';

/**
 * A delivery is a duplicate when one of its keys ran (each names the whole delivery), or with
 * `every` when all did (each names a part: a refunded ticket).
 */
export async function takeDelivery(
	this: IWebhookFunctions,
	delivery: { keys: string[]; signedAt?: number; every?: boolean },
): Promise<Taken> {
	const scope = scopeOf(this);
	const keys = delivery.keys.map(compact);
	const ran = (key: string) => scope.seen.has(key);
	for (;;) {
		if (delivery.every ? keys.every(ran) : keys.some(ran)) return 'duplicate';
		const other = keys.map((key) => scope.inFlight.get(key)).find((taken) => taken);
		if (!other) break;
		// Answered 2xx: the loop finds it seen. Not: this copy may take it.
		if ((await outcomeOf(other)) === undefined) return 'busy';
	}
	const at = delivery.signedAt ?? 0;
	if (at > 0 && at <= scope.floor) return 'stale';

	let settle: (started: boolean) => void = () => undefined;
	const outcome = new Promise<boolean>((resolve) => (settle = resolve));
	for (const key of keys) scope.inFlight.set(key, outcome);
	const res = this.getResponseObject();
	// 'close' comes after the answer was sent, or when the sender hung up before it.
	res.once('close', () => {
		void answered2xx(res).then((started) => {
			for (const key of keys) {
				if (scope.inFlight.get(key) === outcome) scope.inFlight.delete(key);
				if (started) remember(scope, key, at);
			}
			settle(started);
		});
	});
	return 'new';
}
