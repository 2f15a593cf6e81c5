import { createHash } from 'crypto';
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { withAdditionalBody } from '../../../shared/body';
import type { Inputs } from '../../../shared/inputs';
import { serviceOf, type RequestSettings } from '../../../shared/transport';
import { idempotencyKeyOption } from './orderFields';
import { orderIdOf, readOrder } from './readBack';
import { writesSentBy } from './writeCheck';

/**
 * A buyer's key for one purchase (a shop's Idempotency-Key header): the first run with it holds,
 * every later one gets that order again. Where it is kept, and why there:
 * - in this process's memory, which is what makes two requests at once one purchase: the second
 *   waits for the first (a webhook's runs, the editor's and a schedule's all run in n8n's main
 *   process outside queue mode);
 * - in the node's workflow static data, which n8n loads when a run starts and saves whole when a
 *   run that is not a manual one ends (WorkflowStaticDataService.saveStaticDataById, for webhook
 *   and trigger runs in the main process and for queue-mode workers alike): a repeat after a
 *   restart, or in another process, finds it there. Two runs that overlap each load a copy and the
 *   one that ends last is what is saved; so every run of the node in a process holds the same
 *   table of keys (one object: what each run loaded, and every key settled in the process), and
 *   whichever of them n8n saves last saves every key of that process. Runs in other processes
 *   (queue-mode workers) save their own tables: one that overlapped can save its table without a
 *   key settled elsewhere meanwhile, until that process saves the key again with its next run.
 * n8n offers nothing better to a community node: its Data Tables refuse nodes other than its own
 * (DataTableProxyService), its dedupe store (checkProcessedAndRecord) keeps hashes only, and
 * neither locks; static data is one object per workflow, written whole by each run.
 */

/**
 * What a hold under a key is for: the purchase (its event, how many places, at what price, for how
 * long: not the places picked for it), its hold length, and the request settings to read it again.
 */
export interface Held {
	purchase: IDataObject;
	minutes: number;
	settings: RequestSettings & { options: IDataObject };
	/**
	 * A repeat's answer in the first answer's shape: `note` keeps a short text of that answer with
	 * the key, `shape` gives the order read again the fields the first answer had.
	 */
	answer?: { note: (first: IDataObject) => string | undefined; shape: Reshape };
}

type Reshape = (order: IDataObject, note?: string) => IDataObject;

interface Entry {
	/** The purchase's digest. */
	f: string;
	/** The order it holds, once known. */
	o?: string;
	/** The first request's words, when its outcome is not known: a repeat is told the same. */
	u?: string;
	/** The operation's note of its first answer (Held.answer). */
	n?: string;
	/** Until when (epoch ms) the key is kept. */
	e: number;
}

/** The key's claim in this process: its entry once settled, the first run's promise before. */
interface Claim {
	entry?: Entry;
	settled?: Promise<void>;
}

const MINUTE = 60_000;
/**
 * A key that made an order answers with it for a day, whatever became of the order (Stripe keeps
 * its keys as long): a buyer's second click, a resent request, a manual run again.
 */
const KEPT_MS = 24 * 60 * MINUTE;
/**
 * A key in doubt (its first request may have held) stays so until any hold it made has ended:
 * the hold length from the first request's end, and this margin for the service's clock. Then no
 * one can pay that hold (its order number was never known), so the key holds anew.
 */
const DOUBT_MARGIN_MS = 2 * MINUTE;
/** Keys a node keeps in its static data (saved with the workflow after each run): the newest. */
const STORED_AT_MOST = 2_000;
const MEMORY_AT_MOST = 20_000;
const STATIC_FIELD = 'idempotencyKeys';

const digest = (value: unknown) =>
	createHash('sha256').update(JSON.stringify(value)).digest('base64url');

/** A workflow's node in this process. */
interface Scope {
	/** Every key this process claimed or settled, by digest. */
	claims: Map<string, Claim>;
	/**
	 * The keys this process saves: one object, which the static data of every run of the node here
	 * holds, so that whichever run n8n saves last saves them all.
	 */
	table: Record<string, Entry>;
}

const scopes = new Map<string, Scope>();

function scopeOf(context: IExecuteFunctions): Scope {
	const node = context.getNode();
	const name = `${context.getWorkflow().id ?? ''}/${node.id ?? node.name}`;
	let scope = scopes.get(name);
	if (!scope) scopes.set(name, (scope = { claims: new Map(), table: {} }));
	return scope;
}

