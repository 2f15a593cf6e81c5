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

interface Kept {
	secret: string;
	readAt: number;
}

/** Per trigger and credential: another trigger, or another credential picked, reads its own. */
const kept = new Map<string, Kept>();

/**
 * The secret of the trigger's Public Events Webhook API credential; `cached` when it was kept
 * from an earlier delivery, `fresh` to read the credential whatever is kept.
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
	const now = Date.now();
	const known = name === undefined ? undefined : kept.get(name);
	if (!fresh && known && now - known.readAt < SECRET_TTL_MS)
		return { secret: known.secret, cached: true };
	const { secret } = await this.getCredentials<{ secret?: string }>(WEBHOOK_CREDENTIAL);
	const text = typeof secret === 'string' ? secret : '';
	if (name !== undefined) {
		if (text === '') kept.delete(name);
		else kept.set(name, { secret: text, readAt: now });
	}
	return { secret: text, cached: false };
}
