import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { completeItem } from './complete';
import { parseExactJson } from './exactJson';
import { confirmClaim, withoutRun } from './confirm';
import { ran, takeDelivery } from './dedupe';
import { DEFAULT_MAX_BODY_KB } from './pushProperties';
import { deliveryKeys, itemKey } from './keys';
import { readNotification, type Notification } from './normalize';
import { webhookSecret } from './secret';
import {
	DEFAULT_REPLAY_WINDOW_S,
	headerValue,
	verifyDelivery,
	type Security,
	type Verdict,
} from './verify';

interface Options {
	typeField?: string;
	deliveryIdHeader?: string;
	maxBodyKb?: number;
	replayWindowS?: number;
	requireSignedTime?: boolean;
}

/**
 * Answers the sender directly and starts nothing (as n8n's own Webhook node does on a failed
 * check).
 */
function refuse(
	context: IWebhookFunctions,
	status: 400 | 401 | 413 | 503,
	message: string,
): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify({ message }));
	return { noWebhookResponse: true };
}

/** The empty 200 n8n sends for a started run (`responseData: 'noData'`), sent by the node. */
function emptyOk(context: IWebhookFunctions): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(200);
	res.end();
	return { noWebhookResponse: true };
}

/**
 * The run, and no answer: n8n 2.x answers (an empty 200) only once it has created the run, in the
 * database or queued in Redis, and answers 500 when it cannot, so the sender retries; the delivery
 * is remembered only once answered 2xx (dedupe.ts). n8n 1.x answers before it creates the run.
 * The item is named by `dedupeKey`: exactly once is the destination's, keyed by it. Rows (Ledger
 * Rows: no payload) are the ledger's; each is upserted by its own key.
 */
function start(
	context: IWebhookFunctions,
	notification: Notification,
	items: IDataObject[],
	key?: string,
): IWebhookResponseData {
	const keyed = items.map((json) =>
		'payload' in json ? { ...json, dedupeKey: key ?? itemKey(notification, json) } : json,
	);
	return { workflowData: [context.helpers.returnJsonArray(keyed)] };
}

/** 503: the sender keeps the delivery and sends it again later. */
const later = (context: IWebhookFunctions, what: string) =>
	refuse(context, 503, `${what}; send it again later`);

/** 200, nothing started: the sender must stop retrying a delivery that was ignored on purpose. */
const acknowledge = (note: IDataObject): IWebhookResponseData => ({
	webhookResponse: { received: true, ...note },
});

/** The sender's own text echoed in a note, cut short: ids and type names can be any length. */
const echo = (text: string | null) =>
	text !== null && text.length > 100 ? `${text.slice(0, 100)}…` : text;

/**
 * The body as n8n hands it over. n8n reads the raw bytes into `req.rawBody` before calling
 * webhook() and parses JSON only when the Content-Type says application/json; malformed JSON with
 * that type is refused by n8n itself (422) before this node runs. From node version 1.1 n8n leaves
 * a body of another type unread: `readRawBody` reads it. Other types arrive unparsed: read here.
 * Integers too long for a double (ids) are kept whole, as text.
 */