const isEntry = (entry: unknown): entry is Entry =>
	typeof entry === 'object' &&
	entry !== null &&
	typeof (entry as Entry).f === 'string' &&
	typeof (entry as Entry).e === 'number';

/**
 * Leaves out expired keys, and past the cap the oldest: keys in doubt go last (they end within a
 * hold's length, and one dropped would hold a second time), then made keys, soonest to end first.
 */
function tidy(table: Record<string, Entry>): void {
	const now = Date.now();
	const live = Object.entries(table).filter(([hash, entry]) => {
		if (entry.e > now) return true;
		delete table[hash];
		return false;
	});
	if (live.length <= STORED_AT_MOST) return;
	const doubt = (entry: Entry) => (entry.o === undefined ? 1 : 0);
	live.sort(([, a], [, b]) => doubt(b) - doubt(a) || b.e - a.e);
	for (const [hash] of live.slice(STORED_AT_MOST)) delete table[hash];
}

/**
 * The process's table of keys, which this run's static data now holds: the keys the run loaded
 * (saved by earlier runs, maybe in other processes) are added to it first.
 */
function tableOf(context: IExecuteFunctions, scope: Scope): Record<string, Entry> {
	const data = context.getWorkflowStaticData('node');
	const loaded = data[STATIC_FIELD];
	if (loaded === scope.table) return scope.table;
	if (loaded && typeof loaded === 'object') {
		for (const [hash, entry] of Object.entries(loaded as IDataObject)) {
			const known = scope.table[hash];
			if (isEntry(entry) && (!known || known.e < entry.e)) scope.table[hash] = { ...entry };
		}
		tidy(scope.table);
	}
	data[STATIC_FIELD] = scope.table;
	return scope.table;
}

/** Writes the key's entry (none: the key is free) into the table this run saves. */
function store(table: Record<string, Entry>, hash: string, entry?: Entry): void {
	if (entry) table[hash] = entry;
	else delete table[hash];
	tidy(table);
}

/** The key's entry once no run of this process is holding with it: its own, else the saved one. */
async function settledEntry(
	claims: Map<string, Claim>,
	table: Record<string, Entry>,
	hash: string,
): Promise<Entry | undefined> {
	let claim = claims.get(hash);
	while (claim?.settled) {
		await claim.settled;
		claim = claims.get(hash);
	}
	const now = Date.now();
	if (claim?.entry && claim.entry.e > now) return claim.entry;
	const saved = table[hash];
	return saved && saved.e > now ? saved : undefined;
}

function refusal(context: IExecuteFunctions, i: number, key: string, entry: Entry): Error {
	const order = entry.o ? `, order ${entry.o}` : '';
	return new NodeOperationError(
		context.getNode(),
		`Refused: the purchase was NOT made. Idempotency Key "${key.slice(0, 80)}" was used for ` +
			`another purchase${order} (another event, number of places, price or hold length): ` +
			'nothing was sent. A new purchase needs a new key.',
		{ itemIndex: i },
	);
}

/** Until when a key in doubt is answered so, in the words a shop can pass on (ISO time, UTC). */
const doubtEnds = (key: string, until: number) =>
	`Idempotency Key "${key.slice(0, 80)}" is in doubt until ${new Date(until).toISOString()}, ` +
	'when any hold it made has ended; asked again after that, it holds anew.';

/** A later run with the key: the first one's order, read afresh; nothing is held. */
async function repeat(
	context: IExecuteFunctions,
	i: number,
	key: string,
	entry: Entry,
	settings: RequestSettings,
	shape: Reshape = (order) => order,
): Promise<IDataObject> {
	if (entry.u !== undefined || entry.o === undefined)
		throw new NodeOperationError(
			context.getNode(),
			`Uncertain: an earlier request with Idempotency Key "${key.slice(0, 80)}" may have ` +
				`held places, and it is not known whether it did: nothing was sent again. ` +
				`${doubtEnds(key, entry.e)} ${entry.u ?? ''}`,
			{ itemIndex: i },
		);
	const made = entry.o;
	const order = await readOrder.call(context, made, settings).catch(async (error: Error) => {
		// Not a first request's failure: the purchase was made, and may be paid. Said as such, so a
		// workflow does not answer "nothing was charged"; the error's class and status are kept.
		error.message =
			`Repeated: an earlier request with Idempotency Key "${key.slice(0, 80)}" made order ` +
			`${made}; reading that order again failed, so what became of it is not known here ` +
			`(nothing was sent). ${error.message}`;
		return await Promise.reject(error);
	});
	return { ...shape(order, entry.n), idempotency: { key, repeated: true } };
}

