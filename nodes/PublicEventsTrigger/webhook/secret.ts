import type { IWebhookFunctions } from 'n8n-workflow';

export const WEBHOOK_CREDENTIAL = 'publicEventsWebhookApi';

/**
 * How long this process checks deliveries with a secret it read, before reading it again. Reading
 * the credential (a database query and a decryption) was most of what a delivery cost: it made
 * n8n's own Webhook node with Header Auth a third slower than without (docs/queue-mode.md). A
 * delivery that fails the check with a secret kept here is checked again with the credential read
 * at once, so a new secret works from its first delivery; an old one is still taken for up to
 * this long by a process that read it (docs/security.md, "Rotating the secret").
 */
export const SECRET_TTL_MS = 60_000;

/**
 * Reads of the credential after failed checks, per trigger and credential: a few at once, then one
 * per REREAD_EVERY_MS. Forged deliveries all fail the check: unbounded, each would cost a
 * credential read (a flood of them, a flood of database queries). A secret rotated while they are
 * spent is taken at the next read allowed: the sender's next attempt passes (docs/security.md,
 * "Rotating the secret"). Reads after a failed read (the credential deleted, the database down)
 * take from the same allowance: the other deliveries fail with the kept error, unread.
 */
export const REREADS_AT_ONCE = 3;
export const REREAD_EVERY_MS = 5_000;

interface Kept {
	secret: string;
	readAt: number;
	/**
	 * The last read failed (the credential deleted or not decrypted, the database down): kept, so
	 * that while reading fails a delivery reads again only when the allowance lets it.
	 */
	failed?: { error: unknown };
	/** Re-reads after failed checks still allowed, as of `allowanceAt`. */
	allowance: number;
	allowanceAt: number;
	/** The read under way: deliveries arriving meanwhile wait for it instead of reading too. */
	reading?: Promise<string>;
}

/** Per trigger and credential: another trigger, or another credential picked, reads its own. */
const kept = new Map<string, Kept>();

/** Takes one re-read from the allowance, when one is left. */
function mayReread(known: Kept, now: number): boolean {
	const earned = Math.floor((now - known.allowanceAt) / REREAD_EVERY_MS);
	if (earned > 0) {
		known.allowance = Math.min(REREADS_AT_ONCE, known.allowance + earned);
		known.allowanceAt += earned * REREAD_EVERY_MS;
	}
	if (known.allowance === 0) return false;
	known.allowance--;
	return true;
}

async function readSecret(context: IWebhookFunctions, name: string | undefined): Promise<string> {
	const read = async () => {
		const { secret } = await context.getCredentials<{ secret?: string }>(WEBHOOK_CREDENTIAL);
		return typeof secret === 'string' ? secret : '';
	};
	if (name === undefined) return await read();
	const known = kept.get(name);
	if (known?.reading) return await known.reading;
	const now = Date.now();
	const entry: Kept = known ?? {
		secret: '',
		readAt: 0,
		allowance: REREADS_AT_ONCE,
		allowanceAt: now,
	};
	entry.reading = read().then(
		(secret) => {
			// A blank secret is kept too: every delivery fails against it, and must not read for that.
			entry.secret = secret;
			entry.readAt = Date.now();
			entry.failed = undefined;
			return secret;
		},
		async (error: unknown) => {
			entry.failed = { error };
			return await Promise.reject(error);
		},
	);
	kept.set(name, entry);
	try {
		return await entry.reading;
	} finally {
		entry.reading = undefined;
	}
}

/**
 * The secret of the trigger's Public Events Webhook API credential; `cached` when it was kept
 * from an earlier delivery. `fresh` (after a failed check) reads the credential again while the
 * allowance of re-reads lasts.
 */
export async function webhookSecret(
	this: IWebhookFunctions,
	fresh = false,
): Promise<{ secret: string; cached: boolean }> {
	const node = this.getNode();
	const credentialId = node.credentials?.[WEBHOOK_CREDENTIAL]?.id;
	const name = credentialId
		? `${this.getWorkflow().id ?? ''}/${node.id ?? node.name}/${credentialId}`
		: undefined;
	const known = name === undefined ? undefined : kept.get(name);
	if (known && !known.reading) {
		const now = Date.now();
		// While reading fails, a delivery reads again only when a re-read is allowed.
		if (known.failed) {
			if (!mayReread(known, now)) throw known.failed.error;
		} else if (fresh ? !mayReread(known, now) : now - known.readAt < SECRET_TTL_MS) {
			return { secret: known.secret, cached: true };
		}
	}
	return { secret: await readSecret(this, name), cached: false };
}
