import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { completeItem } from './complete';
import { confirm } from './confirm';
import { seenBefore } from './dedupe';
import { DEFAULT_MAX_BODY_KB } from './description';
import { readNotification, type Notification } from './normalize';
import { DEFAULT_REPLAY_WINDOW_S, headerValue, verifyDelivery, type Security } from './verify';

const WEBHOOK_CREDENTIAL = 'publicEventsWebhookApi';

interface Options {
	typeField?: string;
	deliveryIdHeader?: string;
	maxBodyKb?: number;
	replayWindowS?: number;
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

/** The empty 200 n8n would send for a started run, sent by the node itself. */
function emptyOk(context: IWebhookFunctions): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(200);
	res.end();
	return { noWebhookResponse: true };
}

/**
 * Answers 200 (empty, as n8n would) itself, then n8n starts the run. n8n saves the static data
 * webhook() changed (the remembered delivery keys) once the answer is settled; if it answers only
 * after queueing the run, 2.x no longer sees the change by then (the runner builds a second
 * Workflow over the same static data, which clears its changed flag) and nothing after the
 * first delivery is saved: in queue mode a retry at another process got through.
 * docs/queue-mode.md.
 */
function start(context: IWebhookFunctions, json: IDataObject): IWebhookResponseData {
	return { ...emptyOk(context), workflowData: [context.helpers.returnJsonArray([json])] };
}

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
 */
function parsePayload(raw: Buffer | undefined, parsed: unknown): IDataObject | string {
	let value = parsed;
	if (raw) {
		const text = raw.toString('utf8').replace(/^\uFEFF/, '');
		if (text.trim() === '') return 'The body is empty; expected a JSON object';
		try {
			value = JSON.parse(text);
		} catch {
			return 'The body is not valid JSON';
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		return 'The body is not a JSON object';
	return value as IDataObject;
}

/**
 * Security None: the delivery is a claim that the API confirms or not. The sender hears the same
 * empty 200 whether its claim started a run, was a repeat, or was false, so posting made-up
 * deliveries tells nothing about the partner's orders; why nothing started goes to n8n's log.
 */
async function confirmed(
	context: IWebhookFunctions,
	notification: Notification,
): Promise<IWebhookResponseData> {
	const verdict = await confirm.call(context, notification);
	const claim = `a ${notification.type} delivery (Security None)`;
	if (verdict.status === 'unavailable') {
		context.logger.warn(
			`Public Events Trigger: ${claim} could not be checked with the API ` +
				`and was answered 503, so the sender retries: ${verdict.reason}`,
		);
		return refuse(
			context,
			503,
			'The delivery could not be checked with the Public Events API; send it again later',
		);
	}
	if (verdict.status === 'unconfirmed') {
		context.logger.warn(`Public Events Trigger: ${claim} started nothing: ${verdict.reason}`);
		return emptyOk(context);
	}
	if (seenBefore.call(context, { key: verdict.key }) !== 'new') return emptyOk(context);
	return start(context, await completeItem.call(context, notification, verdict.order));
}

export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	const headers = this.getHeaderData() as Record<string, unknown>;
	const options = this.getNodeParameter('options', {}) as Options;

	// Size first: no HMAC over megabytes a sender should never send (n8n itself stops at 16 MB).
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
		return refuse(
			this,
			413,
			`The body is ${size} bytes; this trigger takes at most ${maxBytes} (Max Body Size)`,
		);

	// Authenticate before reading anything from the body.
	const security = this.getNodeParameter('authentication', 'none') as Security;
	let signedAt: number | undefined;
	if (security !== 'none') {
		const headerName = String(
			this.getNodeParameter(security === 'signature' ? 'signatureHeader' : 'headerName'),
		);
		const { secret } = await this.getCredentials<{ secret?: string }>(WEBHOOK_CREDENTIAL);
		const verdict = verifyDelivery(security, {
			headerName,
			header: headerValue(headers, headerName),
			secret: typeof secret === 'string' ? secret : '',
			raw,
			windowS: options.replayWindowS || DEFAULT_REPLAY_WINDOW_S,
			nowMs: Date.now(),
		});
		if (verdict.problem) return refuse(this, 401, verdict.problem);
		signedAt = verdict.signedAt;
	}

	const payload = parsePayload(raw, this.getBodyData());
	if (typeof payload === 'string') return refuse(this, 400, payload);

	const notification = readNotification(payload, {
		typeField: options.typeField,
		headerDeliveryId: headerValue(headers, options.deliveryIdHeader || 'X-Delivery-ID'),
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

	// Keyed by type too: a sender whose `id` is the order's would otherwise fold a refund into its
	// sale.
	const key =
		notification.deliveryId === null ? null : `${notification.type}:${notification.deliveryId}`;
	const seen = seenBefore.call(this, { key, body: raw, signedAt });
	if (seen === 'stale') {
		return refuse(
			this,
			401,
			'Signed no later than a delivery this trigger no longer ' +
				'remembers, so it may be a replay: sign it again now to deliver it',
		);
	}
	if (seen === 'duplicate') return acknowledge({ duplicate: echo(notification.deliveryId) });

	return start(this, await completeItem.call(this, notification));
}
