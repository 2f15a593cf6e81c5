import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { seenBefore } from './dedupe';
import { DEFAULT_MAX_BODY_KB } from './description';
import { fullOrder } from './fullOrder';
import { readNotification } from './normalize';
import { headerValue, securityProblem, type Security } from './verify';

const WEBHOOK_CREDENTIAL = 'publicEventsWebhookApi';

/** Answers the sender directly and starts nothing (as n8n's own Webhook node does on a failed check). */
function refuse(context: IWebhookFunctions, status: 400 | 401 | 413, message: string): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify({ message }));
	return { noWebhookResponse: true };
}

/**
 * Answers 200 (empty, as n8n would) itself, then n8n starts the run. n8n saves the static data
 * webhook() changed (the remembered delivery ids) once the answer is settled; if it answers only
 * after queueing the run, 2.x no longer sees the change by then (the runner builds a second
 * Workflow over the same static data, which clears its changed flag) and nothing after the
 * first delivery is saved: in queue mode a retry at another process got through. docs/queue-mode.md.
 */
function start(context: IWebhookFunctions, json: IDataObject): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(200);
	res.end();
	return { noWebhookResponse: true, workflowData: [context.helpers.returnJsonArray([json])] };
}

/** 200, nothing started: the sender must stop retrying a delivery that was ignored on purpose. */
const acknowledge = (note: IDataObject): IWebhookResponseData => ({ webhookResponse: { received: true, ...note } });

/**
 * The body as n8n hands it over. For a node at version 1 n8n reads the raw bytes into
 * `req.rawBody` before calling webhook() (webhook-helpers.ts parseRequestBody), and parses
 * JSON only when the Content-Type says application/json; malformed JSON with that type is
 * refused by n8n itself (422) before this node runs. Other types arrive unparsed: read here.
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
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'The body is not a JSON object';
	return value as IDataObject;
}

export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	const headers = this.getHeaderData() as Record<string, unknown>;
	const raw = Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
	const options = this.getNodeParameter('options', {}) as { typeField?: string; deliveryIdHeader?: string; maxBodyKb?: number };

	// Size first: no HMAC over megabytes a sender should never send (n8n itself stops at 16 MB).
	const maxBytes = (options.maxBodyKb || DEFAULT_MAX_BODY_KB) * 1024;
	const size = raw?.length ?? Number(headerValue(headers, 'content-length') ?? 0);
	if (size > maxBytes) return refuse(this, 413, `The body is ${size} bytes; this trigger takes at most ${maxBytes} (Max Body Size)`);

	// Authenticate before reading anything from the body.
	const security = this.getNodeParameter('authentication', 'none') as Security;
	if (security !== 'none') {
		const headerName = String(this.getNodeParameter(security === 'signature' ? 'signatureHeader' : 'headerName'));
		const { secret } = await this.getCredentials<{ secret?: string }>(WEBHOOK_CREDENTIAL);
		const problem = securityProblem(security, {
			headerName,
			header: headerValue(headers, headerName),
			secret: typeof secret === 'string' ? secret : '',
			raw,
		});
		if (problem) return refuse(this, 401, problem);
	}

	const payload = parsePayload(raw, this.getBodyData());
	if (typeof payload === 'string') return refuse(this, 400, payload);

	const notification = readNotification(payload, {
		typeField: options.typeField,
		headerDeliveryId: headerValue(headers, options.deliveryIdHeader || 'X-Delivery-ID'),
	});
	const events = this.getNodeParameter('events', []) as string[];
	if (!events.includes(notification.type)) {
		return acknowledge({ ignored: `"${notification.sourceType ?? '(no type)'}" (${notification.type}) is not among the trigger's Events` });
	}
	// Keyed by type too: a sender whose `id` is the order's would otherwise fold a refund into its sale.
	const id = notification.deliveryId === null ? null : `${notification.type}:${notification.deliveryId}`;
	if (seenBefore.call(this, { id, signedBody: security === 'signature' ? raw : undefined })) {
		return acknowledge({ duplicate: notification.deliveryId });
	}

	const fetch = this.getNodeParameter('fetchFullOrder', false) as boolean;
	const json = fetch ? { ...notification, ...(await fullOrder.call(this, notification)) } : notification;
	return start(this, json);
}