function parsePayload(raw: Buffer | undefined, parsed: unknown): IDataObject | string {
	let value = parsed;
	if (raw) {
		const text = raw.toString('utf8').replace(/^\uFEFF/, '');
		if (text.trim() === '') return 'The body is empty; expected a JSON object';
		try {
			value = parseExactJson(text);
		} catch {
			return 'The body is not valid JSON';
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		return 'The body is not a JSON object';
	return value as IDataObject;
}

const NOT_CONFIRMED = 'The delivery could not be confirmed with the Public Events API';

/**
 * Security None: the delivery is a claim that the API confirms or not. A claim the API does not
 * show, after a short re-check (confirm.ts), is answered 503, as is one the API could not be asked
 * about: a genuine sender retries, and every claim not confirmed gets the same answer, so a forger
 * learns no more than whether an order is paid. A confirmed claim starts its run with what the API
 * showed (the claim's ids, times and payload are not passed on), a repeat of it is answered the
 * same empty 200. Why nothing started goes to n8n's log.
 */
async function confirmed(
	context: IWebhookFunctions,
	notification: Notification,
): Promise<IWebhookResponseData> {
	const verdict = await confirmClaim.call(context, notification);
	const claim = `a ${notification.type} delivery (Security None)`;
	if (verdict.status === 'uncheckable') {
		context.logger.warn(`Public Events Trigger: ${claim} started nothing: ${verdict.reason}`);
		return emptyOk(context);
	}
	if (verdict.status !== 'confirmed') {
		context.logger.warn(
			`Public Events Trigger: ${claim} was not confirmed by the API and was answered 503, ` +
				`so the sender retries: ${verdict.reason}`,
		);
		return later(context, NOT_CONFIRMED);
	}
	const fresh = withoutRun(verdict, (key) => ran.call(context, key));
	if (!fresh) return emptyOk(context);
	const taken = await takeDelivery.call(context, { keys: fresh.seen, every: true });
	if (taken === 'busy') return later(context, NOT_CONFIRMED);
	if (taken !== 'new') return emptyOk(context);
	// Nothing of the claim's but its type: the tickets of a refund are the ones the API confirmed.
	const shown: Notification = {
		...notification,
		deliveryId: null,
		eventPointId: fresh.eventPointId,
		occurredAt: fresh.occurredAt,
		payload: fresh.refund ? { data: { ticketIds: fresh.refund.tickets } } : {},
	};
	const completed = await completeItem.call(context, shown, fresh.read);
	if ('later' in completed) return later(context, NOT_CONFIRMED);
	return start(context, shown, completed.items, fresh.key);
}

/**
 * The raw body, read only within Max Body Size: no HMAC over megabytes a sender should never send
 * (n8n itself stops at 16 MB). `tooLarge`: why it is refused (413).
 */
async function boundedBody(
	context: IWebhookFunctions,
	headers: Record<string, unknown>,
	options: Options,
): Promise<{ raw?: Buffer } | { tooLarge: string }> {
	const req = context.getRequestObject();
	const maxBytes = (options.maxBodyKb || DEFAULT_MAX_BODY_KB) * 1024;
	const declared = Number(headerValue(headers, 'content-length') ?? 0);
	if (
		!Buffer.isBuffer(req.rawBody) &&
		declared <= maxBytes &&
		typeof req.readRawBody === 'function'
	)
		await req.readRawBody();
	const raw = Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
	const size = raw?.length ?? declared;
	if (size > maxBytes)
		return {
			tooLarge: `The body is ${size} bytes; this trigger takes at most ${maxBytes} (Max Body Size)`,
		};
	return { raw };
}

/** Header Token or Signature checked against the secret; `problem` says why it fails (401). */
async function authenticate(
	context: IWebhookFunctions,
	security: Security,
	delivery: { headers: Record<string, unknown>; raw?: Buffer; options: Options },
): Promise<Verdict> {
	if (security === 'none') return {};
	const { headers, raw, options } = delivery;
	const headerName = String(
		context.getNodeParameter(security === 'signature' ? 'signatureHeader' : 'headerName'),
	);
	const check = (secret: string) =>
		verifyDelivery(security, {
			headerName,
			header: headerValue(headers, headerName),
			secret,
			raw,
			windowS: options.replayWindowS || DEFAULT_REPLAY_WINDOW_S,
			requireTime: options.requireSignedTime === true,
			nowMs: Date.now(),
		});
	const known = await webhookSecret.call(context);
	const verdict = check(known.secret);
	// A secret changed since this process read it: the first delivery under it passes.
	if (verdict.problem && known.cached)
		return check((await webhookSecret.call(context, true)).secret);
	return verdict;
}

/**
 * Header Token or Signature: a delivery taken once (by its keys), its order read, its run started.
 */
async function authenticated(
	context: IWebhookFunctions,
	security: Security,
	notification: Notification,
	delivery: { headerDeliveryId?: string; signedAt?: number },
): Promise<IWebhookResponseData> {
	const keys = deliveryKeys(security, notification, delivery.headerDeliveryId);
	const taken = await takeDelivery.call(context, { keys, signedAt: delivery.signedAt });
	if (taken === 'stale') {
		return refuse(
			context,
			401,
			'Signed no later than a delivery this trigger no longer ' +
				'remembers, so it may be a replay: sign it again now to deliver it',
		);
	}
	if (taken === 'busy') return later(context, 'A copy of this delivery is still being started');
	if (taken === 'duplicate') return acknowledge({ duplicate: echo(notification.deliveryId) });

	const completed = await completeItem.call(context, notification);
	if ('later' in completed) {
		context.logger.warn(
			`Public Events Trigger: a ${notification.type} delivery was answered 503, so the sender ` +
				`delivers it again later: ${completed.later}`,
		);
		return later(context, 'The order could not be read from the Public Events API yet');
	}
	return start(context, notification, completed.items);
}

export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = this.getHeaderData() as Record<string, unknown>;
	const options = this.getNodeParameter('options', {}) as Options;

	// Size first, then authenticate before reading anything from the body.
	const body = await boundedBody(this, headers, options);
	if ('tooLarge' in body) return refuse(this, 413, body.tooLarge);
	const { raw } = body;
	const security = this.getNodeParameter('authentication', 'none') as Security;
	const verdict = await authenticate(this, security, { headers, raw, options });
	if (verdict.problem) return refuse(this, 401, verdict.problem);

	const payload = parsePayload(raw, this.getBodyData());
	if (typeof payload === 'string') return refuse(this, 400, payload);

	const headerDeliveryId = headerValue(headers, options.deliveryIdHeader || 'X-Delivery-ID');
	const notification = readNotification(payload, {
		typeField: options.typeField,
		headerDeliveryId,
		signedBody: security === 'signature',
	});
	const events = this.getNodeParameter('events', []) as string[];
	if (!events.includes(notification.type)) {
		return acknowledge({
			ignored:
				`"${echo(notification.sourceType) ?? '(no type)'}" (` +
				`${notification.type}) is not among the trigger's Events`,
		});
	}
	if (security === 'none') return await confirmed(this, notification);
	const { signedAt } = verdict;
	return await authenticated(this, security, notification, { headerDeliveryId, signedAt });
}