/**
 * Runs `hold` once per key: with no key, every time. Refused or not applied, the key is free again
 * (nothing was held); uncertain, a repeat is told so and sends nothing.
 */
export async function oncePerKey(
	context: IExecuteFunctions,
	i: number,
	inputs: Inputs,
	held: Held,
	hold: () => Promise<IDataObject>,
): Promise<IDataObject> {
	const { purchase, minutes, settings } = held;
	const raw = settings.options.idempotencyKey;
	// Left empty (or an expression that found no header): no key. Blank text is a mistake.
	if (raw === undefined || raw === null || raw === '') return await hold();
	const key = inputs.text(raw, idempotencyKeyOption.displayName);
	const scope = scopeOf(context);
	const { claims } = scope;
	// This run's static data holds the process's table from now on (what it loaded added to it).
	const table = tableOf(context, scope);
	// Per service (a key tried on staging is no repeat on production); Additional Body Fields are
	// part of what is bought (a buyer's reference, a comment).
	const hash = digest([await serviceOf(context), key]);
	const extra = withAdditionalBody(settings.options, {}, inputs) ?? {};
	const f = digest(Object.keys(extra).length > 0 ? [purchase, extra] : purchase);
	const entry = await settledEntry(claims, table, hash);
	if (entry) {
		if (entry.f !== f) throw refusal(context, i, key, entry);
		return await repeat(context, i, key, entry, settings, held.answer?.shape);
	}
	// Another run may have claimed the key while this one awaited: check again before claiming.
	if (claims.get(hash)?.settled) return await oncePerKey(context, i, inputs, held, hold);
	let settle = () => {};
	const claim: Claim = { settled: new Promise<void>((done) => (settle = done)) };
	claims.set(hash, claim);
	if (claims.size > MEMORY_AT_MOST) claims.delete(claims.keys().next().value as string);
	const finish = (ended: Entry | undefined) => {
		if (ended) claims.set(hash, { entry: ended });
		else claims.delete(hash);
		store(table, hash, ended);
		settle();
	};
	const sentBefore = writesSentBy(context);
	return await hold().then(
		(order) => {
			finish({ f, o: orderIdOf(order), n: held.answer?.note(order), e: Date.now() + KEPT_MS });
			return order;
		},
		async (error: unknown) => {
			// A run stopped while its hold was on the way cannot tell: the service may apply it. One
			// stopped before sending (waiting for the key, reading the plan) held nothing.
			const sent = writesSentBy(context) > sentBefore;
			const until = inDoubtUntil(context, error, sent, minutes);
			if (until === undefined) finish(undefined);
			else {
				const words = (error as Error).message;
				finish({ f, u: words, e: until });
				if (error instanceof Error)
					error.message = `${words.replace(/\s+$/, '')} ${doubtEnds(key, until)}`;
			}
			return await Promise.reject(error);
		},
	);
}

/**
 * Until when a failed hold leaves its key in doubt (its outcome unknown: any hold it made ends by
 * then); undefined when it surely held nothing.
 */
function inDoubtUntil(
	context: IExecuteFunctions,
	error: unknown,
	sent: boolean,
	minutes: number,
): number | undefined {
	const outcome = ((error as { context?: IDataObject }).context?.writeCheck as IDataObject)
		?.outcome;
	const cancelled = context.getExecutionCancelSignal?.()?.aborted === true && sent;
	if (outcome !== 'uncertain' && !(outcome === undefined && cancelled)) return undefined;
	return Date.now() + minutes * MINUTE + DOUBT_MARGIN_MS;
}

/**
 * Frees the keys that made `order`, once the node released it itself (a later item stopped the
 * run): nothing was sold under them, so the batch run again holds anew.
 */
export function forgetOrder(context: IExecuteFunctions, order: string): void {
	const scope = scopeOf(context);
	for (const [hash, claim] of scope.claims) if (claim.entry?.o === order) scope.claims.delete(hash);
	for (const [hash, entry] of Object.entries(tableOf(context, scope)))
		if (entry.o === order) delete scope.table[hash];
}
